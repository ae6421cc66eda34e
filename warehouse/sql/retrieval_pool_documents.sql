-- A claim's ranked pool in fetch order (the search-time ranking: similarity, then best rank):
-- the documents of the given claims (claim_ids) whose decision reason is one of reasons, with
-- what each fetch gave (status, HTTP status, title, text; NULL when not fetched yet), and the
-- claim's date (the period a dead link's archive copy is sought in).
SELECT d.claim_id, d.canonical_url, d.url, d.domain, d.best_rank, d.query_kinds,
       a.fetch_status, a.http_status, a.title, a.text, c.published_date AS claim_date
FROM document_decisions d
LEFT JOIN articles a ON a.canonical_url = d.canonical_url
LEFT JOIN claims c ON c.claim_id = d.claim_id
WHERE d.reason IN (SELECT unnest($reasons::VARCHAR[])) AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
ORDER BY d.claim_id, d.similarity DESC NULLS LAST, d.best_rank, d.canonical_url;
