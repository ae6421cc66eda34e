"""When the Wayback Machine replays a listed 2012-2018 capture as a capture from another year (or of
another page), the archive crawl reads the page from another of its captures within the crawl's days,
nearest the listed one first; the page is a failed page only when none replays as itself. A page whose
listed capture replays as itself costs no request more."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from arastance.base.captures import capture_time, capture_url
from helpers_spiders import Listed, claims_of, crawl_settings, pages_of, snapshot_root
from snapshots.archive_emulator import INDEX_FILE
from snapshots.server import RequestRecord, SnapshotServer
from spiders.archive_captures import MAX_OTHER_CAPTURES, nearest_others
from tasks.crawl_runner import CrawlResult, archive_claim_captures, run_spider

SITE = "araanews"
#: When the captures the archive replays in place of listed ones were taken: years after the crawl's days.
FAR = "20220615000000"
LISTING = "https://araanews.ae/page/2/"
CDX_PATH = "/archive/cdx/search/cdx"


@dataclass(frozen=True)
class Scenario:
    recovered: Listed  # replayed as 2022; its second capture, 40 days later, replays as itself
    lost: Listed  # replayed as 2022, and so is its second capture
    elsewhere: Listed  # replayed as a listing page's capture; its second capture replays as itself
    result: CrawlResult
    #: What the archive was asked while the spider crawled (not during discovery).
    crawl_requests: list[RequestRecord]
    listed: int  # captures the crawl was given


def later(timestamp: str, days: int) -> str:
    return f"{capture_time(timestamp) + timedelta(days=days):%Y%m%d%H%M%S}"


def _archive(root: Path) -> tuple[list[Listed], dict[str, str]]:
    """Give three posts of the index under ``root`` a second capture 40 days after their first and a
    2022 capture holding another post; the three listed captures, and the redirects (capture path to
    capture address, relative to the archive) that make the archive replay captures as others."""
    index = json.loads((root / INDEX_FILE).read_text(encoding="utf-8"))
    captures: list[dict[str, Any]] = index["captures"]
    posts = [c for c in captures if c["original"].startswith("https://araanews.ae/20") and c.get("file")
             and not c.get("redirect_to") and c["timestamp"] < "2018"]
    chosen, other = posts[:3], posts[3]
    for n, post in enumerate(chosen):
        captures += [{**post, "timestamp": later(post["timestamp"], 40), "digest": f"SECOND{n}"},
                     {**post, "timestamp": FAR, "file": other["file"], "digest": "LATER"}]
    (root / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
    recovered, lost, elsewhere = (Listed(c["timestamp"], c["original"]) for c in chosen)
    listing = next(c for c in captures if c["original"] == LISTING)
    replays = {recovered: Listed(FAR, recovered.original), lost: Listed(FAR, lost.original),
               Listed(later(lost.timestamp, 40), lost.original): Listed(FAR, lost.original),
               elsewhere: Listed(listing["timestamp"], LISTING)}
    return [recovered, lost, elsewhere], {capture_url("/archive/", *a): capture_url("/archive/", *b)
                                          for a, b in replays.items()}


def _crawl(tmp_path_factory: pytest.TempPathFactory, rate_limit: int, cdx_fault: dict[str, Any] | None = None) -> Scenario:
    """An archive crawl of the snapshots with three posts' listed captures replayed as others; every
    ``rate_limit``-th archive request refused with 429 (0: none), the spider's CDX lookups answered
    with ``cdx_fault`` (a snapshot server fault) when given."""
    root = tmp_path_factory.mktemp("replay") / "web"
    shutil.copytree(snapshot_root(), root)  # the built snapshots are shared by the process's tests
    listed, redirects = _archive(root)
    with SnapshotServer(root) as srv:
        settings = crawl_settings(root.parent / "data", srv, archive_url=srv.archive_url,
                                  archive_delay_s=0.0, archive_page_size=25)
        captures, _ = archive_claim_captures(SITE, settings)  # the crawl reads discovery's cache
        assert {(c.timestamp, c.original) for c in captures} >= set(listed), "the first capture of each is listed"
        for path, location in redirects.items():
            srv.faults[unquote(urlsplit(path).path)] = {"redirect": location}
        if cdx_fault is not None:
            srv.faults[CDX_PATH] = cdx_fault
        assert srv.archive is not None
        srv.archive.limit_rate(rate_limit)  # 429 with Retry-After: 0, as the busy archive answers
        before = len(srv.requests)
        result = run_spider(SITE, settings, mode="archive", timeout_s=120)
        crawl_requests = srv.requests[before:]
    recovered, lost, elsewhere = listed
    return Scenario(recovered=recovered, lost=lost, elsewhere=elsewhere, result=result,
                    crawl_requests=crawl_requests, listed=len(captures))


@pytest.fixture(scope="module", params=[0, 3], ids=["archive_answers", "archive_refuses_every_3rd"])
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    yield _crawl(tmp_path_factory, request.param)


def _claim_page(result: CrawlResult, original: str) -> dict[str, Any]:
    [claim] = [c for c in claims_of(result) if c["url"] == original.rstrip("/")]
    [page] = [p for p in pages_of(result) if p["page_id"] == claim["page_id"]]
    return page


def _cdx_lookups(scenario: Scenario) -> list[dict[str, list[str]]]:
    """The spider's CDX queries that the archive answered (a refused one is sent again)."""
    return [parse_qs(r.query) for r in scenario.crawl_requests if r.path == CDX_PATH and r.status == 200]


@pytest.mark.slow
def test_a_capture_replayed_from_another_year_is_read_from_another_capture_in_the_days(scenario: Scenario) -> None:
    # it was: a failed page capture_outside_window, and the post's claim lost
    page = _claim_page(scenario.result, scenario.recovered.original)
    second = later(scenario.recovered.timestamp, 40)
    assert page["parse_status"] == "ok" and f"/web/{second}id_/" in page["url"]
    assert page["captured_at"].startswith(capture_time(second).strftime("%Y-%m-%dT%H:%M"))
    assert page["original_url"] == scenario.recovered.original
    assert not [p for p in pages_of(scenario.result) if (p["captured_at"] or "") >= "2022" and p["parse_status"] == "ok"]
    urls = [c["url"] for c in claims_of(scenario.result)]
    assert len(urls) == len(set(urls)), "no claim twice"


@pytest.mark.slow
def test_a_capture_replayed_as_another_page_is_read_from_another_capture(scenario: Scenario) -> None:
    page = _claim_page(scenario.result, scenario.elsewhere.original)
    assert page["parse_status"] == "ok" and f"/web/{later(scenario.elsewhere.timestamp, 40)}id_/" in page["url"]


@pytest.mark.slow
def test_a_page_none_of_whose_captures_replays_as_itself_is_a_failed_page(scenario: Scenario) -> None:
    [failed] = [p for p in pages_of(scenario.result) if p["original_url"] == scenario.lost.original]
    assert failed["parse_status"] == "failed" and failed["html_file"] is None
    listed = capture_url("/archive/", *scenario.lost)
    assert failed["parse_error"].startswith("capture_outside_window: ") and f"{listed} was replayed" in failed["parse_error"]
    assert "2 captures tried (the listed one and 1 other(s) within the crawl's days)" in failed["parse_error"]
    assert failed["captured_at"].startswith("2022-06-15"), "the listed capture's replay, as before"
    assert scenario.result.summary["dropped"]["capture_outside_window"] == 1
    assert not [c for c in claims_of(scenario.result) if c["url"] == scenario.lost.original.rstrip("/")]


@pytest.mark.slow
@pytest.mark.parametrize("fault", [{"redirect": "/araanews/"}, {"redirect": CDX_PATH + "?again=1"}],
                         ids=["lookup_redirected_to_a_page", "lookup_redirected_to_itself"])
def test_a_lookup_the_archive_redirects_fails_each_replayed_page_it_was_for(
        tmp_path_factory: pytest.TempPathFactory, fault: dict[str, Any]) -> None:
    # it was: the lookups after the first were dropped as duplicates, so two replayed posts left no trace,
    # or the lookup's own address was stored as a page (redirect_loop)
    crawled = _crawl(tmp_path_factory, 0, fault)
    failed = [p["parse_error"] for p in pages_of(crawled.result)
              if "1 capture tried: the archive's list of the page's others" in (p["parse_error"] or "")]
    for post in (crawled.recovered, crawled.lost, crawled.elsewhere):  # each under the capture it was replayed as
        assert sum(f"{capture_url('/archive/', *post)} was replayed as" in error for error in failed) == 1
    assert len(failed) == 3 and not [p for p in pages_of(crawled.result) if CDX_PATH in p["url"]]


@pytest.mark.slow
def test_only_a_replayed_capture_costs_a_cdx_lookup_of_the_days(scenario: Scenario) -> None:
    lookups = _cdx_lookups(scenario)
    assert sorted(q["url"][0] for q in lookups) == sorted(
        [scenario.recovered.original, scenario.lost.original, scenario.elsewhere.original])
    for query in lookups:
        assert (query["from"], query["to"]) == (["20120101"], ["20181231"])
        assert "statuscode:200" in query["filter"] and query["collapse"] == ["digest"]
    answered = [r for r in scenario.crawl_requests if r.path.startswith("/archive/web/") and r.status == 200]
    # each listed capture once, and the two second captures that replay as themselves; the 2022 one
    # three times (the two listed captures and the lost page's second one are replayed as it)
    assert len(answered) == scenario.listed - 3 + 2 + 3


@pytest.mark.parametrize(("timestamps", "tried", "expected"), [
    (["20150101000000", "20150301000000", "20140101000000", "20160101000000", "20150102000000"],
     {"20150101000000"}, ["20150102000000", "20150301000000", "20140101000000"]),
    (["20110101000000", "20190101000000", "20150102000000", "20150103000000"], {"20150103000000"},
     ["20150102000000"]),
])
def test_other_captures_are_those_of_the_days_nearest_the_listed_one_first(
        timestamps: list[str], tried: set[str], expected: list[str]) -> None:
    found = nearest_others(timestamps, "20150101000000", tried, date(2012, 1, 1), date(2018, 12, 31))
    assert found == expected and len(found) <= MAX_OTHER_CAPTURES
