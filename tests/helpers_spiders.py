"""Shared helpers of the crawl tests: the built snapshots, fast crawl settings, staging readers.

The snapshots are built once per test process (the world is deterministic) into a temporary
directory; every test that needs the web starts its own :class:`SnapshotServer` on them.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from arastance.config import Settings, load_settings
from snapshots.build import build_snapshots
from snapshots.fact_check_sites import CANONICAL_BASE
from snapshots.server import SnapshotServer
from snapshots.world import build_world
from snapshots.world.model import FactCheckPost, World
from tasks.crawl_runner import CrawlResult, run_spider
from arastance.base.urls import canonicalize_url

#: Crawl settings for tests: no politeness delays against our own server, quick retries.
FAST_CRAWL: dict[str, Any] = {
    "download_delay_s": 0.0,
    "autothrottle": False,
    "concurrent_requests_per_domain": 8,
    "retry_times": 2,
    "retry_backoff_s": 0.05,
    "download_timeout_s": 10.0,
}
#: How long the deliberately slow pages take in tests (well under the download timeout).
SLOW_DELAY_S = 0.3


#: The sites of the snapshot world (the paper's four; the config-only sites have no pages).
SITES = ("araanews", "dabegad", "norumors", "reuters")


@cache
def world() -> World:
    return build_world()


@cache
def snapshot_root() -> Path:
    """The built offline web, shared by every test of this process, removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="arastance-snapshots-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    build_snapshots(root / "web", world())
    return root / "web"


def start_server(slow_delay_s: float = SLOW_DELAY_S) -> SnapshotServer:
    return SnapshotServer(snapshot_root(), slow_delay_s=slow_delay_s).start()


@pytest.fixture(scope="module")
def server() -> Iterator[SnapshotServer]:
    """The snapshot world on 127.0.0.1, one server for a test module (import it to use it)."""
    srv = start_server()
    yield srv
    srv.stop()


def crawl_settings(data_dir: Path, server: SnapshotServer, **crawl: Any) -> Settings:
    """Settings that point every spider at ``server`` and crawl fast."""
    sites = {site: server.site_url(site) for site in ("araanews", "dabegad", "norumors", "reuters")}
    return load_settings(data_dir=data_dir, sites=sites, crawl={**FAST_CRAWL, **crawl})


#: The listing pages (with the snapshot's extra pages: removed, failing, disallowed) are what the
#: crawl tests walk; the other discovery methods have their own tests.
LISTING_ONLY = {"discovery": "listing"}


def crawl(site: str, data_dir: Path, server: SnapshotServer, *, known_urls: tuple[str, ...] = (),
          spider_args: dict[str, str] | None = None, **crawl: Any) -> CrawlResult:
    """One real crawl of ``site`` over HTTP, in its own process (listing discovery unless told)."""
    return run_spider(site, crawl_settings(data_dir, server, **crawl), known_urls=known_urls, timeout_s=120,
                      spider_args=LISTING_ONLY if spider_args is None else spider_args)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def claims_of(result: CrawlResult) -> list[dict[str, Any]]:
    return read_jsonl(result.run_dir / "claims.jsonl")


def pages_of(result: CrawlResult) -> list[dict[str, Any]]:
    return read_jsonl(result.run_dir / "pages.jsonl")


def collapse(text: str) -> str:
    return " ".join(text.split())


def canonical_post_url(post: FactCheckPost) -> str:
    """The canonical URL a claim of ``post`` must carry (the real site's, no trailing slash)."""
    return canonicalize_url(CANONICAL_BASE[post.site] + post.path.lstrip("/"))


def post_by_url(site: str) -> dict[str, FactCheckPost]:
    return {canonical_post_url(p): p for p in world().posts_of(site)}


class Listed(NamedTuple):
    """A capture of the archive crawl tests, as discovery lists it: when it was taken, and of what URL."""

    timestamp: str
    original: str
