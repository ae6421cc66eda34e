"""Where a site is crawled from versus the address its pages are known by.

The same spider crawls the real site or its offline snapshot (served under another host and a
path prefix). Claims must be keyed by the real site's canonical URL either way, or the same post
fetched from two places would become two claims and incremental re-crawls would never match.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from arastance.base.captures import to_site_url
from arastance.base.urls import canonicalize_url


def _bare_host(host: str | None) -> str:
    host = (host or "").lower()
    return host[4:] if host.startswith("www.") else host


def _path_under(url: str, base: str) -> str | None:
    """The path (and query) of ``url`` after ``base``'s path when ``url`` is on ``base``'s host and
    port in either scheme, with or without ``www.`` (the rule :func:`to_site_url` keys pages by);
    else None."""
    try:
        parts, root = urlsplit(url), urlsplit(base)
        same_server = parts.port == root.port
    except ValueError:  # an unreadable port or host ("http://[::1/", "http://x:port/")
        return None
    path = parts.path or "/"
    if (parts.scheme not in ("http", "https") or not same_server or not parts.hostname
            or _bare_host(parts.hostname) != _bare_host(root.hostname) or not path.startswith(root.path)):
        return None
    return path[len(root.path):] + (f"?{parts.query}" if parts.query else "")


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
        """Whether ``url`` is under the crawled base in any scheme or ``www.`` spelling (links
        elsewhere are never followed): a site links to itself as ``http://`` or ``www.`` as often
        as not, and a redirect to ``https://www.`` must not leave its links off-site."""
        return _path_under(url, self.base_url) is not None

    def fetchable(self, url: str) -> str:
        """Where to fetch a page named by any spelling of the crawled base or of its canonical
        address (a sitemap or feed names the latter): on the crawled base, spelled as it is, so
        that one page is one request whichever spelling a link used."""
        for base in (self.base_url, self.canonical_base):
            rest = _path_under(url, base)
            if rest is not None:
                return self.base_url + rest
        return url

    def canonical(self, url: str) -> str:
        """The canonical URL of a page fetched at (or linked as) ``url``.

        The real site's host in any scheme or ``www.`` spelling is put on ``canonical_base``'s: an
        old capture's own ``<link rel=canonical>`` names ``http://www.`` and the live page ``https://``,
        and one post must keep one key. Other hosts are left as they are.
        """
        rest = _path_under(url, self.base_url)
        if rest is not None:
            url = self.canonical_base + rest
        try:
            return canonicalize_url(to_site_url(url, self.canonical_base))
        except ValueError:  # UrlError, or a host urlsplit cannot read ("http://[::1/")
            return url
