"""The generic site spider: listing pages (with pagination) -> detail pages -> items.

Everything site-specific (start paths, selectors) is in ``spiders/site_configs/<name>.toml``;
a site's spider is a two-line subclass naming its configuration. The spider only parses: it
yields a :class:`ClaimItem` for every detail page parsed (the item feed: ``scrapy crawl <site>
-O claims.jsonl``) and sends a :class:`PageItem` for every page fetched or failed with the
:data:`page_fetched` signal; the staging pipeline persists both.

``scrapy check`` runs each site's callbacks on the pages named in its configuration
(``[contracts]``): the ``@site_page`` contract resolves them against the site's base URL.

Incremental crawls: given the canonical URLs already in the warehouse (``-a known_urls=FILE``),
the spider requests only detail pages it does not know and stops paginating at the first
listing page whose detail links are all known (listings are newest first).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import scrapy
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from arastance.base.staging import PageItem, new_run_id
from arastance.base.urls import UrlError, canonicalize_url
from arastance.logging import get_logger
from spiders.extraction import extract_detail, extract_listing, parse_failure
from spiders.items import claim_item, page_fetched, page_item
from spiders.site_config import SiteConfig, load_site_config
from spiders.site_urls import SiteUrls

log = get_logger(__name__)

LISTING_PRIORITY = 10
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


def read_known_urls(path: str | Path) -> set[str]:
    """Canonical URLs, one a line (blank lines and ``#`` comments ignored)."""
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"known_urls file {file} does not exist")
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


class SiteSpider(scrapy.Spider):
    """Crawls one configured site. Arguments: ``run_id``, ``known_urls``, ``incremental``, ``base_url``."""

    #: A detail page of the site, relative to its base URL, for ``scrapy check``.
    contract_detail_path: str = ""

    def __init__(
        self,
        run_id: str | None = None,
        known_urls: str | None = None,
        incremental: str | bool = True,
        base_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.config: SiteConfig = load_site_config(self.name)
        self.run_id = run_id or new_run_id(self.name)
        self.incremental = parse_flag(incremental, "incremental")
        self.known: set[str] = read_known_urls(known_urls) if known_urls and self.incremental else set()
        self._base_url = base_url
        self._crawling = False  # set by start(): only a crawl keeps pages, not the shell or `scrapy check`
        self.urls: SiteUrls

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> "SiteSpider":
        spider = super().from_crawler(crawler, *args, **kwargs)
        base = spider._base_url or crawler.settings.getdict("ARASTANCE_SITE_URLS").get(spider.name)
        if not base:
            raise ValueError(f"no base URL for site {spider.name!r}: set sites.{spider.name} or -a base_url=...")
        spider.urls = SiteUrls(base if base.endswith("/") else base + "/", spider.config.canonical_base)
        return spider

    def _stat(self, key: str, count: int = 1) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"arastance/{key}", count)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        self._crawling = True
        log.info("crawl starting", extra={"site": self.name, "base_url": self.urls.base_url,
                                          "run_id": self.run_id, "known_urls": len(self.known)})
        for path in self.config.start_paths:
            yield scrapy.Request(self.urls.absolute(path), callback=self.parse_listing, errback=self.on_error)

    def _page(self, response: Response, status: str, error: str | None = None, keep: bool = True) -> PageItem:
        return self._send(page_item(
            run_id=self.run_id, source_id=self.name, url=response.url, body=response.body,
            http_status=response.status, fetched_at=datetime.now(timezone.utc), parse_status=status,  # type: ignore[arg-type]
            parse_error=error, keep_body=keep,
        ))

    def _send(self, page: PageItem) -> PageItem:
        """Hand a page to whoever keeps pages (the staging pipeline), outside the item feed.

        Only during a crawl: a callback tried in ``scrapy shell --spider`` leaves no staging run.
        """
        if self._crawling:
            self.crawler.signals.send_catch_log(signal=page_fetched, page=page, spider=self)
        return page

    def parse_listing(self, response: Response) -> Iterator[Any]:
        """Follow the unknown detail links; follow the next page unless this page was all known.

        @site_page listing
        @returns requests 1
        @returns items 0 0
        """
        self._stat("listing_pages")
        self._page(response, "skipped", keep=False)
        listing = extract_listing(response.text, response.url, self.config, self.urls)
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

    def parse_detail(self, response: Response) -> Iterator[Any]:
        """One claim from a detail page; a page that fails to parse is kept and counted, never fatal.

        @site_page detail
        @returns items 1 1
        @returns requests 0 0
        @scrapes url title claim_text published_date run_id source_id veracity page_id
        """
        fetched_at = datetime.now(timezone.utc)
        try:
            fields = extract_detail(response.text, response.url, self.config, self.urls, fetched_at=fetched_at)
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
            self._send(page_item(
                run_id=self.run_id, source_id=self.name, url=request.url, body=b"", http_status=None,
                fetched_at=datetime.now(timezone.utc), parse_status="failed",
                parse_error=f"{reason}: {kind}: {failure.value}", keep_body=False,
            ))
        self._stat(f"failed/{reason}")
        log.warning("page could not be fetched", extra={"site": self.name, "url": request.url, "reason": reason,
                                                         "run_id": self.run_id})
