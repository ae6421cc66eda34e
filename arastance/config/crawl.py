"""Crawler behaviour: politeness, throttling and incremental re-crawls."""

from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import Field, HttpUrl, model_validator

from arastance.config.base import SettingsGroup

#: Our own snapshot server on 127.0.0.1 needs no politeness delays; retries still back off.
LOOPBACK_CRAWL: dict[str, float | bool] = {
    "download_delay_s": 0.0, "autothrottle": False, "retry_backoff_s": 0.1, "archive_delay_s": 0.0,
}
#: The Internet Archive's Wayback Machine (CDX API under ``cdx/search/cdx``, captures under ``web/``).
WAYBACK_URL = "https://web.archive.org/"
#: The availability API ("closest capture of this URL") lives on archive.org itself. ``timestamp``
#: (YYYYMMDD...) picks the capture nearest that moment; without it the newest capture comes back
#: (https://browse.sh/skills/archive.org/find-snapshot-e3fnxh, "Path A", which also warns that an
#: answer without a timestamp can be empty), so the fetcher sends its claim's date when it has one.
WAYBACK_AVAILABILITY_URL = "https://archive.org/wayback/available"


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
    retry_backoff_s: float = Field(default=1.0, ge=0, description="first retry waits this long, doubling after")
    retry_backoff_max_s: float = Field(default=30.0, ge=0)
    download_timeout_s: float = Field(default=30.0, gt=0)
    max_pages: int = Field(default=0, ge=0, description="0 means no limit")
    max_page_mb: float = Field(
        default=4.0, gt=0, le=12,
        description="a page larger than this many MiB is not downloaded (Scrapy's DOWNLOAD_MAXSIZE; its own default is "
                    "1 GiB): news and fact-check pages are well below 1 MiB, and a fetched page must fit one line of "
                    "the fetcher's output (16 MiB)",
    )
    incremental: bool = True
    resumable: bool = Field(default=True, description="keep a Scrapy JOBDIR so an interrupted crawl resumes")
    run_timeout_s: float = Field(
        default=3600.0, gt=0, description="a crawl process running longer is stopped gracefully; the next run resumes it"
    )
    # -- where pages come from: the live sites, the web archive, or both ---------------------
    mode: Literal["live", "archive", "both"] = Field(
        default="live", description="live: the sites as they are; archive: their captures in the web archive; both"
    )
    archive_url: HttpUrl = Field(default=HttpUrl(WAYBACK_URL), description="Wayback Machine root (CDX + captures)")
    archive_availability_url: HttpUrl | None = Field(
        default=None,
        description="availability API; default: archive.org's for the real archive, <archive_url>wayback/available otherwise",
    )
    archive_from: date = Field(default=date(2012, 1, 1), description="first day of captures to crawl (the paper: 2012)")
    archive_to: date = Field(default=date(2018, 12, 31), description="last day of captures to crawl (the paper: 2018)")
    archive_delay_s: float = Field(default=1.0, ge=0, description="seconds between requests to the archive (politeness)")
    archive_page_size: int = Field(default=1000, ge=1, le=150000, description="CDX rows per page (limit=)")
    archive_fallback: bool = Field(
        default=True, description="article fetcher: a dead link is read from its closest archive capture before it is dropped"
    )
    archive_retry_times: int = Field(default=5, ge=0, le=20, description="retries of a 429/5xx/refused archive request")
    # -- claim preprocessing and deduplication (crawl-load) --------------------------------
    debunk_patterns_path: Path | None = Field(
        default=None, description="debunk framing patterns (TOML); default: the packaged tasks/debunk_patterns.toml"
    )
    noun_phrase_claims: Literal["active", "review"] = Field(
        default="active",
        description="a false claim that is only a noun phrase once its debunk framing is stripped: kept as the "
                    "claim (active), or sent to review for a person to state it as a claim (review, the method)",
    )
    near_duplicate_threshold: float = Field(
        default=0.8, gt=0, le=1, description="character-shingle Jaccard similarity that makes two claims one cluster"
    )
    shingle_size: int = Field(default=4, ge=2, le=10, description="characters per shingle for near-duplicate claims")

    @model_validator(mode="after")
    def _archive_window(self) -> "CrawlSettings":
        if self.archive_from > self.archive_to:
            raise ValueError(f"crawl.archive_from ({self.archive_from}) is after crawl.archive_to ({self.archive_to})")
        return self

    @property
    def availability_url(self) -> str:
        """The availability API to ask for the capture closest to a dead link."""
        if self.archive_availability_url is not None:
            return str(self.archive_availability_url)
        root = str(self.archive_url)
        return WAYBACK_AVAILABILITY_URL if root == WAYBACK_URL else root + "wayback/available"
