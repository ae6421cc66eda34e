-- The current queries of the given claims (claim_ids, a VARCHAR list): the kinds each stands for
-- and its window (NULL when undated). A claim's current queries are those of its current set in
-- query_sets (migration 075): the set recorded last (built_at; retrieval records, or marks again,
-- the set of the claim's current inputs before searching, warehouse.retrieval_queries). Queries of
-- earlier sets (a redated or restated claim) are left out. A claim with no set at all (queries
-- stored before migration 075) keeps all of its queries.
WITH current_sets AS (
    SELECT claim_id, arg_max(inputs, built_at) AS inputs FROM query_sets
    WHERE claim_id IN (SELECT unnest($claim_ids::VARCHAR[])) GROUP BY claim_id
)
SELECT q.claim_id, list_prepend(q.kind, coalesce(q.also_kinds, [])) AS kinds, q.window_start, q.window_end
FROM queries q
WHERE q.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
  AND (q.claim_id NOT IN (SELECT claim_id FROM current_sets)
       OR q.query_id IN (SELECT s.query_id FROM query_sets s JOIN current_sets c USING (claim_id, inputs)
                         WHERE s.claim_id = q.claim_id))
ORDER BY q.claim_id, q.kind, q.window_start NULLS FIRST, q.query_id;
