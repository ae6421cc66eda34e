-- The distinct texts of the new claims (registered table __new) that the index does not hold
-- yet, with their keys, in key order: only these need prefixes added. Parameters: the
-- veracity, twice. The index is probed with the new keys only (a semi-join on a scan), not
-- anti-joined whole: at 1M claims it holds ~10M prefix rows. The "clustered" and "text_key"
-- format placeholders are filled as in near_duplicates_affected_claims.sql.
WITH new AS (
    SELECT DISTINCT normalized_text, {text_key} AS text_key FROM claims
    WHERE {clustered} AND claim_id IN (SELECT claim_id FROM __new)
), indexed AS (
    SELECT DISTINCT text_key FROM near_duplicate_prefixes
    WHERE veracity = ? AND text_key IN (SELECT text_key FROM new)
)
SELECT normalized_text, text_key FROM new
WHERE text_key NOT IN (SELECT text_key FROM indexed)
ORDER BY text_key;
