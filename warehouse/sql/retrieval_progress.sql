-- Claims per retrieval status. The claims a retrieval would take that no run has searched yet (never
-- tried, deferred by the daily query budget, or left pending by a run that a spent quota or a refused
-- key stopped) have no claim_retrieval row: they count as 'not searched yet', so the claims a stopped
-- run's message calls pending show here.
SELECT status, count(*) AS claims FROM claim_retrieval GROUP BY status
UNION ALL
SELECT 'not searched yet' AS status, count(*) AS claims FROM v_retrieval_claims c
WHERE NOT EXISTS (SELECT 1 FROM claim_retrieval r WHERE r.claim_id = c.claim_id)
HAVING count(*) > 0
ORDER BY status;
