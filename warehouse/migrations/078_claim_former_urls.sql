-- Claims re-keyed to today's canonical URL (`arastance warehouse rekey-claims`): a claim stored
-- before canonicalisation put a site's http:// and http://www. spellings on its https address, and
-- a web-archive capture on its original URL, keeps its claim_id (overrides, clusters, queries,
-- pairs and splits name it) while claims.canonical_url takes the current form. The spelling it
-- was stored under is kept here, and key_id lets a load of the new spelling find the claim: the
-- loader names a claim stable_id(source_id, canonical_url), which is not the id it kept.
CREATE TABLE claim_former_urls (
    claim_id       VARCHAR NOT NULL,              -- claims.claim_id, unchanged by the re-keying
    source_id      VARCHAR NOT NULL,
    former_url     VARCHAR NOT NULL,              -- the canonical_url the claim was stored under
    canonical_url  VARCHAR NOT NULL,              -- the canonical_url it was given
    key_id         VARCHAR NOT NULL UNIQUE,       -- stable_id(source_id, canonical_url): the id a load computes
    rekeyed_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (claim_id, former_url)
);

COMMENT ON TABLE claim_former_urls IS 'Former canonical URLs of re-keyed claims (arastance warehouse rekey-claims): claim_id kept, former_url the spelling it was stored under (http://, http://www. or a web.archive.org capture address), canonical_url the current one, key_id = stable_id(source_id, canonical_url), the id a crawl load of the new spelling computes for it.';
