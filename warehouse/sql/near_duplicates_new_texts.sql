-- The distinct texts of the new claims (registered table __new) that the index does not hold
-- yet, with their keys, in key order: only these need prefixes added. Parameters: the
-- veracity, twice. The "clustered" and "text_key" format placeholders are filled as in
-- near_duplicates_affected_claims.sql.
SELECT DISTINCT normalized_text, {text_key} AS text_key FROM claims
WHERE {clustered} AND claim_id IN (SELECT claim_id FROM __new)
  AND {text_key} NOT IN (SELECT text_key FROM near_duplicate_prefixes WHERE veracity = ?)
ORDER BY text_key;
