-- Every stored query of one claim (claim_id) in the method's order of query kinds (claim,
-- claim_date, entities_date, vp_date, vp_entities_date, then others), undated before dated,
-- then oldest first: the order in which retrieval sends them.
SELECT query_id, claim_id, kind, text, window_start, window_end, analyzer, also_kinds, created_at
FROM queries
WHERE claim_id = $claim_id
ORDER BY CASE kind WHEN 'claim' THEN 1 WHEN 'claim_date' THEN 2 WHEN 'entities_date' THEN 3
                   WHEN 'vp_date' THEN 4 WHEN 'vp_entities_date' THEN 5 ELSE 6 END,
         window_start NULLS FIRST, created_at, query_id;
