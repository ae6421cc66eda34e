-- The claim review queue: false claims that the preprocessing rules could not turn into a clean
-- statement (status 'review'), oldest first, with the reason and any override already given.
-- A reviewer's override (claim_overrides) always wins: the loader keeps such claims 'active'
-- with status_reason 'override', so they leave this queue.

CREATE OR REPLACE VIEW v_claim_review_queue AS
SELECT
    c.claim_id,
    c.source_id,
    c.status_reason   AS reason,
    c.raw_text,
    c.cleaned_text,
    c.title,
    c.url,
    c.published_date,
    c.first_seen
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
WHERE c.status = 'review' AND o.claim_id IS NULL;
