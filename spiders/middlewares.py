"""Middlewares of the site spiders: retries that back off exponentially instead of hammering a failing
site, and a cap on the claim pages a sample crawl (``arastance sites check``) asks a site for."""

from __future__ import annotations

import asyncio

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from arastance.base.retry_after import retry_after_s
from arastance.logging import get_logger

log = get_logger(__name__)


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's retry rules (``RETRY_TIMES``, ``RETRY_HTTP_CODES``, ``RETRY_EXCEPTIONS``), delayed.

    The n-th retry of a request waits ``RETRY_BACKOFF_BASE * 2**(n-1)`` seconds, or longer when
    the answer's ``Retry-After`` asks for it, at most ``RETRY_BACKOFF_MAX``. Waiting happens in this request's own coroutine, so other requests
    keep flowing meanwhile.
    """

    def __init__(self, settings: BaseSettings) -> None:
        super().__init__(settings)
        self.backoff_base = settings.getfloat("RETRY_BACKOFF_BASE", 1.0)
        self.backoff_max = settings.getfloat("RETRY_BACKOFF_MAX", 30.0)

    def backoff_delay(self, retry: Request, asked_s: float | None = None) -> float:
        """Seconds to wait before sending ``retry`` (its ``retry_times`` is already incremented);
        ``asked_s`` is what the server's ``Retry-After`` asked for."""
        attempt = max(int(retry.meta.get("retry_times", 1)), 1)
        return min(max(self.backoff_base * 2 ** (attempt - 1), asked_s or 0.0), self.backoff_max)

    async def _delayed(self, result: Request | Response, asked_s: float | None = None) -> Request | Response:
        if isinstance(result, Request):
            delay = self.backoff_delay(result, asked_s)
            if delay > 0:
                assert self.crawler.stats is not None
                self.crawler.stats.inc_value("retry/backoff_seconds", delay)
                await asyncio.sleep(delay)
        return result

    async def process_response(self, request: Request, response: Response) -> Request | Response:  # type: ignore[override]
        header = response.headers.get("Retry-After")
        asked = retry_after_s({"retry-after": header.decode("latin-1")}) if header else None
        return await self._delayed(super().process_response(request, response), asked)

    async def process_exception(self, request: Request, exception: Exception) -> Request | Response | None:  # type: ignore[override]
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
