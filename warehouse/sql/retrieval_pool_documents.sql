-- A claim's ranked pool in fetch order (the search-time ranking: similarity, then best rank):
-- the documents of the given claims (claim_ids) whose decision reason is one of reasons, with
-- what each fetch gave (status, HTTP status, title, text; NULL when not fetched yet), the
-- claim's date (the period a dead link's archive copy is sought in), and the dates its date
-- window is checked on: the article's extracted one (article_date) and the earliest a search
-- engine showed for the URL among the hits of the claim's current queries (engine_date), as
-- date_window_kept_with_dates (current queries: those of the claim's latest set in query_sets, or
-- all of them for a claim with no set, see date_window_query_windows).
-- The articles' columns (fetch_status, http_status, title, text, article_date) are not read here:
-- joining articles makes DuckDB scan every stored article's text, so the pool reader fetches only
-- the batch's articles afterwards, by canonical URL (warehouse.retrieval.pool_documents).
WITH current_sets AS (
    SELECT claim_id, arg_max(inputs, built_at) AS inputs FROM query_sets
    WHERE claim_id IN (SELECT unnest($claim_ids::VARCHAR[])) GROUP BY claim_id
)
SELECT d.claim_id, d.canonical_url, d.url, d.domain, d.best_rank, d.query_kinds, c.published_date AS claim_date,
       (SELECT min(h.published_date) FROM search_hits h JOIN queries q USING (query_id)
        WHERE q.claim_id = d.claim_id AND h.url = d.url
          AND (q.claim_id NOT IN (SELECT claim_id FROM current_sets)
               OR q.query_id IN (SELECT s.query_id FROM query_sets s JOIN current_sets c USING (claim_id, inputs)
                                 WHERE s.claim_id = q.claim_id))) AS engine_date
FROM document_decisions d
LEFT JOIN claims c ON c.claim_id = d.claim_id
WHERE d.reason IN (SELECT unnest($reasons::VARCHAR[])) AND d.claim_id IN (SELECT unnest($claim_ids::VARCHAR[]))
ORDER BY d.claim_id, d.similarity DESC NULLS LAST, d.best_rank, d.canonical_url;
