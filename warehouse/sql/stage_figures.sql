-- What every pipeline stage has dropped and failed on so far, as the warehouse records it:
-- one row per (stage, kind, reason) with a running total. The parent flow reads it before and
-- after a stage; the difference is what that stage dropped and failed on.
-- A crawl run's drops are the spider's (http_404, already_known, ...) and the load's
-- (duplicate_url, excluded:<reason>), as the load recorded them on the run.
SELECT 'crawl' AS stage, 'dropped' AS kind, d.key AS reason,
       sum(CAST(d.value AS BIGINT)) AS n
FROM crawl_runs, json_each(crawl_runs.dropped) AS d GROUP BY ALL
UNION ALL
-- a crawl run's errors are its pages that failed to fetch or to parse
SELECT 'crawl', 'error', 'spider errors', coalesce(sum(errors), 0) FROM crawl_runs
UNION ALL
SELECT 'select', 'dropped', 'excluded: ' || reason, count(*) FROM selection_exclusions GROUP BY ALL
UNION ALL
SELECT 'retrieve', 'dropped', 'document: ' || reason, count(*)
FROM document_decisions WHERE decision = 'dropped' GROUP BY ALL
UNION ALL
SELECT 'retrieve', 'dropped', 'article: ' || fetch_status, count(*)
FROM articles WHERE fetch_status IN ('not_arabic', 'empty') GROUP BY ALL
UNION ALL
SELECT 'retrieve', 'error', 'article fetch failed', count(*) FROM articles WHERE fetch_status = 'failed'
UNION ALL
SELECT 'retrieve', 'error', 'claim search failed', count(*) FROM claim_retrieval WHERE status = 'failed'
UNION ALL
SELECT 'dataset', 'dropped', 'claim left out: every document unrelated', count(*) FROM dataset_claim_flags
UNION ALL
SELECT 'dataset', 'dropped', 'claim left out: a near-duplicate in another split', count(*) FROM dataset_split_conflicts
UNION ALL
SELECT 'train', 'error', 'model run failed', count(*) FROM model_runs WHERE status = 'failed'
