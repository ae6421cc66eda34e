-- Claims waiting for a reviewer (the view v_claim_review_queue), oldest first so none waits
-- forever, with the rule output and why the rules could not settle it. Parameters: the source
-- id twice (NULL for every source), then the most rows to return.
SELECT claim_id, source_id, status_reason AS reason, raw_text, cleaned_text, url, published_date
FROM v_claim_review_queue
WHERE (? IS NULL OR source_id = ?)
ORDER BY first_seen, claim_id
LIMIT ?;
