-- Passwords of URLs behind basic authentication (a site, archive or mirror configured as
-- https://user:password@host/), stored before the crawlers sent them as basic authentication: the
-- base URL of `sources` (kept as first written) and the address and fetch error of the pages whose
-- every request failed (Scrapy took user:password@host for the host). A base URL is stored without
-- its user and password, as it is now; a failed page keeps its row, the password written as ****,
-- as every log line writes it. The same page failed under two passwords is one address once they
-- are hidden: its first failure is kept, the later ones (no body, no claim) are dropped.
-- backfill, also on a lake:
UPDATE sources SET base_url = regexp_replace(base_url, '^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@', '\1')
WHERE regexp_matches(base_url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@');
DELETE FROM raw_pages WHERE page_id IN (
    SELECT page_id FROM (
        SELECT page_id, row_number() OVER (
            PARTITION BY regexp_replace(url, '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*):[^/?#]*@', '\1:****@'), content_hash
            ORDER BY fetched_at, page_id) AS nth
        FROM raw_pages
        WHERE regexp_matches(url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*:[^/?#]*@')
    ) WHERE nth > 1)
  AND parse_status = 'failed'
  AND page_id NOT IN (SELECT page_id FROM claims WHERE page_id IS NOT NULL);
UPDATE raw_pages SET
    parse_error = replace(parse_error, regexp_extract(url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)@', 1),
                          regexp_extract(url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:]*):', 1) || ':****'),
    url = regexp_replace(url, '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*):[^/?#]*@', '\1:****@')
WHERE regexp_matches(url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*:[^/?#]*@');
