"""Discovery that does not depend on a site's markup: sitemaps, feeds, the WordPress REST API.

Plain functions of a response body, so that they are easy to test; the site spider chains them
in the order the site's configuration gives (``[discovery] order``), with the listing pages as
the fallback. ``sitemap``, ``wp_rest`` and ``listing`` enumerate a whole site, so the first of
them that works ends discovery; a ``feed`` holds only the newest posts, so the next method is
tried after it too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from parsel import Selector
from scrapy.utils.sitemap import Sitemap

from arastance.base.sites import METHODS
#: Methods that list every post of a site: discovery stops after the first that works.
COMPLETE = frozenset({"sitemap", "wp_rest", "listing"})


class DiscoveryError(ValueError):
    """A discovery document that cannot be read (not a sitemap, not a feed, not REST JSON)."""


@dataclass(frozen=True)
class SitemapEntries:
    """A sitemap: more sitemaps to read (an index) or page URLs (a urlset)."""

    sitemaps: list[str]
    pages: list[str]


def parse_sitemap(body: bytes) -> SitemapEntries:
    """A sitemap index or urlset (WordPress ``wp-sitemap.xml`` and plugins' ``sitemap_index.xml`` alike)."""
    try:
        sitemap = Sitemap(body)
    except Exception as exc:  # lxml raises several kinds on non-XML bodies
        raise DiscoveryError(f"not a sitemap: {type(exc).__name__}") from None
    locs = [entry["loc"].strip() for entry in sitemap if entry.get("loc")]
    if sitemap.type == "sitemapindex":
        return SitemapEntries(locs, [])
    if sitemap.type == "urlset":
        return SitemapEntries([], locs)
    raise DiscoveryError(f"not a sitemap: root element {sitemap.type!r}")


def parse_feed(body: bytes) -> list[str]:
    """Post URLs of an RSS 2.0 or Atom feed, in feed order."""
    sel = Selector(text=body.decode("utf-8", errors="replace"), type="xml")
    sel.remove_namespaces()
    if sel.xpath("/rss"):
        return [u.strip() for u in sel.xpath("//item/link/text()").getall() if u.strip()]
    if sel.xpath("/feed"):
        links = sel.xpath("//entry/link[not(@rel) or @rel='alternate']/@href").getall()
        return [u.strip() for u in links if u.strip()]
    raise DiscoveryError("not an RSS or Atom feed")


def parse_wp_rest(body: bytes) -> list[str]:
    """Post URLs (``link``) of one page of ``/wp-json/wp/v2/posts``."""
    try:
        data = json.loads(body)
    except ValueError:
        raise DiscoveryError("WordPress REST answer is not JSON") from None
    if not isinstance(data, list):
        raise DiscoveryError("WordPress REST answer is not a list of posts")
    return [str(post["link"]) for post in data if isinstance(post, dict) and post.get("link")]


def wp_rest_total_pages(total_pages: bytes | None, total_posts: bytes | None, per_page: int) -> int | None:
    """How many REST pages WordPress says there are: ``X-WP-TotalPages``, else ``X-WP-Total`` over
    ``per_page``; None when neither header is a count (missing, or garbled by a proxy or a hostile
    server), and the spider then reads on while pages come back full.

    It was ``int(header)``: a header that was not a number raised in the spider's callback, so the
    crawl lost every page after the first, and a header quoting a full disk's words stopped it as if
    its disk were full.
    """
    for value, divisor in ((total_pages, 1), (total_posts, per_page)):
        text = (value or b"").decode("ascii", "replace").strip()  # a byte past ASCII is no digit then
        if text.isdigit():
            return -(-int(text) // divisor)
    return None


def wp_rest_page_url(url: str, page: int, per_page: int | None = None) -> str:
    """``url`` asking for REST page ``page`` (and ``per_page`` posts a page, when given).

    The parameters are set by name, keeping the others: replacing the text ``page=N`` would also
    rewrite ``per_page=N`` when the two numbers are equal.
    """
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    params.pop("page", None)
    if per_page is not None:
        params.pop("per_page", None)
        params["per_page"] = str(per_page)
    params["page"] = str(page)
    return urlunsplit(parts._replace(query=urlencode(params)))

