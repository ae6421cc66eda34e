"""Retry backoff: each retry of a request waits twice as long as the one before, up to a cap."""

from __future__ import annotations

import pytest
from scrapy import Request, Spider
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from spiders.middlewares import BackoffRetryMiddleware, UrlCredentials, credentials_kept


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


def test_the_claim_page_cap_lets_through_that_many_pages_and_then_no_more_discovery() -> None:
    from typing import Any

    from scrapy import Spider
    from scrapy.exceptions import NotConfigured
    from scrapy.http import HtmlResponse
    from scrapy.utils.test import get_crawler

    from spiders.middlewares import DetailRequestCap

    class Site(Spider):
        name = "site"

        def parse_detail(self, response: Any) -> None: ...

        def parse_listing(self, response: Any) -> None: ...

    def cap(settings: dict[str, Any]) -> tuple[Any, DetailRequestCap]:
        crawler = get_crawler(Site, settings)
        crawler.spider = Site.from_crawler(crawler)
        return crawler, DetailRequestCap.from_crawler(crawler)

    crawler, mw = cap({"ARASTANCE_MAX_DETAIL_REQUESTS": 3})
    spider = crawler.spider
    listing = HtmlResponse("http://127.0.0.1/list", body=b"<html></html>")

    def detail(n: int) -> Request:
        return Request(f"http://127.0.0.1/rumors/{n}/", callback=spider.parse_detail)

    page_one = [detail(1), detail(2), detail(1), {"item": 1},
                Request("http://127.0.0.1/list?page=2", callback=spider.parse_listing)]
    page_two = [detail(3), detail(4), detail(2), Request("http://127.0.0.1/list?page=3", callback=spider.parse_listing)]
    out_one = list(mw.process_spider_output(listing, page_one))
    out_two = list(mw.process_spider_output(listing, page_two))
    assert out_one == page_one  # a repeated link passes uncounted: the duplicate filter fetches it once
    assert [r.url for r in out_two] == ["http://127.0.0.1/rumors/3/", "http://127.0.0.1/rumors/2/"]
    assert crawler.stats.get_value("arastance/capped/detail_requests") == 1
    assert crawler.stats.get_value("arastance/capped/discovery_requests") == 1
    with pytest.raises(NotConfigured):
        cap({})  # no cap unless a run asks for one (a crawl fetches every new claim page)
    with pytest.raises(ValueError, match="ARASTANCE_MAX_DETAIL_REQUESTS must be 0 .* got -1"):
        cap({"ARASTANCE_MAX_DETAIL_REQUESTS": -1})


def test_the_project_settings_enable_the_claim_page_cap_without_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from scrapy.utils.project import get_project_settings

    monkeypatch.setenv("SCRAPY_SETTINGS_MODULE", "spiders.settings")
    settings = get_project_settings()
    assert "spiders.middlewares.DetailRequestCap" in settings.getdict("SPIDER_MIDDLEWARES")
    assert settings.getint("ARASTANCE_MAX_DETAIL_REQUESTS") == 0


@pytest.mark.parametrize("configured", ["http://op:pw@bücher.example/base/", "http://op:pw@BÜCHER.example:80/base/"])
def test_credentials_of_a_host_with_non_ascii_letters_go_to_its_idna_form(configured: str) -> None:
    """Scrapy requests "bücher.example" as "xn--bcher-kva.example": credentials bound to the host as written
    were never sent (every request got 401)."""
    crawler = get_crawler(Spider)
    crawler.spider = spider = Spider("s")
    credentials_kept(spider, configured)
    request = Request("http://xn--bcher-kva.example/base/page")
    UrlCredentials(crawler).request_reached_downloader(request)
    assert request.headers.get(b"Authorization") == b"Basic b3A6cHc="
    elsewhere = Request("http://buecher.example/base/page")
    UrlCredentials(crawler).request_reached_downloader(elsewhere)
    assert b"Authorization" not in elsewhere.headers
