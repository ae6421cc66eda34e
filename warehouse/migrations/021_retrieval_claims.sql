-- The claims that document retrieval works on: every active false claim, and every true claim
-- (Reuters headline) that some selection run chose. Selections accumulate: a headline chosen
-- once stays a true claim, so documents already retrieved or annotated for it are never
-- orphaned. The text is the reviewer's override when there is one. Excluded claims never appear.

CREATE OR REPLACE VIEW v_selected_true_claims AS
SELECT
    m.headline_claim_id                AS claim_id,
    count(DISTINCT m.seed_claim_id)    AS seeds,
    max(m.score)                       AS best_score,
    min(m.rank)                        AS best_rank,
    min(r.started_at)                  AS first_selected_at
FROM selection_matches m
JOIN selection_runs r USING (run_id)
GROUP BY m.headline_claim_id;

CREATE OR REPLACE VIEW v_retrieval_claims AS
SELECT
    c.claim_id,
    c.veracity,
    coalesce(o.cleaned_text, c.cleaned_text) AS text,
    c.published_date,
    c.source_id
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
WHERE c.status = 'active'
  AND (c.veracity = 'false'
       OR (c.veracity = 'true' AND c.claim_id IN (SELECT claim_id FROM v_selected_true_claims)));
