"""Retry backoff: each retry of a request waits twice as long as the one before, up to a cap."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.settings import Settings

from spiders.middlewares import BackoffRetryMiddleware


def test_the_backoff_doubles_and_is_capped() -> None:
    mw = BackoffRetryMiddleware(Settings({"RETRY_TIMES": 5, "RETRY_BACKOFF_BASE": 0.5, "RETRY_BACKOFF_MAX": 1.5}))
    delays = [mw.backoff_delay(Request("http://127.0.0.1/x", meta={"retry_times": n})) for n in (1, 2, 3, 4)]
    assert delays == [0.5, 1.0, 1.5, 1.5]


def test_the_project_settings_use_the_backoff_retry_instead_of_scrapys(monkeypatch: pytest.MonkeyPatch) -> None:
    from scrapy.utils.project import get_project_settings

    monkeypatch.setenv("SCRAPY_SETTINGS_MODULE", "spiders.settings")
    settings = get_project_settings()
    middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
    assert middlewares["scrapy.downloadermiddlewares.retry.RetryMiddleware"] is None
    assert "spiders.middlewares.BackoffRetryMiddleware" in middlewares
    assert settings.getbool("ROBOTSTXT_OBEY") and settings["USER_AGENT"].startswith("AraStancePipeline/")


def test_a_retry_waits_as_long_as_retry_after_asks_within_the_cap() -> None:
    import asyncio

    from scrapy import Spider
    from scrapy.http import Response
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(Spider, {"RETRY_TIMES": 2, "RETRY_BACKOFF_BASE": 0.01, "RETRY_BACKOFF_MAX": 0.3})
    crawler.spider = Spider.from_crawler(crawler, name="t")
    mw = BackoffRetryMiddleware.from_crawler(crawler)
    request = Request("http://127.0.0.1/capture")
    for headers, waited in (({"Retry-After": "30"}, 0.3), ({"Retry-After": "²"}, 0.01), ({}, 0.01)):
        crawler.stats.set_value("retry/backoff_seconds", 0)
        retry = asyncio.run(mw.process_response(request, Response(request.url, status=429, headers=headers)))
        assert isinstance(retry, Request)
        assert crawler.stats.get_value("retry/backoff_seconds") == waited
