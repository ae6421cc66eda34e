-- Passwords of URLs behind basic authentication (a site, archive or article mirror configured as
-- https://user:password@host/) that migration 082 left in the warehouse: it hid them in the address
-- and error of the failed pages whose own address held them, but the article fetcher's failures
-- keep no page, only their error in `articles.fetch_error`
-- ("fetch_error: ValueError: invalid hostname: user:password@127.0.0.1", the mirror's or the
-- archive's, after "; archive copy: "). Every password is written as ****, as every log line writes
-- it, in a URL (scheme://user:****@) and after Scrapy's "invalid hostname: " (user:****@host), the
-- one place a bare user:password@host was written; elsewhere "word:x@" is other text ("mailto:
-- abuse@example.org", "12:30@proxy") and stays as it is.
-- Columns checked (the schema at 082), and why each is or is not rewritten here:
--   rewritten, error texts: articles.fetch_error, raw_pages.parse_error (its password may be
--     another URL's than the page's: an archive's, a redirect's), claim_retrieval.error (a search
--     backend's error names its URL: a SearXNG instance behind basic authentication);
--   rewritten, addresses a configured URL can begin: articles.capture_url (the archive's capture),
--     raw_pages.original_url;
--   done by 082: raw_pages.url (a configured URL only ever begins it), sources.base_url;
--   never a configured URL: the addresses of claims and articles (claims.url, canonical_url,
--     articles.url, canonical_url, claim_former_urls, document_decisions.url, canonical_url,
--     search_hits.url: the sites' canonical addresses and the search engines' hits, their own
--     text as published; several are keys), crawl_runs.staging_path (a path);
--   texts, not messages: queries.text, search_cache.query_text, search_hits.snippet, title, the
--     claims' and articles' text, reasons and notes (fixed words, or a reviewer's);
--   JSON: crawl_runs.stats and dropped (counts by name), search_cache.results (the hits),
--     model_runs.config, experiment_runs.config, selection_runs.params, excluded, claims.claim_review,
--     field_layers, annotation_rounds.annotators: no URL of this pipeline's configuration;
--   the rest: ids, keys, labels, statuses, names, hashes, versions and local file names.
-- Run again, it changes nothing: a hidden password reads as ****, which it writes as ****.
-- backfill, also on a lake:
CREATE OR REPLACE TEMP MACRO url_passwords_hidden(text) AS regexp_replace(
    regexp_replace(text, '([A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:''"]*):[^/?#\s''"]*@', '\1:****@', 'g'),
    '(hostname: )([^/?#@\s:''"]+):[^/?#\s''"]*@', '\1\2:****@', 'g');
UPDATE articles SET fetch_error = url_passwords_hidden(fetch_error), capture_url = url_passwords_hidden(capture_url)
WHERE fetch_error <> url_passwords_hidden(fetch_error) OR capture_url <> url_passwords_hidden(capture_url);
UPDATE raw_pages SET parse_error = url_passwords_hidden(parse_error), original_url = url_passwords_hidden(original_url)
WHERE parse_error <> url_passwords_hidden(parse_error) OR original_url <> url_passwords_hidden(original_url);
UPDATE claim_retrieval SET error = url_passwords_hidden(error) WHERE error <> url_passwords_hidden(error);
DROP MACRO temp.url_passwords_hidden;
