-- Every stored search hit of a claim's current query (current_queries, see current_queries.sql) with
-- its backend, claim and the query kinds its query stands for (a query shared by several kinds is
-- stored once), so that backends can be compared per kind. Hits of superseded queries stay stored
-- but are no longer the claim's.
SELECT h.backend, q.claim_id, list_prepend(q.kind, coalesce(q.also_kinds, [])) AS kinds,
       h.url, h.title, h.snippet, h.published_date, h.rank
FROM search_hits h JOIN current_queries q USING (query_id)
ORDER BY h.backend, q.claim_id, h.rank;
