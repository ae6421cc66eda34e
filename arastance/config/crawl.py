"""Crawler behaviour: politeness, throttling and incremental re-crawls."""

from pathlib import Path
from typing import Literal

from pydantic import Field

from arastance.config.base import SettingsGroup

#: Our own snapshot server on 127.0.0.1 needs no politeness delays; retries still back off.
LOOPBACK_CRAWL: dict[str, float | bool] = {"download_delay_s": 0.0, "autothrottle": False, "retry_backoff_s": 0.1}


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
    incremental: bool = True
    resumable: bool = Field(default=True, description="keep a Scrapy JOBDIR so an interrupted crawl resumes")
    run_timeout_s: float = Field(
        default=3600.0, gt=0, description="a crawl process running longer is stopped gracefully; the next run resumes it"
    )
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
