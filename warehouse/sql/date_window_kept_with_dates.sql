-- Each kept document of the given claims (claim_ids, a VARCHAR list) with its query kinds and
-- the date to check against the claim's window: the fetched article's extracted date
-- (article_date), and the earliest date a search engine showed for that URL among the claim's
-- hits (engine_date), used when the article gave none.
SELECT d.claim_id, d.canonical_url, d.query_kinds, a.published_date AS article_date,
       (SELECT min(h.published_date) FROM search_hits h JOIN queries q USING (query_id)
        WHERE q.claim_id = d.claim_id AND h.url = d.url) AS engine_date
FROM document_decisions d
LEFT JOIN articles a USING (canonical_url)
WHERE d.decision = 'kept' AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
ORDER BY d.claim_id, d.rank;
