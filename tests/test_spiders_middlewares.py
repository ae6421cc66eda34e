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
