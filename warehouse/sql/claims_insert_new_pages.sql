-- Store the fetched pages of the registered batch __pages that raw_pages does not hold yet.
-- A page with the same URL and content has the same page_id, so a page fetched again unchanged adds
-- nothing and a re-run of a crawl load writes no duplicates; DISTINCT ON absorbs a page id repeated
-- inside one batch (no conflict clause: a DuckLake warehouse has no keys to conflict on).
INSERT INTO raw_pages (page_id, url, source_id, run_id, fetched_at, http_status, content_hash, html_zlib,
                       parse_status, parse_error, original_url, captured_at)
SELECT DISTINCT ON (page_id) page_id, url, source_id, run_id, fetched_at, http_status, content_hash, html_zlib,
       parse_status, parse_error, original_url, captured_at
FROM __pages WHERE page_id NOT IN (SELECT page_id FROM raw_pages);
