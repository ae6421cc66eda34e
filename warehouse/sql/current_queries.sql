-- Every claim's current queries, those retrieval searches now: the queries of its current set in
-- query_sets (migration 075: the set recorded last, built_at), or all of its queries for a claim
-- with no set (queries stored before migration 075), as date_window_query_windows reads them for
-- given claims. Queries of earlier sets (a restated or redated claim) stay stored with their hits,
-- but are no longer searched. Read as a common table expression (warehouse.retrieval.with_current_queries).
WITH current_sets AS (SELECT claim_id, arg_max(inputs, built_at) AS inputs FROM query_sets GROUP BY claim_id)
SELECT q.*
FROM queries q
WHERE q.claim_id NOT IN (SELECT claim_id FROM current_sets)
   OR EXISTS (SELECT 1 FROM query_sets s JOIN current_sets c USING (claim_id, inputs)
              WHERE s.claim_id = q.claim_id AND s.query_id = q.query_id)
