-- Claims per retrieval status, counted as a retrieval run takes them: the claims of
-- v_retrieval_claims dated within the period (open bounds are NULL; an undated claim is outside a
-- set bound), as retrieval_pending_claims.sql takes them, so a row never counts a claim no run with
-- this period would take (a claim failed outside it is not retried). Those no run has searched yet
-- (never tried, deferred by the daily query budget, or left pending by a run that a spent quota or a
-- refused key stopped) have no claim_retrieval row: they count as 'not searched yet', so the claims
-- a stopped run's message calls not searched show here.
SELECT coalesce(r.status, 'not searched yet') AS status, count(*) AS claims
FROM v_retrieval_claims c
LEFT JOIN claim_retrieval r USING (claim_id)
WHERE ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
GROUP BY ALL
ORDER BY status;
