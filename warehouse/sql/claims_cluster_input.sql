-- The claims of one veracity (parameter: the veracity) that deduplication clusters, as
-- claim_id and normalized_text: excluded claims and empty texts take no part. Ordered by
-- publication date (undated last), then id, so the earliest claim of a cluster becomes its
-- representative and the clustering is the same on every run.
SELECT claim_id, normalized_text
FROM claims
WHERE veracity = ? AND status <> 'excluded' AND coalesce(normalized_text, '') <> ''
ORDER BY published_date NULLS LAST, claim_id;
