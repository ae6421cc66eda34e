"""Middlewares of the site spiders: retries that back off exponentially instead of hammering a failing
site, a hold on a host that asked to be left alone, a cap on the claim pages a sample crawl
(``arastance sites check``) asks a site for, and basic authentication for a configured URL that
carries ``user:password@`` (a mirror or an archive behind a password)."""

from __future__ import annotations

import asyncio
from collections import Counter
from time import monotonic
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.core.downloader import Slot
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import DownloadConnectionRefusedError, DownloadFailedError, NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.asyncio import call_later
from twisted.internet.error import ConnectionLost
from twisted.internet.error import ConnectionRefusedError as TxConnectionRefusedError
from twisted.web.client import ResponseFailed

from arastance.base.retry_after import retry_after_s
from arastance.base.secrets import basic_auth_header, split_url_credentials
from arastance.logging import get_logger

log = get_logger(__name__)


def _asked_s(response: Response) -> float | None:
    """Seconds the answer's ``Retry-After`` asks for; None when it has none or an unreadable one."""
    header = response.headers.get("Retry-After")
    return retry_after_s({"retry-after": header.decode("latin-1")}) if header else None


def _turned_away(exception: Exception) -> str | None:
    """Why a failed download says the host turned the crawler away (refused or reset the
    connection, as a firewall blocking a client does); None for any other failure."""
    if isinstance(exception, (DownloadConnectionRefusedError, TxConnectionRefusedError)):
        return "connection_refused"
    if isinstance(exception, ConnectionLost):
        return "connection_reset"
    cause = exception.__cause__ if isinstance(exception, DownloadFailedError) else exception
    if isinstance(cause, ResponseFailed) and any(reason.check(ConnectionLost) for reason in cause.reasons):
        return "connection_reset"
    return None


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's retry rules (``RETRY_TIMES``, ``RETRY_HTTP_CODES``, ``RETRY_EXCEPTIONS``), delayed,
    and a hold on the whole host while it asks the crawler to slow down.

    The n-th retry of a request waits ``RETRY_BACKOFF_BASE * 2**(n-1)`` seconds, or longer when
    the answer's ``Retry-After`` asks for it, at most ``RETRY_BACKOFF_MAX``. Waiting happens in this
    request's own coroutine, so other requests keep flowing meanwhile.

    That wait alone kept the crawl sending the host's next requests at the normal pace while it
    answered 429 (51 requests to the archive in a minute of 429s), and the Wayback Machine blocks an
    IP at its firewall for an hour when 429s are ignored for a minute. So a 429, a 503 with
    ``Retry-After`` and a refused or reset connection (one the retry rules retry) also hold the
    host's download slot: nothing more is sent to it for the ``Retry-After`` time, or, without one,
    for a backoff that doubles with each hold in a row (reset by the host's first other answer).
    Other hosts' slots go on.
    """

    def __init__(self, settings: BaseSettings) -> None:
        super().__init__(settings)
        self.backoff_base = settings.getfloat("RETRY_BACKOFF_BASE", 1.0)
        self.backoff_max = settings.getfloat("RETRY_BACKOFF_MAX", 30.0)
        self.held_until: dict[str, float] = {}  # monotonic time each held slot is due again
        self.holds_in_row: Counter[str] = Counter()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "BackoffRetryMiddleware":
        mw = super().from_crawler(crawler)
        # response_downloaded is sent before the slot sends its next request (AutoThrottle adjusts
        # delays there too): a hold set in process_response would come after the next one went out.
        crawler.signals.connect(mw.response_downloaded, signal=signals.response_downloaded)
        return mw

    def _backoff_s(self, attempt: int, asked_s: float | None) -> float:
        return min(max(self.backoff_base * 2 ** (max(attempt, 1) - 1), asked_s or 0.0), self.backoff_max)

    def backoff_delay(self, retry: Request, asked_s: float | None = None) -> float:
        """Seconds to wait before sending ``retry`` (its ``retry_times`` is already incremented);
        ``asked_s`` is what the server's ``Retry-After`` asked for."""
        return self._backoff_s(int(retry.meta.get("retry_times", 1)), asked_s)

    def response_downloaded(self, response: Response, request: Request) -> None:
        """Hold the answering host when it asks to slow down; its first other answer ends the doubling."""
        key = request.meta.get("download_slot")
        if key is None:
            return
        asked = _asked_s(response)
        if response.status == 429:
            self.hold(key, asked, "http_429")
        elif response.status == 503 and asked is not None:
            self.hold(key, asked, "http_503_retry_after")
        else:
            self.holds_in_row.pop(key, None)

    def hold(self, key: str, asked_s: float | None, reason: str) -> None:
        """Send nothing more to download slot ``key`` for ``asked_s`` seconds (capped at
        ``RETRY_BACKOFF_MAX``), or for the backoff of this hold in a row when the host asked for no time.

        An answer that comes while the slot is held was sent before the hold: it lengthens the hold
        to what it asks for but does not count as one more in a row, and is not logged again.
        """
        assert self.crawler.engine is not None and self.crawler.stats is not None
        slot = self.crawler.engine.downloader.slots.get(key)
        if slot is None:  # collected as idle: nothing of the host's is queued or in flight
            return
        now = monotonic()
        held = self.held_until.get(key, 0.0) > now
        if not held:
            self.holds_in_row[key] += 1
        seconds = self._backoff_s(self.holds_in_row[key], asked_s)
        if now + seconds <= self.held_until.get(key, 0.0):
            return
        self.held_until[key] = now + seconds
        self._hold_slot(slot, seconds)
        if not held:
            self.crawler.stats.inc_value("retry/host_holds")
            log.warning("host held: nothing more is sent to it until the hold ends",
                        extra={"slot": key, "held_s": round(seconds, 2), "reason": reason,
                               "retry_after_s": asked_s, "holds_in_row": self.holds_in_row[key]})

    def _hold_slot(self, slot: Slot, seconds: float) -> None:
        """Block ``slot``'s queue for ``seconds`` the way the downloader blocks it for DOWNLOAD_DELAY.

        The downloader sends nothing from a slot while ``slot.latercall`` is pending, whatever the
        delay (0 included); when it fires, ``Downloader._latercall`` runs the queue again. Moving
        ``lastseen`` forward keeps the slot from being collected as idle (closing it would cancel
        the hold) and has the slot's own delay rule agree that its next request is due when the
        hold ends.
        """
        downloader = self.crawler.engine.downloader  # type: ignore[union-attr]
        slot.lastseen = max(slot.lastseen, monotonic() + seconds - slot.delay)
        if slot.latercall:
            slot.latercall.cancel()
        slot.latercall = call_later(seconds, downloader._latercall, slot)

    async def _delayed(self, result: Request | Response, asked_s: float | None = None) -> Request | Response:
        if isinstance(result, Request):
            delay = self.backoff_delay(result, asked_s)
            if delay > 0:
                assert self.crawler.stats is not None
                self.crawler.stats.inc_value("retry/backoff_seconds", delay)
                await asyncio.sleep(delay)
        return result

    async def process_response(self, request: Request, response: Response) -> Request | Response:  # type: ignore[override]
        return await self._delayed(super().process_response(request, response), _asked_s(response))

    async def process_exception(self, request: Request, exception: Exception) -> Request | Response | None:  # type: ignore[override]
        reason = _turned_away(exception)
        key = request.meta.get("download_slot")
        if reason and key is not None and isinstance(exception, self.exceptions_to_retry):
            self.hold(key, None, reason)
        result = super().process_exception(request, exception)
        return None if result is None else await self._delayed(result)


class DetailRequestCap(BaseSpiderMiddleware):
    """At most ``ARASTANCE_MAX_DETAIL_REQUESTS`` claim-page requests (0, the default: no cap).

    A sample crawl used to stop at an item count, which Scrapy overshoots by every request already
    queued or in flight: ``sites check --sample 5`` asked a site for 30 claim pages. Here the claim-page
    requests (those the spider sends to ``parse_detail``) are counted as the spider yields them, each
    distinct page once (the duplicate filter fetches a repeated link once), and dropped past the cap.
    Once the cap is reached, the listing and discovery requests are dropped too: they only find more
    claim pages, and a listing read on would walk the whole site. Requests an errback yields do not
    pass through spider middlewares; they only move discovery on after a failure.
    """

    def __init__(self, crawler: Crawler, limit: int) -> None:
        super().__init__(crawler)
        self.limit = limit
        self.requested: set[bytes] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "DetailRequestCap":
        limit = crawler.settings.getint("ARASTANCE_MAX_DETAIL_REQUESTS", 0)
        if limit < 0:
            raise ValueError(f"ARASTANCE_MAX_DETAIL_REQUESTS must be 0 (no cap) or more, got {limit}")
        if limit == 0:
            raise NotConfigured("no cap on claim-page requests")
        return cls(crawler, limit)

    def _is_detail(self, request: Request) -> bool:
        return request.callback is not None and request.callback == getattr(self.crawler.spider, "parse_detail", None)

    def _drop(self, kind: str) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"arastance/capped/{kind}")

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        full = len(self.requested) >= self.limit
        if not self._is_detail(request):
            if full:
                self._drop("discovery_requests")
                return None
            return request
        key = self.crawler.request_fingerprinter.fingerprint(request)
        if key in self.requested:
            return request  # a repeated link: the duplicate filter drops it, nothing more is fetched
        if full:
            self._drop("detail_requests")
            return None
        self.requested.add(key)
        if len(self.requested) == self.limit:
            log.info("claim-page cap reached: no further claim pages or listing pages are requested",
                     extra={"spider": getattr(self.crawler.spider, "name", None), "limit": self.limit})
        return request


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of ``url``, the default port written out and the host as sent (IDNA: a
    configured "bücher.example" is requested as "xn--bcher-kva.example"): what credentials are bound to."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, _ascii_host(parts.hostname or ""), parts.port or _DEFAULT_PORTS.get(scheme)


def _ascii_host(host: str) -> str:
    """``host`` lower-cased, its non-ASCII labels in their IDNA form (unchanged where it has none)."""
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:  # no valid IDNA name (an empty label): compared as written
        return host.lower()


def credentials_kept(spider: Spider, url: str) -> str:
    """``url`` without its ``user:password@``, which :class:`UrlCredentials` sends as basic authentication
    to ``url``'s origin for the rest of ``spider``'s crawl.

    A spider must request, record and log its configured URLs without their credentials: Scrapy took
    ``user:password@host`` for the host (every request failed), and each page was stored and logged
    under a URL holding the password.
    """
    bare, credentials = split_url_credentials(url)
    if credentials is not None:
        spider.__dict__.setdefault("url_credentials", {})[_origin(bare)] = basic_auth_header(*credentials)
    return bare


class UrlCredentials:
    """Sends the basic authentication kept by :func:`credentials_kept` with each request for that origin (only
    there: a redirect elsewhere gets none), and only while the request is in the downloader.

    The header is put on when a request reaches the downloader, after every downloader middleware has seen
    it, always as the current password's (overwriting any other), and taken off again when the request leaves,
    before any middleware sees the answer. Set on the request in the middleware chain, it was kept by the
    copies a same-origin redirect and a retry make, and those went to the resumable crawl's disk queue
    (``JOBDIR``, kept when a crawl is interrupted) with the password in base64; and a resumed crawl sent such
    a copy's old header after the password had changed, as a request already carrying one was left alone.
    Registered as a downloader middleware only so that every crawl enables it; the signals do the work.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        crawler.signals.connect(self.request_reached_downloader, signal=signals.request_reached_downloader)
        crawler.signals.connect(self.request_left_downloader, signal=signals.request_left_downloader)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "UrlCredentials":
        return cls(crawler)

    def _header(self, request: Request) -> bytes | None:
        return getattr(self.crawler.spider, "url_credentials", {}).get(_origin(request.url))

    def request_reached_downloader(self, request: Request) -> None:
        header = self._header(request)
        if header is not None:
            request.headers[b"Authorization"] = header

    def request_left_downloader(self, request: Request) -> None:
        if self._header(request) is not None:
            request.headers.pop(b"Authorization", None)
