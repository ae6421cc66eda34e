-- Store the fetched pages of the registered batch __pages that raw_pages does not hold yet.
-- A page with the same URL and content has the same page_id, so a page fetched again unchanged adds
-- nothing and a re-run of a crawl load writes no duplicates; a page repeated inside one batch is
-- stored once (its earliest fetch). A plain INSERT behind anti-joins on both keys (page_id, and
-- url + content_hash), not INSERT OR IGNORE: DuckDB's conflict handling took 1.2-1.4 s per 1,000
-- pages once raw_pages held 100k, a plain insert 0.06 s; and a DuckLake warehouse has no keys to
-- conflict on.
INSERT INTO raw_pages (page_id, url, source_id, run_id, fetched_at, http_status, content_hash, html_zlib,
                       parse_status, parse_error, original_url, captured_at)
SELECT page_id, url, source_id, run_id, fetched_at, http_status, content_hash, html_zlib, parse_status, parse_error,
       original_url, captured_at
FROM (
    SELECT * FROM __pages p
    WHERE page_id NOT IN (SELECT page_id FROM raw_pages)
      AND NOT EXISTS (SELECT 1 FROM raw_pages r WHERE r.url = p.url AND r.content_hash = p.content_hash)
    QUALIFY row_number() OVER (PARTITION BY page_id ORDER BY fetched_at, run_id) = 1
)
QUALIFY row_number() OVER (PARTITION BY url, content_hash ORDER BY fetched_at, run_id, page_id) = 1;
