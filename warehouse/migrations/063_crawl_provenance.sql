-- Pages fetched from a web archive: raw_pages.url is the capture's address
-- (https://web.archive.org/web/<timestamp>id_/<original>); the original URL and the capture
-- time are kept beside it. Both are NULL for pages fetched from the live site.
ALTER TABLE raw_pages ADD COLUMN original_url VARCHAR;
ALTER TABLE raw_pages ADD COLUMN captured_at TIMESTAMP;
-- Which extraction layer gave each of a claim's fields ({"title": "css", "published":
-- "article_json_ld", ...}; see spiders/layers.py), from the latest fetch.
ALTER TABLE claims ADD COLUMN field_layers JSON;
-- An article whose live page was dead and was read from its closest web-archive capture:
-- fetched_copy = 'archive' and the capture's address; 'live' otherwise. Pairs reach it by article_id.
ALTER TABLE articles ADD COLUMN fetched_copy VARCHAR DEFAULT 'live';
ALTER TABLE articles ADD COLUMN capture_url VARCHAR;
