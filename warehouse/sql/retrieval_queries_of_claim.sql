-- The current queries of one claim (claim_id): those of the set built from its current inputs
-- (inputs, see query_sets), in the method's order of query kinds (claim, claim_date,
-- entities_date, vp_date, vp_entities_date, then others), undated before dated, then oldest
-- first: the order in which retrieval sends them.
SELECT q.query_id, q.claim_id, q.kind, q.text, q.window_start, q.window_end, q.analyzer, q.also_kinds, q.created_at
FROM queries q JOIN query_sets s ON s.query_id = q.query_id AND s.claim_id = q.claim_id
WHERE q.claim_id = $claim_id AND s.inputs = $inputs
ORDER BY CASE q.kind WHEN 'claim' THEN 1 WHEN 'claim_date' THEN 2 WHEN 'entities_date' THEN 3
                     WHEN 'vp_date' THEN 4 WHEN 'vp_entities_date' THEN 5 ELSE 6 END,
         q.window_start NULLS FIRST, q.created_at, q.query_id;
