-- Returns nothing: records each date check of the registered __date_checks table on its
-- document decision. A document dated outside its window becomes dropped with the reason
-- outside_date_window and loses its rank; the others keep their decision, reason and rank.
UPDATE document_decisions AS d SET
    date_check = c.date_check, published_date = c.published_date, date_source = c.date_source,
    window_start = c.window_start, window_end = c.window_end,
    decision = CASE WHEN c.date_check = 'outside' THEN 'dropped' ELSE d.decision END,
    reason = CASE WHEN c.date_check = 'outside' THEN 'outside_date_window' ELSE d.reason END,
    rank = CASE WHEN c.date_check = 'outside' THEN NULL ELSE d.rank END
FROM __date_checks c
WHERE d.claim_id = c.claim_id AND d.canonical_url = c.canonical_url;
