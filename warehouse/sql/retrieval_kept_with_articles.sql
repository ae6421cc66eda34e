-- The kept documents of the given claims (claim_ids) that have an article row, with its id and
-- fetch status, best rank first: what becomes claim-article pairs once fetched.
SELECT d.claim_id, d.canonical_url, d.rank, d.similarity, d.reason, a.article_id, a.fetch_status
FROM document_decisions d
JOIN articles a USING (canonical_url)
WHERE d.decision = 'kept' AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
ORDER BY d.claim_id, d.rank;
