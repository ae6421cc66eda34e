"""Where a site is crawled from versus the address its pages are known by.

The same spider crawls the real site or its offline snapshot (served under another host and a
path prefix). Claims must be keyed by the real site's canonical URL either way, or the same post
fetched from two places would become two claims and incremental re-crawls would never match.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin

from arastance.base.captures import to_site_url
from arastance.base.urls import canonicalize_url


@dataclass(frozen=True)
class SiteUrls:
    """Maps fetched URLs under ``base_url`` onto ``canonical_base`` (identical for the real site)."""

    base_url: str
    canonical_base: str

    def __post_init__(self) -> None:
        for name in ("base_url", "canonical_base"):
            if not getattr(self, name).endswith("/"):
                raise ValueError(f"{name} must end with '/', got {getattr(self, name)!r}")

    def absolute(self, href: str, page_url: str | None = None) -> str:
        """An absolute URL for a link found on ``page_url`` (or a path relative to the base)."""
        return urljoin(page_url or self.base_url, href)

    def on_site(self, url: str) -> bool:
        """Whether ``url`` is under the crawled base (links elsewhere are never followed)."""
        return url.startswith(self.base_url)

    def fetchable(self, url: str) -> str:
        """Where to fetch a page a sitemap or feed names by its canonical address (the crawled base)."""
        if url.startswith(self.canonical_base) and self.canonical_base != self.base_url:
            return self.base_url + url[len(self.canonical_base):]
        return url

    def canonical(self, url: str) -> str:
        """The canonical URL of a page fetched at (or linked as) ``url``.

        The real site's host in any scheme or ``www.`` spelling is put on ``canonical_base``'s: an
        old capture's own ``<link rel=canonical>`` names ``http://www.`` and the live page ``https://``,
        and one post must keep one key. Other hosts are left as they are.
        """
        if self.on_site(url):
            url = self.canonical_base + url[len(self.base_url):]
        try:
            return canonicalize_url(to_site_url(url, self.canonical_base))
        except ValueError:  # UrlError, or a host urlsplit cannot read ("http://[::1/")
            return url
