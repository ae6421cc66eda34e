-- Claims per retrieval status. The claims a retrieval would take that no run has searched yet (never
-- tried, deferred by the daily query budget, or left pending by a run that a spent quota or a refused
-- key stopped) have no claim_retrieval row: they count as 'not searched yet', so the claims a stopped
-- run's message calls pending show here. Only those dated within the period count (open bounds are
-- NULL; an undated claim is outside a set bound), as retrieval_pending_claims.sql takes them.
SELECT status, count(*) AS claims FROM claim_retrieval GROUP BY status
UNION ALL
SELECT 'not searched yet' AS status, count(*) AS claims FROM v_retrieval_claims c
WHERE NOT EXISTS (SELECT 1 FROM claim_retrieval r WHERE r.claim_id = c.claim_id)
  AND ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
HAVING count(*) > 0
ORDER BY status;
