"""Crawler behaviour: politeness, throttling and incremental re-crawls."""

from pydantic import Field

from arastance.config.base import SettingsGroup


class CrawlSettings(SettingsGroup):
    """Scrapy politeness knobs; defaults are conservative for third-party news sites."""

    user_agent: str = (
        "AraStancePipeline/0.1 (+https://github.com/arastance-pipeline; research crawler for "
        "Arabic fact-checking datasets)"
    )
    obey_robots_txt: bool = True
    concurrent_requests_per_domain: int = Field(default=4, ge=1, le=64)
    download_delay_s: float = Field(default=0.5, ge=0)
    autothrottle: bool = True
    retry_times: int = Field(default=3, ge=0, le=20)
    download_timeout_s: float = Field(default=30.0, gt=0)
    max_pages: int = Field(default=0, ge=0, description="0 means no limit")
    incremental: bool = True
