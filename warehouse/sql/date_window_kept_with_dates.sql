-- Each kept document of the given claims (claim_ids, a VARCHAR list) with its query kinds and
-- the date to check against the claim's window: the fetched article's extracted date
-- (article_date), and the earliest date a search engine showed for that URL among the hits of
-- the claim's current queries (engine_date), used when the article gave none. Current queries:
-- those of the claim's latest set in query_sets, or all of them for a claim with no set (see
-- date_window_query_windows).
WITH current_sets AS (
    SELECT claim_id, arg_max(inputs, built_at) AS inputs FROM query_sets
    WHERE claim_id IN (SELECT unnest($claim_ids::VARCHAR[])) GROUP BY claim_id
)
SELECT d.claim_id, d.canonical_url, d.query_kinds, a.published_date AS article_date,
       (SELECT min(h.published_date) FROM search_hits h JOIN queries q USING (query_id)
        WHERE q.claim_id = d.claim_id AND h.url = d.url
          AND (q.claim_id NOT IN (SELECT claim_id FROM current_sets)
               OR q.query_id IN (SELECT s.query_id FROM query_sets s JOIN current_sets c USING (claim_id, inputs)
                                 WHERE s.claim_id = q.claim_id))) AS engine_date
FROM document_decisions d
LEFT JOIN articles a USING (canonical_url)
WHERE d.decision = 'kept' AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
ORDER BY d.claim_id, d.rank;
