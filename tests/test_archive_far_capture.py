"""An archive crawl reads the capture it listed, or one that stands for it: the Wayback Machine replays a
capture it cannot serve as a redirect to another capture of the URL, which may be years after the crawl's
days (the URL then serving another post) or, after a redirect the site made, of another page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from arastance.base.captures import capture_time, capture_url
from helpers_spiders import Listed, canonical_post_url, claims_of, crawl_settings, pages_of, snapshot_root, world
from snapshots.archive_emulator import INDEX_FILE
from snapshots.archive_index import REDIRECT_TARGET, redirected_post
from snapshots.server import SnapshotServer
from tasks.crawl_runner import CrawlResult, archive_claim_captures, run_spider

pytestmark = pytest.mark.slow

SITE = "araanews"
#: When the far capture was taken: years after the crawl's 2012-2018.
FAR = "20220615000000"
#: When the page that discovery reaches through a redirect capture was captured (after the crawl's
#: days), and when the capture the archive replays in its place was taken, hours later.
LATE_TARGET, LATE_REPLAY = "20200115080000", "20200115140000"
#: A page of the site that is no claim page: the archive crawl never asks for it itself.
LISTING = "https://araanews.ae/page/2/"


@dataclass(frozen=True)
class Scenario:
    """The crawl's run, and the listed captures that the archive replayed as others."""

    far: Listed  # as a capture of the same URL in 2022, which serves another post
    near: Listed  # as a capture of the same URL three days later, of the same post
    elsewhere: Listed  # as a capture of a listing page
    result: CrawlResult


def _archive(root: Path) -> dict[Listed, Listed]:
    """Add the captures that the archive replays in place of listed ones to the index under ``root``,
    and move the page that discovery reaches through a redirect capture after the crawl's days; by
    listed capture (far, near, elsewhere, late), the one replayed in its place."""
    index = json.loads((root / INDEX_FILE).read_text(encoding="utf-8"))
    captures: list[dict[str, Any]] = index["captures"]
    posts = [c for c in captures if c["original"].startswith("https://araanews.ae/20") and c.get("file")
             and not c.get("redirect_to") and c["timestamp"] < "2018"]
    far, near, elsewhere, other = (Listed(c["timestamp"], c["original"]) for c in posts[:4])
    near_ts = f"{capture_time(near.timestamp) + timedelta(days=3):%Y%m%d%H%M%S}"
    listing = next(c for c in captures if c["original"] == LISTING)
    for capture in captures:
        if capture["timestamp"] == REDIRECT_TARGET:
            capture["timestamp"] = LATE_TARGET
        if capture.get("redirect_to") == REDIRECT_TARGET:
            capture["redirect_to"] = LATE_TARGET
    moved = next(c for c in captures if c["timestamp"] == LATE_TARGET and c["original"].startswith("https://araanews"))
    captures += [{**posts[0], "timestamp": FAR, "file": posts[3]["file"], "digest": "LATER"},
                 {**posts[1], "timestamp": near_ts}, {**moved, "timestamp": LATE_REPLAY}]
    (root / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
    return {far: Listed(FAR, far.original), near: Listed(near_ts, near.original),
            elsewhere: Listed(listing["timestamp"], LISTING),
            Listed(LATE_TARGET, moved["original"]): Listed(LATE_REPLAY, moved["original"])}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    root = tmp_path_factory.mktemp("far") / "web"
    shutil.copytree(snapshot_root(), root)  # the built snapshots are shared by the process's tests
    replays = _archive(root)
    with SnapshotServer(root) as srv:
        settings = crawl_settings(root.parent / "data", srv, archive_url=srv.archive_url,
                                  archive_delay_s=0.0, archive_page_size=25)
        # Discovery follows the redirect capture to the late one while the archive still serves it; the
        # crawl reads discovery's cache (as a repeated or resumed one does) and gets the replay.
        archive_claim_captures(SITE, settings)
        for listed, replayed in replays.items():
            path = unquote(urlsplit(capture_url(srv.archive_url, *listed)).path)
            srv.faults[path] = {"redirect": capture_url(srv.archive_url, *replayed)}
        result = run_spider(SITE, settings, mode="archive", timeout_s=120)
    far, near, elsewhere, _ = replays
    yield Scenario(far=far, near=near, elsewhere=elsewhere, result=result)


def _claim_of(result: CrawlResult, original: str) -> dict[str, Any] | None:
    return next((c for c in claims_of(result) if c["url"] == original.rstrip("/")), None)


def _failed(result: CrawlResult, reason: str) -> dict[str, Any]:
    [page] = [p for p in pages_of(result) if (p["parse_error"] or "").startswith(f"{reason}:")]
    assert page["parse_status"] == "failed" and result.summary["dropped"][reason] == 1
    assert page["html_file"] is None, "the body is not kept: a re-parse would make it a claim again"
    return page


def test_a_capture_replayed_from_years_later_is_a_failed_page_and_no_claim(scenario: Scenario) -> None:
    # it was: the 2022 capture, another post under the URL, was parsed ok: that post's claim twice,
    # its page stored as captured in 2022
    failed = _failed(scenario.result, "capture_outside_window")
    assert failed["captured_at"].startswith("2022-06-15") and failed["original_url"] == scenario.far.original
    listed = f"{scenario.far.timestamp}id_/{scenario.far.original}"
    assert listed in failed["parse_error"] and "2012-01-01..2018-12-31" in failed["parse_error"]
    assert not [p for p in pages_of(scenario.result) if (p["captured_at"] or "") >= "2022" and p["parse_status"] == "ok"]
    urls = [c["url"] for c in claims_of(scenario.result)]
    assert len(urls) == len(set(urls)), "no claim twice"


def test_a_capture_replayed_as_another_page_is_a_failed_page(scenario: Scenario) -> None:
    failed = _failed(scenario.result, "capture_of_another_page")
    assert failed["original_url"] == LISTING and scenario.elsewhere.original in failed["parse_error"]
    assert _claim_of(scenario.result, scenario.elsewhere.original) is None


def test_a_capture_replayed_from_days_later_within_the_window_is_read(scenario: Scenario) -> None:
    claim = _claim_of(scenario.result, scenario.near.original)
    assert claim is not None
    page = next(p for p in pages_of(scenario.result) if p["page_id"] == claim["page_id"])
    assert page["parse_status"] == "ok"
    replayed = page["url"].split("/web/")[1][:14]
    assert capture_time(replayed) == capture_time(scenario.near.timestamp) + timedelta(days=3)


def test_a_page_discovery_reached_through_a_redirect_is_read_after_the_window(scenario: Scenario) -> None:
    # the README's exception: a claim page the archive holds within the days only as a redirect is read
    # from the capture it leads to, taken after them, here replayed from one taken hours later still
    moved = canonical_post_url(redirected_post(world(), SITE))
    claim = next(c for c in claims_of(scenario.result) if c["url"] == moved)
    page = next(p for p in pages_of(scenario.result) if p["page_id"] == claim["page_id"])
    assert LATE_REPLAY in page["url"] and page["captured_at"].startswith("2020-01-15T14")
    lost = {canonical_post_url(p) for p in world().posts_of(SITE)} - {c["url"] for c in claims_of(scenario.result)}
    assert lost == {scenario.far.original.rstrip("/"), scenario.elsewhere.original.rstrip("/")}
