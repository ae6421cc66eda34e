-- Passwords of URLs behind basic authentication (a site, archive or mirror configured as
-- https://user:password@host/), stored before the crawlers sent them as basic authentication: the
-- base URL of `sources` (kept as first written) and the address and fetch error of the pages whose
-- every request failed. A base URL is stored without its user and password, as it is now; a failed
-- page keeps its row, the password written as ****, as every log line writes it.
-- backfill, also on a lake:
UPDATE sources SET base_url = regexp_replace(base_url, '^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@', '\1')
WHERE regexp_matches(base_url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@');
UPDATE raw_pages SET
    parse_error = replace(parse_error, regexp_extract(url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)@', 1),
                          regexp_extract(url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:]*):', 1) || ':****'),
    url = regexp_replace(url, '^([A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*):[^/?#]*@', '\1:****@')
WHERE regexp_matches(url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#:]*:[^/?#]*@');
