-- Every stored search hit with its backend, claim and the query kinds its query stands for (a
-- query shared by several kinds is stored once), so that backends can be compared per kind.
SELECT h.backend, q.claim_id, list_prepend(q.kind, coalesce(q.also_kinds, [])) AS kinds,
       h.url, h.title, h.snippet, h.published_date, h.rank
FROM search_hits h JOIN queries q USING (query_id)
ORDER BY h.backend, q.claim_id, h.rank;
