-- Pages read from a web-archive capture, for the local search index: those the crawl's archive
-- mode fetched and the articles whose dead live page was read from an archive copy (both keep
-- the capture's address in url and the page's own address in original_url). Live pages
-- (original_url NULL) and rows without a stored body are left out. Earliest capture first, so
-- that deduplication keeps the copy closest to publication. No closing semicolon: the rows are
-- also counted by wrapping this statement in a subquery.
SELECT url AS capture_url, original_url, captured_at, http_status, html_zlib
FROM raw_pages
WHERE original_url IS NOT NULL AND html_zlib IS NOT NULL
ORDER BY captured_at NULLS LAST, page_id
