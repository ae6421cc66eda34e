-- The newest stored copy of every detail page of a source (parameter: the source id), oldest
-- first, for re-parsing without re-crawling. Listing pages keep no HTML and error pages are not
-- worth re-parsing, so both are left out. No closing semicolon: crawl_inputs also counts the
-- rows by wrapping this statement in a subquery. An archived page also gives its original URL and
-- capture time: re-parsed, it is keyed and dated by them, as the archive crawl did.
SELECT page_id, url, source_id, fetched_at, http_status, content_hash, html_zlib, original_url, captured_at
FROM raw_pages
WHERE source_id = ? AND html_zlib IS NOT NULL AND parse_status <> 'skipped'
  AND (http_status IS NULL OR http_status < 400)
QUALIFY row_number() OVER (PARTITION BY url ORDER BY fetched_at DESC, page_id) = 1
ORDER BY fetched_at, page_id
