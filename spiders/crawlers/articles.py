"""The article fetcher: downloads the documents kept for the claims and parses each page.

Arguments: ``urls_file`` (one article URL a line) and optionally ``mirror_base``: with it,
``https://<domain>/<path>`` is fetched from ``<mirror_base>mirror/<domain>/<path>`` (the offline
mirror) while the item keeps the original URL. With ``archive_url`` and ``availability_url``, a
dead link (an HTTP error, a time-out, a refused connection; not a robots.txt refusal) falls back
to the web-archive capture closest to its day (``archive_days``: a JSON file of URL to day, its
claim's date; availability API, then the capture's ``id_`` bytes) before it
is given up; the item says which copy it holds (``copy``: live or archive). A capture of another
page (the archive followed the dead article's redirect to the site's home page) is no copy of it,
and an archive copy's relative dates ("منذ يومين") count from its capture time. robots.txt, throttling and retries come from
the project settings. A page is read in the charset its bytes are in when the declared one is
wrong (:mod:`arastance.base.page_text`); a page past ``crawl.max_page_mb``, or whose record would pass
the output's line limit, is a ``too_large`` failure. Every URL yields exactly one item, a failure included (with its reason),
written by Scrapy's feed exporter to the JSON Lines file the caller names in ``FEEDS``; the
site spiders' staging pipeline is switched off here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import scrapy
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest
from scrapy.http import Request, Response, TextResponse
from scrapy.robotstxt import RobotParser
from scrapy.settings import BaseSettings
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from arastance.base.captures import capture_time, capture_url, parse_capture_url, to_site_url, valid_timestamp
from arastance.base.ids import content_hash
from arastance.base.page_text import page_text
from arastance.base.secrets import url_argument
from arastance.base.staging import read_archive_days, read_url_list
from arastance.base.text_files import MAX_LINE_BYTES
from arastance.base.urls import UrlError, canonicalize_url, mirror_url
from arastance.logging import get_logger
from spiders.article_extraction import extract_article
from spiders.middlewares import credentials_kept

log = get_logger(__name__)

#: The largest JSON line one page may take in the fetcher's output. ``read_fetched`` refuses a
#: longer line (and with it the whole file), so a page past this is recorded as ``too_large``
#: instead: a page of 4 MiB of control characters takes 24 MiB once escaped.
MAX_RECORD_BYTES = MAX_LINE_BYTES - 2**20


@dataclass
class FetchedArticle:
    """One article URL's fetch: the parsed page, or why there is none."""

    url: str
    fetch_url: str
    fetched_at: str
    http_status: int | None
    fetch_error: str | None
    title: str | None = None
    published_raw: str | None = None
    published_date: str | None = None
    text: str | None = None
    content_hash: str | None = None
    html: str | None = None
    #: "live", or "archive" when the live page was dead and the closest capture was read instead.
    copy: str = "live"
    captured_at: str | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _same_page(original: str, article_url: str) -> bool:
    """Whether a capture is of ``article_url`` (on the site's http/https/``www.`` spellings, which
    the archive keeps as it found them). A deleted article that redirected to the site's home page
    when it was crawled has its capture redirect there too: that page is not the article."""
    try:
        return canonicalize_url(to_site_url(original, article_url)) == canonicalize_url(article_url)
    except UrlError:
        return False


class SharedRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, with every request that waits for robots.txt served.

    In Scrapy 2.19 the requests that arrive while a host's robots.txt is downloading all await
    the same Deferred as a Future, which hands its result to the first waiter only; the others
    get None and are sent unchecked (scrapy/scrapy#6802). The article fetcher starts many
    requests to one host at once, so each waiter gets its own Deferred here.
    """

    async def robot_parser(self, request: Request) -> RobotParser | None:
        pending = self._parsers.get(urlparse_cached(request).netloc)
        if isinstance(pending, Deferred):
            waiter: Deferred[RobotParser | None] = Deferred()

            def relay(parser: RobotParser | None) -> RobotParser | None:
                waiter.callback(parser)
                return parser

            pending.addCallback(relay)
            return await maybe_deferred_to_future(waiter)
        return await super().robot_parser(request)


class ArticleSpider(scrapy.Spider):
    name = "articles"
    custom_settings = {"ITEM_PIPELINES": {}}

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        """The project's middlewares, with the stock robots.txt one swapped for the shared one; and
        no stop on a full disk (:mod:`spiders.disk_full` pairs that stop with removing a staging
        run, which this spider has none of: stopped early, it would hand its caller a feed of part
        of the URLs, while a feed the full disk cut short or left empty is refused by
        :func:`tasks.articles.run_article_spider`)."""
        super().update_settings(settings)
        middlewares = dict(settings.getdict("DOWNLOADER_MIDDLEWARES"))
        middlewares.update({"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
                            f"{__name__}.SharedRobotsTxtMiddleware": 100})
        settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority="spider")
        extensions = dict(settings.getdict("EXTENSIONS"))
        extensions["spiders.disk_full.DiskFull"] = None
        settings.set("EXTENSIONS", extensions, priority="spider")

    def __init__(self, urls_file: str, mirror_base: str = "", archive_url: str = "", availability_url: str = "",
                 archive_days: str = "", *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.urls = read_url_list(Path(urls_file))
        # requested, recorded and logged without their user:password@, which go as basic authentication
        # (the launcher hands over their credentials outside the command line: url_argument)
        self.mirror_base = credentials_kept(self, url_argument("mirror_base", mirror_base)) if mirror_base else None
        self.archive_url = credentials_kept(self, url_argument("archive_url", archive_url)) if archive_url else None
        self.availability_url = (credentials_kept(self, url_argument("availability_url", availability_url))
                                 if availability_url else None)
        self.archive_days = read_archive_days(Path(archive_days)) if archive_days else {}

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.urls:
            fetch_url = mirror_url(url, self.mirror_base) if self.mirror_base else url
            yield scrapy.Request(fetch_url, callback=self.parse_article, errback=self.on_error,
                                 meta={"article_url": url}, dont_filter=True)

    def parse_article(self, response: Response) -> Iterator[FetchedArticle]:
        url = response.meta["article_url"]
        capture = parse_capture_url(response.url) if response.meta.get("live_error") else None
        if response.meta.get("live_error") and capture is None:  # the archive sent us somewhere else
            yield FetchedArticle(url, response.url, _now(), response.meta["live_status"],
                                 f"{response.meta['live_error']}; archive copy: not_a_capture: {response.url}")
            return
        if capture and not _same_page(capture[1], url):
            yield FetchedArticle(url, response.url, _now(), response.meta["live_status"],
                                 f"{response.meta['live_error']}; archive copy: redirected to another page: {capture[1]}")
            return
        try:
            item = self._page_item(response, url, capture)
        except Exception as exc:  # noqa: BLE001 - one page the parser chokes on fails alone, not its whole wave
            # (a URL without a record makes run_article_spider refuse the wave, on every re-run)
            reason = f"parse_error: {type(exc).__name__}: {exc}"
            log.warning("article page could not be parsed", extra={"url": url, "reason": reason})
            if capture:
                item = FetchedArticle(url, response.url, _now(), response.meta["live_status"],
                                      f"{response.meta['live_error']}; archive copy: {reason}")
            else:
                item = FetchedArticle(url, response.url, _now(), response.status, reason)
        yield item

    def _page_item(self, response: Response, url: str, capture: tuple[str, str] | None) -> FetchedArticle:
        """The record of a fetched page (or of its archive ``capture``): the parsed article, or why there is none."""
        content_type = response.headers.get("Content-Type", b"").decode("latin-1")
        if not isinstance(response, TextResponse):
            return FetchedArticle(url, response.url, _now(), response.status, f"not_html: {content_type}")
        html, read_as = page_text(response.body, content_type)
        if read_as:
            log.info("page read in another charset than declared", extra={"url": url, "declared": response.encoding,
                                                                          "read_as": read_as})
        # an archive copy's relative dates ("منذ يومين") count from the capture, not from today
        article = extract_article(html, now=capture_time(capture[0]) if capture else None)
        item = FetchedArticle(
            url=url, fetch_url=response.url, fetched_at=_now(), http_status=response.status, fetch_error=None,
            title=article.title, published_raw=article.published_raw,
            published_date=article.published_date.isoformat() if article.published_date else None,
            text=article.text, content_hash=content_hash(response.body), html=html,
            copy="archive" if capture else "live",
            captured_at=capture_time(capture[0]).isoformat(timespec="seconds") if capture else None,
        )
        # A character takes at most six bytes in the JSON line (\u0001), so only a page that could
        # pass the limit is serialised here: the feed exporter serialises every page once anyway.
        size = 0
        if 6 * (len(html) + len(article.text) + len(article.title or "")) + 4096 > MAX_RECORD_BYTES:
            size = len(json.dumps(asdict(item), ensure_ascii=False).encode("utf-8", "surrogatepass"))
        if size > MAX_RECORD_BYTES:
            log.warning("article page too large to record", extra={"url": url, "bytes": size})
            item = FetchedArticle(url, response.url, item.fetched_at, response.status,
                                  f"too_large: the page's record takes {size:,} bytes (more than {MAX_RECORD_BYTES:,})")
        return item

    def on_error(self, failure: Failure) -> Iterator[FetchedArticle]:
        """A URL that could not be fetched (after retries) still gets its item, with the reason."""
        request = failure.request  # type: ignore[attr-defined]
        url = request.meta["article_url"]
        status = None
        if failure.check(HttpError):
            status = failure.value.response.status
            reason = f"http_{status}: HTTP {status}"
        elif failure.check(IgnoreRequest) and "robots.txt" in str(failure.value):
            reason = f"robots_disallowed: {failure.value}"
        elif failure.check(DownloadCancelledError) or "DOWNLOAD_MAXSIZE" in str(failure.value):
            # past crawl.max_page_mb: announced, streamed without a length (an empty message), or only
            # once decompressed (IgnoreRequest); an archived copy is no smaller
            limit = self.settings.getint("DOWNLOAD_MAXSIZE")
            reason = f"too_large: {failure.value or f'the page passed {limit:,} bytes'}"
        else:
            kind = type(failure.value).__name__
            reason = f"{'timeout' if 'Timeout' in kind or 'TimedOut' in kind else 'fetch_error'}: {kind}: {failure.value}"
        if request.meta.get("live_error"):  # the archive copy failed too
            yield FetchedArticle(url, request.url, _now(), request.meta["live_status"],
                                 f"{request.meta['live_error']}; archive copy: {reason}")
            return
        log.warning("article could not be fetched", extra={"url": url, "reason": reason.split(":", 1)[0]})
        # a robots.txt refusal is an answer, not a dead link; an archived copy of a too-large page is as large
        if self.archive_url and self.availability_url and not reason.startswith(("robots_disallowed", "too_large")):
            yield from self._ask_archive(url, status, reason)
            return
        yield FetchedArticle(url, request.url, _now(), status, reason)

    def _ask_archive(self, url: str, status: int | None, reason: str) -> Iterator[scrapy.Request]:
        """A dead link: ask the availability API for the capture closest to the URL's day (its
        claim's date; without a day the API answers with the newest capture), with no retries:
        one polite question."""
        assert self.availability_url is not None
        meta = {"article_url": url, "live_error": reason, "live_status": status, "dont_retry": True}
        query = {"url": url} | ({"timestamp": f"{self.archive_days[url]:%Y%m%d}"} if url in self.archive_days else {})
        yield scrapy.Request(f"{self.availability_url}?{urlencode(query)}", callback=self.parse_availability,
                             errback=self.on_error, meta=meta, dont_filter=True)

    def parse_availability(self, response: Response) -> Iterator[Any]:
        """The closest capture's ``id_`` bytes, or the live failure when the archive has none."""
        meta = response.meta
        try:
            closest = (json.loads(response.text).get("archived_snapshots") or {}).get("closest") or {}
        except (ValueError, AttributeError, RecursionError):  # RecursionError: JSON nested too deep to read
            closest = {}
        if not isinstance(closest, dict) or not closest.get("available") or not valid_timestamp(closest.get("timestamp")) \
                or str(closest.get("status", "200")) != "200":
            yield FetchedArticle(meta["article_url"], meta["article_url"], _now(), meta["live_status"],
                                 f"{meta['live_error']}; no archive capture")
            return
        assert self.archive_url is not None
        target = capture_url(self.archive_url, str(closest["timestamp"]), meta["article_url"])
        yield scrapy.Request(target, callback=self.parse_article, errback=self.on_error,
                             meta={k: meta[k] for k in ("article_url", "live_error", "live_status")}, dont_filter=True)
