-- Near-duplicate clusters that hold more than one split. Clusters can merge after their members
-- were split (a new claim close to a train claim and a test claim, a re-cluster, a loaded
-- dataset), and splits never move. So the cluster keeps the split most of its members hold and
-- its other members are left out of the dataset here, as dataset_claim_flags leaves out
-- all-unrelated claims: without deleting anything, rewritten by every build (tasks/dataset/assemble.py).
-- v_gold_pairs and v_stance_examples are replaced so that these claims drop out of the export,
-- the statistics and the models' input too: no test claim has a near-duplicate in train.

CREATE TABLE dataset_split_conflicts (
    claim_id       VARCHAR PRIMARY KEY,           -- claims.claim_id: left out of the dataset
    group_id       VARCHAR NOT NULL,              -- its near-duplicate cluster (claim_clusters.cluster_id)
    split          VARCHAR NOT NULL,              -- its own split (splits.split, unchanged)
    kept_split     VARCHAR NOT NULL,              -- the split its cluster keeps in the dataset
    pairs          INTEGER NOT NULL,              -- gold-labelled pairs when left out
    flagged_at     TIMESTAMP NOT NULL
);

CREATE OR REPLACE VIEW v_gold_pairs AS
SELECT p.pair_id, p.claim_id, p.article_id, c.source_id, c.veracity, g.label
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c USING (claim_id)
WHERE c.status <> 'excluded'
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_claim_flags)
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_split_conflicts);

CREATE OR REPLACE VIEW v_stance_examples AS
SELECT
    p.pair_id,
    p.claim_id,
    p.article_id,
    coalesce(o.cleaned_text, c.cleaned_text) AS claim_text,
    a.text                                   AS article_text,
    a.title                                  AS article_title,
    a.url                                    AS article_url,
    g.label,
    s.split
FROM claim_article_pairs p
JOIN gold_labels g USING (pair_id)
JOIN claims c ON c.claim_id = p.claim_id
JOIN articles a ON a.article_id = p.article_id
JOIN splits s ON s.claim_id = p.claim_id
LEFT JOIN claim_overrides o ON o.claim_id = p.claim_id
WHERE c.status <> 'excluded' AND a.fetch_status = 'ok'
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_claim_flags)       -- left out: every document unrelated
  AND p.claim_id NOT IN (SELECT claim_id FROM dataset_split_conflicts);  -- left out: a near-duplicate holds another split

COMMENT ON VIEW v_gold_pairs IS 'Claim-article pairs with a gold stance label, excluded and left-out claims (all documents unrelated; a near-duplicate in another split) removed; one row per pair. The base of the dataset statistics.';
COMMENT ON VIEW v_stance_examples IS 'The stance models'' input: one row per gold pair of a split claim whose article was fetched, with claim and article texts, label and split; left-out claims removed.';
