"""The generic site spider: listing pages (with pagination) -> detail pages -> items.

Everything site-specific (start paths, discovery order, selectors) is in
``arastance/base/site_configs/<name>.toml``; each site's spider class is derived from that file
(:mod:`spiders.crawlers.sites`). Discovery follows the site's ``[discovery] order`` (sitemaps,
feeds, WordPress REST, listing pages; :mod:`spiders.discovery`). The spider only parses. It
yields a :class:`ClaimItem` for every detail page parsed (the item feed: ``scrapy crawl <site>
-O claims.jsonl``) and sends a :class:`PageItem` for every page fetched or failed with the
:data:`page_fetched` signal; the staging pipeline persists both.

``scrapy check`` runs each site's callbacks on the pages its configuration names (its first
start path, its ``[contracts] detail``): the ``@site_page`` contract resolves them against the
site's base URL.

Incremental crawls: given the canonical URLs already in the warehouse (``-a known_urls=FILE``),
the spider requests only detail pages it does not know and stops paginating at the first
listing page whose detail links are all known (listings are newest first).

Archive mode (``-a mode=archive -a captures=FILE -a archive_url=URL``): the pages come from a
web archive instead of the site. ``FILE`` holds the captures discovered through the CDX API
(:mod:`tasks.web_archive`), one JSON object a line; each is fetched as its original bytes
(``id_``), following the archive's redirects to the capture it actually holds, and parsed like a
live page. The claim keeps the site's canonical URL; the page keeps the capture's address, the
original URL and the capture time. A capture the archive replays as another page's, or as one
taken outside the crawl's days (``crawl.archive_from``..``archive_to``), is not read: the page's
other captures within the days are asked for in turn (:mod:`spiders.archive_captures`), and it is a
failed page only when none replays as itself.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from arastance.base.captures import capture_time, capture_url, parse_capture_url, to_site_url
from arastance.base.cdx import CdxAnswerError
from arastance.base.input_paths import input_file_error
from arastance.base.page_text import page_text
from arastance.base.secrets import url_argument
from arastance.base.sites import SiteConfig, load_site_config, parse_wp_rest_per_page
from arastance.base.staging import PageItem, new_run_id
from arastance.base.urls import UrlError, canonicalize_url
from arastance.config import load_settings
from arastance.logging import get_logger
from spiders.archive_captures import (MAX_LOOKUP_PAGES, lookup_settled, nearest_others, other_captures_query,
                                      read_lookup_page)
from spiders.discovery import (METHODS, DiscoveryError, parse_feed, parse_sitemap, parse_wp_rest, wp_rest_page_url,
                               wp_rest_total_pages)
from spiders.extraction import extract_detail, extract_listing, parse_failure
from spiders.items import claim_item, page_fetched, page_item
from spiders.middlewares import credentials_kept
from spiders.site_urls import SiteUrls

log = get_logger(__name__)

LISTING_PRIORITY = 10
#: How far from the listed capture one that the archive replays in its place may be, outside the crawl's
#: days: the edgi wayback client's default ``target_window``.
REPLAY_TOLERANCE = timedelta(days=1)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_flag(value: str | bool, name: str) -> bool:
    """A spider argument given as text on the command line (``-a incremental=false``)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ValueError(f"spider argument {name} must be true or false, got {value!r}")


#: The request meta keys this spider sets; Scrapy's own (redirect chains, retry counts, download
#: slots) belong to the request that got them, not to the requests made from its response.
OWN_META = ("discovery", "candidate", "sitemap_index", "rest_page", "rest_counted")


def own_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``meta`` a follow-up request carries on."""
    return {k: meta[k] for k in OWN_META if k in meta}


def read_known_urls(path: str | Path) -> set[str]:
    """Canonical URLs, one a line (blank lines and ``#`` comments ignored)."""
    file = Path(path)
    if not file.is_file():
        raise input_file_error(file, "known_urls file")
    known: set[str] = set()
    for lineno, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        url = line.strip()
        if not url or url.startswith("#"):
            continue
        try:
            known.add(canonicalize_url(url))
        except UrlError as exc:
            raise ValueError(f"{file}:{lineno}: {exc}") from None
    return known


def read_captures(path: str | Path) -> list[dict[str, str]]:
    """The captures an archive crawl fetches: JSON Lines with ``timestamp`` and ``original``."""
    file = Path(path)
    if not file.is_file():
        raise input_file_error(file, "captures file")
    captures = []
    for lineno, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            captures.append({"timestamp": str(record["timestamp"]), "original": str(record["original"])})
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{file}:{lineno}: not a capture ({exc})") from None
    return captures


def archive_days() -> tuple[date, date]:
    """The first and last day of the captures an archive crawl reads (``crawl.archive_from``..``archive_to``):
    the days discovery listed them for, as the launcher hands the spider's process the run's crawl
    settings."""
    crawl = load_settings().crawl
    return crawl.archive_from, crawl.archive_to


class SiteSpider(scrapy.Spider):
    """Crawls one configured site. Arguments: ``run_id``, ``known_urls``, ``incremental``, ``base_url``,
    ``discovery`` (a comma-separated order) and ``wp_rest_per_page`` (both override the site file), and for
    archive mode ``mode=archive``, ``captures`` and ``archive_url``."""

    def __init__(
        self,
        run_id: str | None = None,
        known_urls: str | None = None,
        incremental: str | bool = True,
        base_url: str | None = None,
        mode: str = "live",
        captures: str | None = None,
        archive_url: str | None = None,
        discovery: str | None = None,
        wp_rest_per_page: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.config: SiteConfig = load_site_config(self.name)
        self.run_id = run_id or new_run_id(self.name)
        self.incremental = parse_flag(incremental, "incremental")
        self.known: set[str] = read_known_urls(known_urls) if known_urls and self.incremental else set()
        self._base_url = url_argument("base_url", base_url) if base_url else None
        self._crawling = False  # set by start(): only a crawl keeps pages, not the shell or `scrapy check`
        self._redirect_targets: set[bytes] = set()  # fingerprints a listed capture's redirect asked for (on_scheduled)
        if mode not in ("live", "archive"):
            raise ValueError(f"spider argument mode must be live or archive, got {mode!r}")
        if mode == "archive" and not (captures and archive_url):
            raise ValueError("archive mode needs -a captures=FILE and -a archive_url=URL")
        self.mode = mode
        self.captures = read_captures(captures) if mode == "archive" and captures else []
        self.archive_url = credentials_kept(self, url_argument("archive_url", archive_url)) if archive_url else None
        self.archive_days = archive_days() if mode == "archive" else None
        order = tuple(m.strip() for m in discovery.split(",")) if discovery else self.config.discovery
        unknown = [m for m in order if m not in METHODS]
        if unknown or not order:
            raise ValueError(f"spider argument discovery must name some of {', '.join(METHODS)}, got {discovery!r}")
        self.discovery_order = order
        self.wp_rest_per_page = (self.config.wp_rest_per_page if wp_rest_per_page is None
                                 else parse_wp_rest_per_page(wp_rest_per_page, "spider argument wp_rest_per_page"))
        #: What a crawl resumed from its JOBDIR still needs to know: Scrapy's SpiderState extension saves
        #: it there when the spider closes and puts it back when the resumed one opens.
        self.state: dict[str, Any] = {}
        self.urls: SiteUrls

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> "SiteSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        base = spider._base_url or crawler.settings.getdict("ARASTANCE_SITE_URLS").get(spider.name)
        if spider.mode == "archive":
            base = spider.config.canonical_base  # archived pages are read as the real site's
        if not base:
            raise ValueError(f"no base URL for site {spider.name!r}: set sites.{spider.name} or -a base_url=...")
        base = credentials_kept(spider, base)
        spider.urls = SiteUrls(base if base.endswith("/") else base + "/", spider.config.canonical_base)
        # Keys stored before a capture's http://www. canonical link was put on canonical_base still
        # name a known post: read them as today's keys, so a re-crawl adds no second claim.
        spider.known = {spider.urls.canonical(url) for url in spider.known}
        crawler.signals.connect(spider.on_dropped, signal=signals.request_dropped)
        crawler.signals.connect(spider.on_scheduled, signal=signals.request_scheduled)
        log.info("spider configured", extra={"site": spider.name, "base_url": spider.urls.base_url,
                                              "run_id": spider.run_id, "known_urls": len(spider.known)})
        return spider

    @property
    def _rest_links(self) -> set[str]:
        """Post links the REST pages gave so far: a page that gives none new ends the paging. Kept in the
        spider's state, so that a crawl resumed after page k knows the links of pages 1 to k."""
        links: set[str] = self.state.setdefault("wp_rest_links", set())
        return links

    def _stat(self, key: str, count: int = 1) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"arastance/{key}", count)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        self._crawling = True
        if self.mode == "archive":
            for capture in self.captures:
                if self.urls.canonical(capture["original"]) in self.known:
                    self._stat("known_skipped")
                    continue
                assert self.archive_url is not None
                yield scrapy.Request(capture_url(self.archive_url, capture["timestamp"], capture["original"]),
                                     callback=self.parse_capture, errback=self.on_error)
            return
        for request in self._discover(0):
            yield request

    # -- discovery -----------------------------------------------------------------------------
    def _discover(self, index: int, candidate: int = 0) -> Iterator[scrapy.Request]:
        """Requests of the ``index``-th discovery method (its ``candidate``-th address)."""
        if index >= len(self.discovery_order):
            return
        method = self.discovery_order[index]
        meta = {"discovery": index, "candidate": candidate}
        if method == "listing":
            for path in self.config.start_paths:
                yield scrapy.Request(self.urls.absolute(path), callback=self.parse_listing, errback=self.on_error)
            return
        paths = {"sitemap": self.config.sitemaps, "feed": self.config.feeds, "wp_rest": (self.config.wp_rest,)}[method]
        if candidate >= len(paths):
            yield from self._discover(index + 1)
            return
        url = self.urls.absolute(paths[candidate])
        callback = {"sitemap": self.parse_sitemap, "feed": self.parse_feed, "wp_rest": self.parse_wp_rest}[method]
        if method == "wp_rest":
            url = wp_rest_page_url(url, 1, self.wp_rest_per_page)
        yield scrapy.Request(url, callback=callback, errback=self.on_discovery_error, meta=meta,
                             priority=LISTING_PRIORITY)

    def _discovery_failed(self, meta: dict[str, Any], reason: str, url: str) -> Iterator[scrapy.Request]:
        method = self.discovery_order[meta["discovery"]]
        self._stat(f"discovery/{method}_failed")
        log.info("discovery method gave nothing; trying the next", extra={"site": self.name, "method": method,
                                                                           "url": url, "reason": reason})
        yield from self._discover(meta["discovery"], meta["candidate"] + 1)

    def on_discovery_error(self, failure: Failure) -> Iterator[scrapy.Request]:
        """A sitemap, feed or REST address that is not there: the next address or method, no failed page."""
        request = failure.request  # type: ignore[attr-defined]
        yield from self._discovery_failed(request.meta, type(failure.value).__name__, request.url)

    def _posts(self, method: str, urls: list[str]) -> Iterator[scrapy.Request]:
        """Detail requests for the claim pages among ``urls`` that are new."""
        found = 0
        for raw in urls:
            url = self.urls.fetchable(self.urls.absolute(raw))
            if not self.urls.on_site(url) or not self.config.is_claim_url(self.urls.canonical(url)):
                continue
            found += 1
            if self.urls.canonical(url) in self.known:
                self._stat("known_skipped")
                continue
            yield scrapy.Request(url, callback=self.parse_detail, errback=self.on_error)
        self._stat(f"discovery/{method}", found)

    def _document(self, response: Response, parse: Any) -> Any:
        """The parsed discovery document, or None (then the next address or method is tried)."""
        self._stat("discovery_documents")
        try:
            return parse(response.body)
        except DiscoveryError as exc:
            return exc

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        """A sitemap index (its sitemaps are read) or urlset (its claim pages are fetched)."""
        entries = self._document(response, parse_sitemap)
        index = response.meta.get("sitemap_index")
        if isinstance(entries, DiscoveryError) or not (entries.sitemaps or entries.pages):
            reason = str(entries) if isinstance(entries, DiscoveryError) else "empty sitemap"
            if index is not None:
                yield from self._sitemap_child_failed(response.meta, response.url, reason)
                return
            yield from self._discovery_failed(response.meta, reason, response.url)
            return
        self._page(response, "skipped", keep=False)
        children = list(dict.fromkeys(self.urls.fetchable(loc) for loc in entries.sitemaps))
        if children:
            index = self._count_sitemap_children(index, response, len(children))
        for url in children:
            yield scrapy.Request(url, callback=self.parse_sitemap, errback=self.on_sitemap_child_error,
                                 meta={**own_meta(response.meta), "sitemap_index": index}, priority=LISTING_PRIORITY)
        yield from self._posts("sitemap", entries.pages)
        if response.meta.get("sitemap_index") is not None:
            yield from self._sitemap_child_done(response.meta, gave=bool(entries.pages))

    @property
    def _sitemap_indexes(self) -> dict[str, dict[str, Any]]:
        """Per sitemap index that discovery reached (by its address): the sitemaps it lists, and those
        listed by the indexes among them, still to come (``outstanding``), whether one gave pages
        (``gave``), and the index's own discovery meta. Kept in the spider's state, so that a crawl
        resumed from its JOBDIR still moves discovery on when the last of them gives nothing."""
        indexes: dict[str, dict[str, Any]] = self.state.setdefault("sitemap_indexes", {})
        return indexes

    def _count_sitemap_children(self, index: str | None, response: Response, children: int) -> str:
        """Count the ``children`` sitemaps that ``response`` lists: a discovery address starts its own
        count, and an index that an index listed adds them to that index's (``index``)."""
        if index is None:
            index = response.url
            self._sitemap_indexes[index] = {"outstanding": 0, "gave": False,
                                            "meta": {k: response.meta[k] for k in ("discovery", "candidate")}}
        self._sitemap_indexes[index]["outstanding"] += children
        return index

    def _sitemap_child_done(self, meta: dict[str, Any], gave: bool) -> Iterator[scrapy.Request]:
        """A sitemap that the index in ``meta`` lists is done, and ``gave`` pages or not. Once the last is
        done and none gave any, the index gave nothing, and discovery moves on as from an index that
        is not there (the feed, the REST API, the listing pages find the site's posts instead)."""
        index = meta["sitemap_index"]
        counted = self._sitemap_indexes[index]
        counted["outstanding"] -= 1
        counted["gave"] = counted["gave"] or gave
        if counted["outstanding"] > 0:
            return
        del self._sitemap_indexes[index]
        if not counted["gave"]:
            yield from self._discovery_failed(counted["meta"], "no sitemap the index lists gave pages", index)

    def _sitemap_child_failed(self, meta: dict[str, Any], url: str, reason: str) -> Iterator[scrapy.Request]:
        """A sitemap that a sitemap index listed gave nothing (empty, not XML, an HTTP error). The
        index's other sitemaps may list the site's posts, so discovery stays with the index until the
        last of them is done (:meth:`_sitemap_child_done`)."""
        self._stat("discovery/sitemap_child_failed")
        log.warning("a sitemap listed by the sitemap index gave nothing", extra={
            "site": self.name, "url": url, "reason": reason, "run_id": self.run_id, "index": meta["sitemap_index"]})
        yield from self._sitemap_child_done(meta, gave=False)

    def on_sitemap_child_error(self, failure: Failure) -> Iterator[scrapy.Request]:
        """A sitemap that an index lists that could not be fetched: a failed page, and a sitemap that
        gave nothing."""
        self.on_error(failure)
        request = failure.request  # type: ignore[attr-defined]
        yield from self._sitemap_child_failed(request.meta, request.url, type(failure.value).__name__)

    def parse_feed(self, response: Response) -> Iterator[Any]:
        """A feed's newest posts; a feed is never the whole site, so the next method follows."""
        urls = self._document(response, parse_feed)
        if isinstance(urls, DiscoveryError) or not urls:
            yield from self._discovery_failed(response.meta, str(urls) if isinstance(urls, DiscoveryError) else "empty feed", response.url)
            return
        self._page(response, "skipped", keep=False)
        yield from self._posts("feed", urls)
        yield from self._discover(response.meta["discovery"] + 1)

    def parse_wp_rest(self, response: Response) -> Iterator[Any]:
        """One page of ``/wp-json/wp/v2/posts``; the next page while ``X-WP-TotalPages`` says there is one
        (or, without a believable count, while the page is full), and never after a page that gives no
        post link not given before: a server that ignores ``page`` (a static export, a cache that drops
        the query) would otherwise be read until the crawl's time-out, and again on each resume."""
        urls = self._document(response, parse_wp_rest)
        page = int(response.meta.get("rest_page", 1))
        if isinstance(urls, DiscoveryError) or (not urls and page == 1):
            yield from self._discovery_failed(response.meta, str(urls) if isinstance(urls, DiscoveryError) else "no posts", response.url)
            return
        self._page(response, "skipped", keep=False)
        new = [url for url in dict.fromkeys(urls) if url not in self._rest_links]
        self._rest_links.update(new)
        yield from self._posts("wp_rest", new)
        total = wp_rest_total_pages(response.headers.get("X-WP-TotalPages"), response.headers.get("X-WP-Total"),
                                    self.wp_rest_per_page)
        if total is None or (urls and total < page):  # none, or one that this very page contradicts
            log.warning("WordPress REST page count missing or not believable: reading on while pages are full",
                        extra={"site": self.name, "url": response.url, "run_id": self.run_id,
                               "header": response.headers.get("X-WP-TotalPages")})
            total = None
        if urls and not new:
            self._stat("discovery/wp_rest_repeated_page")
            log.warning("WordPress REST page repeats the posts of earlier pages: not reading further",
                        extra={"site": self.name, "url": response.url, "run_id": self.run_id})
        elif urls and (page < total if total is not None else len(urls) >= self.wp_rest_per_page):
            yield scrapy.Request(wp_rest_page_url(response.url, page + 1), callback=self.parse_wp_rest,
                                 errback=self.on_rest_page_error, priority=LISTING_PRIORITY,
                                 meta={**own_meta(response.meta), "rest_page": page + 1, "rest_counted": total is not None})

    def on_rest_page_error(self, failure: Failure) -> None:
        """A REST page after the first that could not be fetched: a failed page, but for WordPress'
        HTTP 400 past the last page, which a crawl reading without a count asks for when the last
        page is full: that is the end of the posts."""
        request = failure.request  # type: ignore[attr-defined]
        if (failure.check(HttpError) and failure.value.response.status == 400
                and not request.meta.get("rest_counted", True)):
            self._stat("discovery/wp_rest_past_the_end")
            return
        self.on_error(failure)

    def _page(self, response: Response, status: str, error: str | None = None, keep: bool = True) -> PageItem:
        return self._record(response.url, response.body, response.status, status, error, keep)

    def _unfetched(self, url: str, error: str) -> None:
        """Record a page that brought no response to parse."""
        self._record(url, b"", None, "failed", error, keep=False)

    def _record(self, url: str, body: bytes, http_status: int | None, status: str, error: str | None,
                keep: bool) -> PageItem:
        """A page record; an archived page also keeps the original URL and the capture time."""
        capture = parse_capture_url(url) if self.mode == "archive" else None
        return self._send(page_item(
            run_id=self.run_id, source_id=self.name, url=url, body=body, http_status=http_status,
            fetched_at=datetime.now(timezone.utc), parse_status=status,  # type: ignore[arg-type]
            parse_error=error, keep_body=keep,
            original_url=capture[1] if capture else None,
            captured_at=capture_time(capture[0]) if capture else None,
        ))

    def _send(self, page: PageItem) -> PageItem:
        """Hand a page to whoever keeps pages (the staging pipeline), outside the item feed.

        Only during a crawl: a callback tried in ``scrapy shell --spider`` leaves no staging run.
        """
        if self._crawling:
            self.crawler.signals.send_catch_log(signal=page_fetched, page=page, spider=self)
        return page

    def _html(self, response: Response) -> str:
        """The page's text as ``arastance reparse`` reads its stored bytes (:func:`page_text`): the
        ``Content-Type`` header only where the bytes do not settle the charset. Scrapy lets the header
        win, and an Apache ``charset=ISO-8859-1`` on a windows-1256 page (or an old ``windows-1256`` on
        a UTF-8 one) gave a mojibake claim, parsed ok, that a re-parse of the same bytes contradicted."""
        html, read_as = page_text(response.body, response.headers.get("Content-Type", b"").decode("latin-1") or None)
        if read_as:
            self._stat("read_as_other_charset")
        return html

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """Follow the unknown detail links; follow the next page unless this page was all known.

        @site_page listing
        @returns requests 1
        @returns items 0 0
        """
        self._stat("listing_pages")
        self._page(response, "skipped", keep=False)
        listing = extract_listing(self._html(response), response.url, self.config, self.urls)
        new = [url for url in listing.detail_urls if self.urls.canonical(url) not in self.known]
        self._stat("known_skipped", len(listing.detail_urls) - len(new))
        for url in new:
            yield scrapy.Request(url, callback=self.parse_detail, errback=self.on_error)
        if self.known and listing.detail_urls and not new:
            self._stat("pagination_stopped")
            log.info("listing page holds only known posts; pagination stops",
                     extra={"site": self.name, "url": response.url, "run_id": self.run_id})
            return
        if listing.next_url:
            # Ahead of the queued detail pages: the next listing page is what discovers more work.
            yield scrapy.Request(listing.next_url, callback=self.parse_listing, errback=self.on_error,
                                 priority=LISTING_PRIORITY)

    def parse_capture(self, response: Response) -> Iterator[Any]:
        """An archived claim page, parsed as the page it was when the archive captured it; a capture
        the archive replayed in place of the one asked for is parsed only if it stands for it
        (:meth:`_replayed_elsewhere`), else the page's other captures are tried (:meth:`_replay_lost`)."""
        replay: dict[str, Any] | None = response.meta.get("replay")  # set on another capture of a listed page
        capture = parse_capture_url(response.url)
        if capture is None and replay is None:  # redirected out of the archive: not a capture at all
            self._stat("failed/not_a_capture")
            self._page(response, "failed", f"not_a_capture: {response.url}")
            return
        problem = (f"not_a_capture: {response.url}" if capture is None
                   else self._replayed_elsewhere(response.meta.get("redirect_urls"), *capture))
        if problem is not None:
            yield from self._replay_lost(response, problem, replay)
            return
        assert capture is not None
        self._stat("archive_captures")
        if replay is not None:
            self._stat("archive_other_capture_read")
        timestamp, original = capture
        yield from self.parse_detail(response, page_url=to_site_url(original, self.config.canonical_base),
                                     now=capture_time(timestamp))

    def _replay_lost(self, response: Response, problem: str, replay: dict[str, Any] | None) -> Iterator[Any]:
        """The capture asked for was replayed as ``response``, which does not stand for it (``problem``).
        For the listed capture, its page's other captures are looked up (:meth:`_look_up_others`; the page
        fails as ``response``, with its status, when none is read, but under its listed address when
        ``response`` is another listed capture: that address is the other page's own, read as itself by
        :meth:`_listed_capture_dropped`); for one of those, the next is tried. Its body is never kept: a
        re-parse and the capture index would read it as the page."""
        self._note_replayed(response.url, problem)
        if replay is not None:
            yield from self._next_capture(replay)
            return
        listed = response.meta["redirect_urls"][0]  # _replayed_elsewhere found a chain: the listed capture's first
        failed_as = (listed, None) if self._times_listed(response.request) else (response.url, response.status)
        yield from self._look_up_others(listed, response.url, problem, failed_as=failed_as)

    def _times_listed(self, request: scrapy.Request) -> int:
        """How many times ``request``'s address is among the listed captures, by the duplicate filter's key
        (the request fingerprint, which reads a slug however it is escaped): one the archive replays another
        listed capture as is a page of its own, and one listed twice is read once. Counted on first use, and
        not in a property: Scrapy's disk queue reads every member of the spider to name a callback."""
        key = self.crawler.request_fingerprinter.fingerprint
        counts: Counter[bytes] | None = getattr(self, "_listed_counts", None)
        if counts is None:
            assert self.archive_url is not None
            counts = Counter(key(scrapy.Request(capture_url(self.archive_url, c["timestamp"], c["original"])))
                             for c in self.captures)
            self._listed_counts = counts
        return counts[key(request)]

    def _note_replayed(self, url: str, problem: str) -> None:
        """Count and log a capture replayed as ``url``, which does not stand for it (``problem``)."""
        self._stat("archive_replayed_elsewhere")
        log.warning("archive replayed another capture than the one asked for", extra={
            "site": self.name, "url": url, "reason": problem.split(":", 1)[0], "run_id": self.run_id})

    def _look_up_others(self, listed_url: str, replayed_url: str, problem: str,
                        failed_as: tuple[str, int | None]) -> Iterator[scrapy.Request]:
        """The listed capture ``listed_url`` was replayed as ``replayed_url``, which does not stand for it
        (``problem``): the archive is asked for the page's other captures within the crawl's days (a CDX
        request, and its answer's next pages where they may hold nearer ones, at the archive's pace like
        any other). Should none read as the page, its failed page is ``failed_as``: the address and HTTP
        status it is recorded under."""
        listed = parse_capture_url(listed_url)
        assert listed is not None and self.archive_url is not None and self.archive_days is not None
        replayed = parse_capture_url(replayed_url)
        replay = {"listed": listed[0], "original": listed[1], "problem": problem, "url": failed_as[0],
                  "status": failed_as[1], "replayed_as": replayed[0] if replayed else "", "tried": [listed[0]],
                  "queue": []}
        # Never filtered as a duplicate: the archive may redirect every lookup to one address (an error
        # page) or back to itself, and each replayed page must still get its outcome.
        yield scrapy.Request(other_captures_query(self.archive_url, listed[1], *self.archive_days),
                             callback=self.parse_other_captures, errback=self.on_other_captures_error,
                             dont_filter=True, meta={"replay": replay})

    def parse_other_captures(self, response: Response) -> Iterator[Any]:
        """A page of the CDX answer listing a page's captures within the crawl's days. The next page is
        asked for while a later row may be nearer the listed capture than those found so far
        (:func:`~spiders.archive_captures.lookup_settled`: a page captured more often than a CDX page
        holds, or a server that lists other years' captures first), up to :data:`MAX_LOOKUP_PAGES`
        pages; then the nearest to the listed one that were not tried yet are asked for in turn."""
        replay = response.meta["replay"]
        try:
            page = read_lookup_page(response.body, response.url)
        except CdxAnswerError as exc:
            yield from self._lookup_lost(replay, f"could not be read: {exc}")
            return
        assert self.archive_url is not None and self.archive_days is not None
        asked = {*replay["tried"], replay["replayed_as"]}
        # the nearest others on the lookup's pages before this one, and how many it read (none on the first)
        found = nearest_others([*replay.get("found", []), *page.timestamps], replay["listed"], asked,
                               *self.archive_days)
        pages = replay.get("lookup_pages", 0) + 1
        replay = {**replay, "found": found, "lookup_pages": pages}
        settled = bool(page.timestamps) and lookup_settled(found, replay["listed"], page.timestamps[-1],
                                                           self.archive_days[1])
        if page.resume_key and not settled:
            if pages < MAX_LOOKUP_PAGES:
                self._stat("archive_other_captures_page_followed")
                yield scrapy.Request(other_captures_query(self.archive_url, replay["original"], *self.archive_days,
                                                          resume_key=page.resume_key),
                                     callback=self.parse_other_captures, errback=self.on_other_captures_error,
                                     dont_filter=True, meta={"replay": replay})
                return
            self._stat("archive_other_captures_pages_cut")
            log.warning("archive's list of a page's other captures cut at its page bound; the rest is not read",
                        extra={"site": self.name, "url": replay["url"], "original": replay["original"],
                               "max_lookup_pages": MAX_LOOKUP_PAGES, "found": len(found), "run_id": self.run_id})
            if not found:
                self._replay_failed(replay, f"1 capture tried: the first {pages} pages of the archive's list of the "
                                            "page's others (MAX_LOOKUP_PAGES) hold none within the crawl's days, the "
                                            "rest not read")
                return
        yield from self._next_capture({**replay, "queue": found})

    def on_other_captures_error(self, failure: Failure) -> Iterator[Any]:
        """The archive did not give a page of the list of the page's others (after retries)."""
        kind = type(failure.value).__name__
        yield from self._lookup_lost(failure.request.meta["replay"],  # type: ignore[attr-defined]
                                     f"failed: {kind}: {failure.value}")

    def _lookup_lost(self, replay: dict[str, Any], why: str) -> Iterator[Any]:
        """A page of the list of the page's others that could not be had (``why``): the others found on the
        pages before it are tried, as the archive listed them; with none, the page is lost."""
        if not replay.get("found"):
            self._replay_failed(replay, f"1 capture tried: the archive's list of the page's others {why}")
            return
        log.warning("archive's list of a page's other captures broke off; the captures it listed are tried", extra={
            "site": self.name, "url": replay["url"], "page": replay["lookup_pages"] + 1, "why": why,
            "run_id": self.run_id})
        yield from self._next_capture({**replay, "queue": replay["found"]})

    def on_other_capture_error(self, failure: Failure) -> Iterator[Any]:
        """Another capture of a listed page that could not be fetched: the next one is tried."""
        yield from self._next_capture(failure.request.meta["replay"])  # type: ignore[attr-defined]

    def _next_capture(self, replay: dict[str, Any]) -> Iterator[Any]:
        """A request for the next of the listed page's other captures, or its failed page when none is left.
        It is sent again even when an earlier request was replayed as the same capture: the replay
        check must see where this one lands."""
        if not replay["queue"]:
            others = len(replay["tried"]) - 1
            self._replay_failed(replay, f"{others + 1} captures tried (the listed one and {others} other(s) within "
                                        "the crawl's days), none read as itself (replayed as another, or not fetched)"
                                if others
                                else "1 capture tried: the archive lists no other of the page within the crawl's days")
            return
        timestamp, *rest = replay["queue"]
        self._stat("archive_other_capture_tried")
        assert self.archive_url is not None
        yield scrapy.Request(capture_url(self.archive_url, timestamp, replay["original"]),
                             callback=self.parse_capture, errback=self.on_other_capture_error, dont_filter=True,
                             meta={"replay": {**replay, "queue": rest, "tried": [*replay["tried"], timestamp]}})

    def _replay_failed(self, replay: dict[str, Any], outcome: str) -> None:
        """The listed page's failed page: the capture its listed one was replayed as, with why it was
        not read and what trying the page's other captures came to."""
        reason = replay["problem"].split(":", 1)[0]
        self._stat(f"failed/{reason}")
        self._record(replay["url"], b"", replay["status"], "failed", f"{replay['problem']}; {outcome}", keep=False)

    def _replayed_elsewhere(self, chain: list[str] | None, timestamp: str, original: str) -> str | None:
        """Why the capture ``(timestamp, original)`` that the listed capture was replayed as is not read
        in its place, or None when it is the listed one or stands for it. ``chain`` holds the addresses
        redirected from (Scrapy's ``redirect_urls``), the listed capture's first; None when not redirected.

        The Wayback Machine replays a capture it cannot serve as a redirect to another capture of the
        URL, however far away (edgi's wayback client refuses such a memento by default): one years
        after the crawl's days may be another post under the same address, and its canonical link
        then gives another post's claim, while the listed page's own is lost. A capture of the same
        page (any http/https/``www.`` spelling) stands for the listed one when it was taken within the
        crawl's days, or within :data:`REPLAY_TOLERANCE` of the listed capture (one that discovery
        listed after the days: the page that a redirect captured within them leads to)."""
        listed = parse_capture_url(chain[0]) if chain else None  # start() asked for it by its address
        if listed is None:
            return None
        if self.urls.canonical(original) != self.urls.canonical(listed[1]):
            return f"capture_of_another_page: {chain[0]} was replayed as a capture of {original}"
        assert self.archive_days is not None
        first, last = self.archive_days
        moment = capture_time(timestamp)
        if first <= moment.date() <= last or abs(moment - capture_time(listed[0])) <= REPLAY_TOLERANCE:
            return None
        hours = REPLAY_TOLERANCE.total_seconds() / 3600
        return (f"capture_outside_window: {chain[0]} was replayed as the capture of {timestamp}, "
                f"outside the crawl's {first}..{last} and over {hours:g} h from the listed one")

    def parse_detail(self, response: Response, page_url: str | None = None,
                     now: datetime | None = None) -> Iterator[Any]:
        """One claim from a detail page; a page that fails to parse is kept and counted, never fatal.

        ``page_url`` is the page's own address when it was fetched from elsewhere (an archive), and
        ``now`` the moment relative dates ("منذ يومين") count from: the capture time for archived pages.

        @site_page detail
        @returns items 1 1
        @returns requests 0 0
        @scrapes url title claim_text published_date run_id source_id veracity page_id
        """
        fetched_at = now or datetime.now(timezone.utc)
        try:
            fields = extract_detail(self._html(response), page_url or response.url, self.config, self.urls,
                                    fetched_at=fetched_at)
        except Exception as exc:  # noqa: BLE001 - whatever a page does, it must not stop the crawl
            error = parse_failure(exc)
            self._stat("parse_failed")
            log.warning("detail page failed to parse", extra={"site": self.name, "url": response.url, "reason": error,
                                                               "run_id": self.run_id})
            self._page(response, "failed", error)
            return
        page = self._page(response, "ok")
        self._stat("claims")
        yield claim_item(fields, page=page, veracity=self.config.veracity)

    def on_error(self, failure: Failure) -> None:
        """Record a page that could not be fetched (after retries): HTTP error, time-out, refused."""
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(IgnoreRequest) and not failure.check(HttpError):
            return  # robots.txt or another filter chose not to fetch it; counted in Scrapy's stats
        if failure.check(HttpError):
            response = failure.value.response
            reason = f"http_{response.status}"
            self._page(response, "failed", f"{reason}: HTTP {response.status}")
        else:
            kind = type(failure.value).__name__
            reason = "timeout" if "Timeout" in kind or "TimedOut" in kind else "fetch_error"
            self._unfetched(request.url, f"{reason}: {kind}: {failure.value}")
        self._stat(f"failed/{reason}")
        log.warning("page could not be fetched", extra={"site": self.name, "url": request.url, "reason": reason,
                                                         "run_id": self.run_id})

    def on_dropped(self, request: scrapy.Request, spider: scrapy.Spider) -> None:
        """A redirect that Scrapy's duplicate filter dropped: a page (or archive capture) that
        redirects back to itself would otherwise vanish from the run without a trace. It is a
        failed page, ``redirect_loop``, and a discovery address (sitemap, feed, REST) that does it
        moves discovery on to the next one, as an error there does. A redirect to a page this crawl
        already asked for is only counted (that page is recorded once, under its own address), but
        for a listed archive capture's (:meth:`_capture_redirect_dropped`). A listed capture's own
        request that another listed capture's redirect got ahead of is asked for again
        (:meth:`_listed_capture_dropped`)."""
        chain = request.meta.get("redirect_urls")
        if spider is self and self._crawling and request.meta.get("sitemap_index") is not None:
            self._schedule(self._sitemap_child_done(request.meta, gave=False))  # its pages, if any, come once
        if spider is not self or not self._crawling:
            return
        key = self.crawler.request_fingerprinter.fingerprint  # how the duplicate filter tells requests apart
        if not chain:
            if (request.callback == self.parse_capture and key(request) in self._redirect_targets
                    and self._times_listed(request) == 1):
                self._schedule(self._listed_capture_dropped(request))
            return  # an ordinary duplicate link (or a capture a resumed crawl fetched before): fetched once
        if key(request) not in {key(request.replace(url=u)) for u in chain}:
            if request.callback == self.parse_capture and "replay" not in request.meta:
                self._schedule(self._capture_redirect_dropped(chain, request.url))
                return
            self._stat("redirected_to_requested")
            return
        if request.errback == self.on_discovery_error:  # a sitemap, feed or REST address: on to the next, as after an error
            self._schedule(self._discovery_failed(request.meta, "redirect_loop", chain[0]))
            return
        self._stat("failed/redirect_loop")
        self._unfetched(chain[0], f"redirect_loop: {chain[0]} redirects back to {request.url}")
        log.warning("page redirects to itself", extra={"site": self.name, "url": chain[0], "reason": "redirect_loop",
                                                       "run_id": self.run_id})

    def _capture_redirect_dropped(self, chain: list[str], target: str) -> Iterator[scrapy.Request]:
        """A listed capture (``chain[0]``) that the archive redirects to ``target``, a capture this crawl
        already asked for: the Wayback Machine replays every capture it cannot serve of several posts as
        one capture (the home page's), fetched once for the first of them. ``target`` stands for it only
        when it is a capture of the same page within the crawl's days (:meth:`_replayed_elsewhere`); else
        the page is read from its other captures as after any replay that does not stand for it, and
        fails, when none reads as itself, under its listed address (``target``'s address is the first
        post's). One redirected out of the archive is a failed page ``not_a_capture``, as when fetched."""
        capture = parse_capture_url(target)
        if capture is None:
            self._stat("failed/not_a_capture")
            self._unfetched(chain[0], f"not_a_capture: {chain[0]} was redirected out of the archive to {target}")
            return
        problem = self._replayed_elsewhere(chain, *capture)
        if problem is None:
            self._stat("redirected_to_requested")
            return
        self._note_replayed(target, problem)
        yield from self._look_up_others(chain[0], target, problem, failed_as=(chain[0], None))

    def on_scheduled(self, request: scrapy.Request, spider: scrapy.Spider) -> None:
        """Notes the address a listed capture's redirect asks for, before the duplicate filter sees it: a
        listed capture's own request dropped after it was reached by such a redirect in this process, not
        one a resumed crawl's filter holds from the run before (those were fetched then)."""
        if spider is self and request.callback == self.parse_capture and request.meta.get("redirect_urls"):
            self._redirect_targets.add(self.crawler.request_fingerprinter.fingerprint(request))

    def _listed_capture_dropped(self, request: scrapy.Request) -> Iterator[scrapy.Request]:
        """A listed capture's own request, dropped as a duplicate: the archive redirected another listed
        capture to it (an old slug's capture to the new slug's) before it was asked for. That redirect's
        answer is read only as the other page's replay (:meth:`_replay_lost`), never as this page, so it is
        asked for once more, unfiltered (one more archive request, at the archive's pace), and read as
        itself; else the page had no claim and no row of its own."""
        self._stat("archive_listed_capture_asked_again")
        log.info("listed capture already reached by another's redirect: asked for again", extra={
            "site": self.name, "url": request.url, "run_id": self.run_id})
        yield request.replace(dont_filter=True)

    def _schedule(self, requests: Iterator[scrapy.Request]) -> None:
        """Hand ``requests`` to the engine from outside a callback (a signal handler)."""
        assert self.crawler.engine is not None
        for request in requests:
            self.crawler.engine.crawl(request)
