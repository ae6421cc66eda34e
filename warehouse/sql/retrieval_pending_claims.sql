-- The claims of v_retrieval_claims whose retrieval is still to do (or all of them with
-- include_done), among claim_ids unless all_claims is set, dated within the period (open bounds
-- are NULL; an undated claim is outside a set bound), oldest first: the retrieval run's work list.
SELECT c.claim_id, c.veracity, c.claim_text AS text, c.published_date, c.source_id, r.status AS retrieval_status
FROM v_retrieval_claims c
LEFT JOIN claim_retrieval r USING (claim_id)
WHERE ($include_done OR r.status IS NULL OR r.status <> 'done')
  AND ($all_claims OR c.claim_id IN (SELECT unnest($claim_ids::VARCHAR[])))
  AND ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
ORDER BY c.published_date NULLS LAST, c.claim_id;
