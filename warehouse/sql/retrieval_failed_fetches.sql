-- Ids of the given claims (claim_ids) still short of limit usable (kept, fetched) documents that
-- have a candidate whose fetch failed for a passing reason (5xx, timeout, no answer): they are
-- not done, so a re-run fetches them again. A 4xx answer is final and does not count, nor does a
-- page too large to keep or one that robots.txt forbids (both without an HTTP status).
SELECT DISTINCT d.claim_id
FROM document_decisions d JOIN articles a ON a.canonical_url = d.canonical_url
WHERE (d.decision = 'kept' OR d.reason = 'fetch_failed')
  AND a.fetch_status = 'failed' AND (a.http_status IS NULL OR a.http_status >= 500)
  AND NOT starts_with(coalesce(a.fetch_error, ''), 'too_large') AND NOT starts_with(coalesce(a.fetch_error, ''), 'robots_disallowed')
  AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
  AND (SELECT count(*) FROM document_decisions k JOIN articles ka ON ka.canonical_url = k.canonical_url
       WHERE k.claim_id = d.claim_id AND k.decision = 'kept' AND ka.fetch_status = 'ok') < $limit;
