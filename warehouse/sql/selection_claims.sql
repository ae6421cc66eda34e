-- The active claims of one veracity that true-claim selection reads, dated within the period
-- (period_start, period_end: open bounds are NULL; an undated claim is outside a set bound),
-- by claim id: the seeds (veracity false, sources NULL: every source) and the candidate
-- headlines (veracity true, sources: the configured sources, e.g. Reuters). The text is the
-- reviewer's override when present, the same text v_retrieval_claims hands to retrieval.
SELECT
    c.claim_id,
    coalesce(o.cleaned_text, c.cleaned_text) AS text,
    c.published_date,
    coalesce(c.is_multimedia, FALSE) AS is_multimedia
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
WHERE c.veracity = $veracity AND c.status = 'active'
  AND ($sources::VARCHAR[] IS NULL OR list_contains($sources::VARCHAR[], c.source_id))
  AND ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
ORDER BY c.claim_id;
