"""When the archive replays the listed captures of two posts as one capture (the Wayback Machine's answer
to captures it cannot serve: a redirect to the home page's, a listing's), Scrapy fetches that capture
once, for the first post, and its duplicate filter drops the second post's redirect. The second post is
then read from its own other captures within the crawl's days, as the first is, or is a failed page under
its listed address that says why; it no longer vanishes from the run without a trace."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import scrapy

from arastance.base.captures import capture_time, capture_url
from helpers_spiders import Listed, claims_of, crawl_settings, pages_of, snapshot_root
from snapshots.archive_emulator import INDEX_FILE
from snapshots.server import SnapshotServer
from tasks.crawl_runner import CrawlResult, archive_claim_captures, run_spider

pytestmark = pytest.mark.slow

SITE = "araanews"
#: The page whose capture the archive replays both listed captures as.
LISTING = "https://araanews.ae/page/2/"
CDX_PATH = "/archive/cdx/search/cdx"
#: How long the archive takes to answer the second post's listed capture: its redirect comes after the
#: first's has been asked for, so that it is the one the duplicate filter drops.
SECOND_DELAY_S = 1.0


@dataclass(frozen=True)
class Crawled:
    first: Listed  # its listed capture's redirect fetched the listing's capture
    second: Listed  # its listed capture's redirect, answered later, was dropped as a duplicate
    second_address: str  # the second's listed capture, as the spider asked for it
    result: CrawlResult
    looked_up: list[str]  # the pages whose other captures the spider asked the archive's CDX API for


def _later(timestamp: str, days: int) -> str:
    return f"{capture_time(timestamp) + timedelta(days=days):%Y%m%d%H%M%S}"


def _path(address: str) -> str:
    return unquote(urlsplit(address).path)


def _crawl(tmp_path_factory: pytest.TempPathFactory, second_has_another: bool) -> Crawled:
    """An archive crawl whose archive redirects two posts' listed captures to the listing page's capture,
    the second's after :data:`SECOND_DELAY_S`; the first post has a second capture 40 days after its
    listed one, and so has the second when ``second_has_another``."""
    root = tmp_path_factory.mktemp("dropped") / "web"
    shutil.copytree(snapshot_root(), root)  # the built snapshots are shared by the process's tests
    index = json.loads((root / INDEX_FILE).read_text(encoding="utf-8"))
    captures: list[dict[str, Any]] = index["captures"]
    posts = [c for c in captures if c["original"].startswith("https://araanews.ae/20") and c.get("file")
             and not c.get("redirect_to") and c["timestamp"] < "2018"]
    first, second = (Listed(c["timestamp"], c["original"]) for c in posts[:2])
    assert all(c["original"] not in (first.original, second.original) for c in posts[2:]), "one capture of each"
    captures += [{**post, "timestamp": _later(post["timestamp"], 40), "digest": f"SECOND{n}"}
                 for n, post in enumerate(posts[:2 if second_has_another else 1])]
    (root / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
    listing = next(c for c in captures if c["original"] == LISTING)
    with SnapshotServer(root, slow_delay_s=SECOND_DELAY_S) as srv:
        settings = crawl_settings(root.parent / "data", srv, archive_url=srv.archive_url,
                                  archive_delay_s=0.0, archive_page_size=25)
        listed, _ = archive_claim_captures(SITE, settings)  # the crawl reads discovery's cache
        assert {first, second} <= {(c.timestamp, c.original) for c in listed}, "the first capture of each is listed"
        replayed_as = capture_url(srv.archive_url, listing["timestamp"], LISTING)
        srv.faults[_path(capture_url(srv.archive_url, *first))] = {"redirect": replayed_as}
        srv.faults[_path(capture_url(srv.archive_url, *second))] = {"redirect": replayed_as, "slow": True}
        before = len(srv.requests)
        result = run_spider(SITE, settings, mode="archive", timeout_s=120)
        asked = srv.requests[before:]
    looked_up = [parse_qs(r.query)["url"][0] for r in asked if r.path == CDX_PATH and r.status == 200]
    return Crawled(first, second, capture_url(srv.archive_url, *second), result, looked_up)


def _read_from(result: CrawlResult, post: Listed) -> dict[str, Any]:
    """The page that ``post``'s claim was parsed from."""
    [claim] = [c for c in claims_of(result) if c["url"] == post.original.rstrip("/")]
    [page] = [p for p in pages_of(result) if p["page_id"] == claim["page_id"]]
    return page


def test_two_posts_replayed_as_one_capture_are_each_read_from_their_own_other_capture(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # it was: the second post's redirect was dropped as a duplicate of the first's, only counted
    # (redirected_to_requested): no CDX lookup, no page, no claim
    crawled = _crawl(tmp_path_factory, second_has_another=True)
    for post in (crawled.first, crawled.second):
        page = _read_from(crawled.result, post)
        assert page["parse_status"] == "ok" and f"/web/{_later(post.timestamp, 40)}id_/" in page["url"]
        assert page["original_url"] == post.original
    assert sorted(crawled.looked_up) == sorted([crawled.first.original, crawled.second.original])
    stats = crawled.result.summary["stats"]
    assert stats["arastance/archive_replayed_elsewhere"] == 2 and stats["arastance/archive_other_capture_read"] == 2
    urls = [c["url"] for c in claims_of(crawled.result)]
    assert len(urls) == len(set(urls)), "no claim twice"


def test_a_dropped_post_with_no_other_capture_is_a_failed_page_saying_why(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    crawled = _crawl(tmp_path_factory, second_has_another=False)
    assert _read_from(crawled.result, crawled.first)["parse_status"] == "ok"
    [failed] = [p for p in pages_of(crawled.result) if p["original_url"] == crawled.second.original]
    # under its listed address: the capture it was replayed as is the first post's
    assert failed["url"] == crawled.second_address and failed["parse_status"] == "failed"
    assert failed["http_status"] is None and failed["html_file"] is None
    assert failed["captured_at"].startswith(capture_time(crawled.second.timestamp).strftime("%Y-%m-%dT%H:%M"))
    assert failed["parse_error"] == (
        f"capture_of_another_page: {crawled.second_address} was replayed as a capture of {LISTING}; "
        "1 capture tried: the archive lists no other of the page within the crawl's days")
    assert crawled.second.original in crawled.looked_up
    assert crawled.result.summary["dropped"]["capture_of_another_page"] == 1
    assert not [c for c in claims_of(crawled.result) if c["url"] == crawled.second.original.rstrip("/")]


def test_a_listed_capture_another_listed_one_redirects_to_first_is_read_as_itself(tmp_path: Path) -> None:
    # it was: the later page's own request was dropped as a duplicate of the earlier page's redirect (an
    # old slug's capture 301 to the new slug's); its body was read only as the earlier page's replay, so the
    # later page had no claim, its address held the earlier page's failed row, and the earlier none of its own
    root = tmp_path / "web"
    shutil.copytree(snapshot_root(), root)
    with SnapshotServer(root) as srv:
        settings = crawl_settings(root.parent / "data", srv, archive_url=srv.archive_url,
                                  archive_delay_s=0.0, archive_page_size=25)
        listed = [Listed(c.timestamp, c.original) for c in archive_claim_captures(SITE, settings)[0]]
        old, new = listed[0], listed[-1]  # the new page's own request comes long after the old one's redirect
        old_address, new_address = (capture_url(srv.archive_url, *post) for post in (old, new))
        srv.faults[_path(old_address)] = {"redirect": new_address}
        before = len(srv.requests)
        result = run_spider(SITE, settings, mode="archive", timeout_s=120)
        asked = [r.path for r in srv.requests[before:]]
    assert asked.count(_path(new_address)) == 2, "the redirect's, and its own asked for once more"
    assert result.summary["stats"]["arastance/archive_listed_capture_asked_again"] == 1
    page = _read_from(result, new)
    assert page["parse_status"] == "ok" and _path(page["url"]) == _path(new_address)
    assert [p["parse_status"] for p in pages_of(result) if p["original_url"] == new.original] == ["ok"]
    [failed] = [p for p in pages_of(result) if p["original_url"] == old.original]
    assert failed["url"] == old_address and failed["parse_status"] == "failed" and failed["http_status"] is None
    assert failed["parse_error"] == (
        f"capture_of_another_page: {old_address} was replayed as a capture of {new.original}; "
        "1 capture tried: the archive lists no other of the page within the crawl's days")
    assert len(pages_of(result)) == len(listed), "one row a listed page"


def test_a_listed_capture_a_resumed_crawls_filter_drops_is_not_asked_again(tmp_path: Path) -> None:
    """A resumed crawl's duplicate filter drops every listed capture the run before fetched: those are not
    asked for again (only one a redirect of this process reached first is); else a resumed crawl of
    thousands of captures fetched them all a second time."""
    from scrapy.utils.test import get_crawler

    from spiders.crawlers.sites import SPIDERS

    listed = {"timestamp": "20160504101500", "original": "https://araanews.ae/2016/05/school-closure/"}
    captures = tmp_path / "captures.jsonl"
    captures.write_text(json.dumps(listed) + "\n", encoding="utf-8")
    archive = "http://127.0.0.1:9/archive/"
    crawler = get_crawler(SPIDERS[SITE])
    crawler._apply_settings()
    spider = SPIDERS[SITE].from_crawler(crawler, mode="archive", captures=str(captures), archive_url=archive)
    crawler.spider = spider
    spider._crawling = True
    request = scrapy.Request(capture_url(archive, listed["timestamp"], listed["original"]), callback=spider.parse_capture)
    spider.on_scheduled(request, spider)
    spider.on_dropped(request, spider)  # it was: asked for again, unfiltered (here: no engine to schedule it on)
    assert spider.crawler.stats.get_value("arastance/archive_listed_capture_asked_again") is None
