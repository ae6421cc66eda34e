-- The stored articles of a batch of the ranked pool's documents, by canonical URL: the columns the pool
-- query leaves out (retrieval_pool_documents). The URLs come as one parameter each ({keys} is that many ?,
-- warehouse.keyed_reads), so the filter reaches the articles scan and only their texts are read.
SELECT canonical_url, fetch_status, http_status, title, text, published_date AS article_date
FROM articles
WHERE canonical_url IN ({keys});
