-- The claims (claim_id, normalized_text) whose clusters an incremental deduplication must
-- recompute, in representative order (oldest first): the new claims (registered table __new),
-- the clustered claims whose text key is one of __keys or a new claim's, and every claim that
-- shares a cluster with any of them. Parameters: the veracity, twice.
-- Two format placeholders stay, filled by warehouse/near_duplicates.py from its own constants
-- so that every statement of the index reads the same claims by the same key: "clustered" (the
-- filter of the claims deduplication reads) and "text_key" (a text's key from its content hash).
WITH new_keys AS (
    SELECT {text_key} AS text_key FROM claims WHERE claim_id IN (SELECT claim_id FROM __new)
), touched AS (
    SELECT claim_id FROM claims
    WHERE {clustered} AND ({text_key} IN (SELECT text_key FROM __keys) OR {text_key} IN (SELECT text_key FROM new_keys))
    UNION SELECT claim_id FROM __new
), clusters AS (
    SELECT DISTINCT cluster_id FROM claim_clusters WHERE claim_id IN (SELECT claim_id FROM touched)
)
SELECT claim_id, normalized_text FROM claims
WHERE {clustered} AND (claim_id IN (SELECT claim_id FROM touched)
    OR claim_id IN (SELECT claim_id FROM claim_clusters WHERE cluster_id IN (SELECT cluster_id FROM clusters)))
ORDER BY published_date NULLS LAST, claim_id;
