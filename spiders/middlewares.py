"""Downloader middleware: retries that back off exponentially instead of hammering a failing site."""

from __future__ import annotations

import asyncio

from scrapy import Request
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import Response
from scrapy.settings import BaseSettings

from arastance.base.retry_after import retry_after_s


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
