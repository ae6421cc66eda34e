-- The claims of v_retrieval_claims whose retrieval is still to do (or all of them with
-- include_done), among claim_ids unless all_claims is set, dated within the period (open bounds
-- are NULL; an undated claim is outside a set bound), oldest first: the retrieval run's work list.
-- With done_built, the done claims whose queries query_sets records come too, with built_from: the
-- inputs of the claim's latest set as of its retrieval's last update, those its documents were
-- searched with (a set recorded later, by a run that deferred the claim, was not searched). The
-- planner keeps those whose current inputs differ (tasks.queries.query_inputs, a hash SQL does not
-- compute): a reviewer's text, a corrected date, another window. A done claim with no set (queries
-- stored before migration 075, documents from a dataset) has nothing to compare and stays done.
WITH built AS (
    SELECT s.claim_id, arg_max(s.inputs, s.built_at) AS built_from
    FROM query_sets s JOIN claim_retrieval r ON r.claim_id = s.claim_id AND s.built_at <= r.updated_at
    WHERE $done_built AND r.status = 'done'
    GROUP BY s.claim_id
)
SELECT c.claim_id, c.veracity, c.claim_text AS text, c.published_date, c.source_id, r.status AS retrieval_status,
       b.built_from
FROM v_retrieval_claims c
LEFT JOIN claim_retrieval r USING (claim_id)
LEFT JOIN built b USING (claim_id)
WHERE ($include_done OR r.status IS NULL OR r.status <> 'done' OR b.built_from IS NOT NULL)
  AND ($all_claims OR c.claim_id IN (SELECT unnest($claim_ids::VARCHAR[])))
  AND ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
ORDER BY c.published_date NULLS LAST, c.claim_id;
