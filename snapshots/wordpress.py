"""What a WordPress site serves besides its pages: sitemaps, the RSS feed and the REST API.

Plausible for the WordPress fact-checkers (real-sites.md: "WordPress usually exposes
/wp-json/wp/v2/posts, /wp-sitemap.xml or a sitemap plugin, and /feed/"), so the snapshot
serves them where the site's configuration says to look: Dabegad all three (WordPress 5.5+
core sitemaps), Araanews only the feed, so that its crawl falls back from a missing sitemap
through the feed to the listing pages. The REST API pages its answer
(:mod:`snapshots.wp_rest_emulator`), so the whole collection is written once. Addresses in these documents are the real site's, as
on a saved copy; the spider maps them onto the address it crawls.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime, timezone
from email.utils import format_datetime
from html import escape
from pathlib import Path

from snapshots.fact_check_sites import CANONICAL_BASE, SITE_NAMES, write_page
from snapshots.world.model import FactCheckPost
from snapshots.wp_rest_emulator import COLLECTION_FILE

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
FEED_SIZE = 10
#: Which endpoints each WordPress snapshot serves.
ENDPOINTS = {"dabegad": ("sitemap", "feed", "wp_rest"), "araanews": ("feed",)}


def _url(site: str, path: str) -> str:
    return CANONICAL_BASE[site] + path.lstrip("/")


def _rfc822(day: date | None) -> str:
    moment = datetime(*(day or date(2016, 6, 1)).timetuple()[:3], 9, 0, tzinfo=timezone.utc)
    return format_datetime(moment)


def render_wordpress_endpoints(site: str, posts: Sequence[FactCheckPost], out_dir: Path,
                               extra_paths: Sequence[str] = ()) -> list[str]:
    """Write ``site``'s endpoints (see :data:`ENDPOINTS`) into ``out_dir``; returns their paths.

    ``posts`` are newest first; ``extra_paths`` (removed, failing, disallowed pages) are listed
    in the sitemap as a stale sitemap would list them.
    """
    written = []
    endpoints = ENDPOINTS.get(site, ())
    if "sitemap" in endpoints:
        index = (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">'
                 f'<sitemap><loc>{_url(site, "/wp-sitemap-posts-post-1.xml")}</loc></sitemap></sitemapindex>\n')
        urls = "".join(f"<url><loc>{escape(_url(site, p.path))}</loc>"
                       + (f"<lastmod>{p.published.isoformat()}</lastmod>" if p.published else "") + "</url>"
                       for p in posts)
        urls += "".join(f"<url><loc>{escape(_url(site, path))}</loc></url>" for path in extra_paths)
        urlset = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">{urls}</urlset>\n'
        written += [write_page(out_dir, "/wp-sitemap.xml", index), write_page(out_dir, "/wp-sitemap-posts-post-1.xml", urlset)]
    if "feed" in endpoints:
        items = "".join(
            f"<item><title>{escape(p.title)}</title><link>{escape(_url(site, p.path))}</link>"
            f"<pubDate>{_rfc822(p.published)}</pubDate><guid isPermaLink=\"false\">{escape(p.post_id)}</guid></item>"
            for p in posts[:FEED_SIZE])
        rss = (f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>{escape(SITE_NAMES[site])}</title>'
               f"<link>{CANONICAL_BASE[site]}</link><language>ar</language>{items}</channel></rss>\n")
        written.append(write_page(out_dir, "/feed/", rss))
    if "wp_rest" in endpoints:
        body = [{"id": n, "date": f"{(p.published or date(2016, 6, 1)).isoformat()}T09:00:00", "link": _url(site, p.path),
                 "title": {"rendered": p.title}, "type": "post", "status": "publish"} for n, p in enumerate(posts, 1)]
        written.append(write_page(out_dir, f"/wp-json/wp/v2/posts/{COLLECTION_FILE}", json.dumps(body, ensure_ascii=False)))
    return [str(p) for p in written]
