"""The CDX lookup of a replayed page's other captures reads past its first page when that does not
hold the nearest ones: a server that lists the captures of other years first (it ignored ``from``/``to``),
or a page the archive indexed more captures of, earlier in the days, after discovery listed it. It
stops once no later row can be nearer, and at :data:`MAX_LOOKUP_PAGES` pages when the archive hands
out resume keys for ever."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from arastance.base.captures import capture_time, capture_url
from helpers_spiders import Listed, claims_of, crawl_settings, pages_of, snapshot_root
from snapshots.archive_emulator import INDEX_FILE, Answer, WaybackEmulator
from snapshots.server import SnapshotServer
from spiders.archive_captures import CDX_ROWS, MAX_LOOKUP_PAGES, MAX_OTHER_CAPTURES, lookup_settled
from tasks.crawl_runner import CrawlResult, archive_claim_captures, run_spider

pytestmark = pytest.mark.slow

SITE = "araanews"
#: The capture the archive replays in place of the listed one: years after the crawl's 2012-2018.
FAR = "20220615000000"
CDX_PATH = "/archive/cdx/search/cdx"
#: Captures of the post before the listed one, hourly: more than the lookup's first page holds.
EARLIER = CDX_ROWS + 10
#: Captures of the post after the listed one, daily: the nearest are the first of them.
LATER = 45


class DaysIgnored(WaybackEmulator):
    """An archive (or a proxy before it) that drops a CDX query's ``from``/``to``: every year's captures,
    oldest first."""

    def cdx(self, q: dict[str, list[str]]) -> Answer:
        return super().cdx({k: v for k, v in q.items() if k not in ("from", "to")})


class KeysForEver(DaysIgnored):
    """An archive that answers every page of a CDX query as its first, with a resume key again."""

    def cdx(self, q: dict[str, list[str]]) -> Answer:
        return super().cdx({k: v for k, v in q.items() if k != "resumeKey"})


class LaterPagesFail(WaybackEmulator):
    """An archive that answers the first page of a CDX query, and 503 to every later one."""

    def cdx(self, q: dict[str, list[str]]) -> Answer:
        return Answer(503, b"Service Unavailable", "text/plain") if q.get("resumeKey") else super().cdx(q)


@dataclass(frozen=True)
class Crawled:
    listed: Listed  # the post's listed capture, replayed as its 2022 one
    result: CrawlResult
    lookups: list[dict[str, list[str]]]  # the spider's CDX queries of the post, as the archive answered them


def _stamp(moment: datetime) -> str:
    return f"{moment:%Y%m%d%H%M%S}"


def _crawl(tmp_path_factory: pytest.TempPathFactory, archive: type[WaybackEmulator], earlier_from: date) -> Crawled:
    """An archive crawl whose discovery listed a post's first capture; then the archive holds
    :data:`EARLIER` captures of it from ``earlier_from`` on, hourly, :data:`LATER` daily after the listed
    one, and a 2022 one that it replays the listed one as; ``archive`` answers the crawl."""
    root = tmp_path_factory.mktemp("lookup") / "web"
    shutil.copytree(snapshot_root(), root)  # the built snapshots are shared by the process's tests
    with SnapshotServer(root) as srv:
        settings = crawl_settings(root.parent / "data", srv, archive_url=srv.archive_url,
                                  archive_delay_s=0.0, archive_page_size=25)
        captures, _ = archive_claim_captures(SITE, settings)  # the crawl reads discovery's cache
        index = json.loads((root / INDEX_FILE).read_text(encoding="utf-8"))
        posts = [c for c in index["captures"] if c["original"].startswith("https://araanews.ae/20") and c.get("file")
                 and not c.get("redirect_to") and c["timestamp"] < "2018"]
        post, other = posts[0], posts[1]
        listed = Listed(post["timestamp"], post["original"])
        assert listed in {(c.timestamp, c.original) for c in captures}
        start = datetime.combine(earlier_from, datetime.min.time())
        moments = ([start + timedelta(hours=n) for n in range(EARLIER)]
                   + [capture_time(listed.timestamp) + timedelta(days=n + 1) for n in range(LATER)])
        index["captures"] += [{**post, "timestamp": _stamp(m), "digest": f"MORE{n}"} for n, m in enumerate(moments)]
        index["captures"].append({**post, "timestamp": FAR, "file": other["file"], "digest": "LATER"})
        (root / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
        srv.archive = archive(root)  # the archive indexed them after discovery listed the post
        srv.faults[unquote(urlsplit(capture_url(srv.archive_url, *listed)).path)] = {
            "redirect": capture_url(srv.archive_url, FAR, listed.original)}
        before = len(srv.requests)
        result = run_spider(SITE, settings, mode="archive", timeout_s=120)
        asked = srv.requests[before:]
    lookups = [parse_qs(r.query) for r in asked if r.path == CDX_PATH and r.status == 200]
    return Crawled(listed, result, [q for q in lookups if q["url"] == [listed.original]])


def _day_after(listed: Listed) -> str:
    """The capture nearest the listed one: a day after it."""
    return _stamp(capture_time(listed.timestamp) + timedelta(days=1))


def _page_of(result: CrawlResult, original: str) -> dict[str, Any]:
    [page] = [p for p in pages_of(result) if p["original_url"] == original]
    return page


@pytest.mark.parametrize(("archive", "earlier_from"), [(DaysIgnored, date(2011, 11, 1)),
                                                       (WaybackEmulator, date(2012, 1, 1))],
                         ids=["other_years_listed_first", "earlier_captures_of_the_days"])
def test_the_lookup_reads_on_to_the_captures_nearest_the_listed_one(
        tmp_path_factory: pytest.TempPathFactory, archive: type[WaybackEmulator], earlier_from: date) -> None:
    # it was: the lookup read its first page only: the post was a failed page (none of the days listed),
    # or read from a capture of 2012, years from the listed one, while one a day after it was there
    crawled = _crawl(tmp_path_factory, archive, earlier_from)
    page = _page_of(crawled.result, crawled.listed.original)
    assert page["parse_status"] == "ok" and f"/web/{_day_after(crawled.listed)}id_/" in page["url"]
    assert [c for c in claims_of(crawled.result) if c["url"] == crawled.listed.original.rstrip("/")]
    first, second = crawled.lookups  # the second page settles it: its last rows are weeks after the listed one
    assert "resumeKey" not in first and second["resumeKey"]
    assert crawled.result.summary["stats"]["arastance/archive_other_captures_page_followed"] == 1
    for query in crawled.lookups:
        assert (query["from"], query["to"], query["limit"]) == (["20120101"], ["20181231"], [str(CDX_ROWS)])


def test_an_archive_handing_out_resume_keys_for_ever_is_read_to_the_bound(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    crawled = _crawl(tmp_path_factory, KeysForEver, date(2011, 11, 1))
    assert len(crawled.lookups) == MAX_LOOKUP_PAGES
    page = _page_of(crawled.result, crawled.listed.original)
    assert page["parse_status"] == "failed" and page["parse_error"].startswith("capture_outside_window: ")
    assert (f"1 capture tried: the first {MAX_LOOKUP_PAGES} pages of the archive's list of the page's others "
            "(MAX_LOOKUP_PAGES) hold none within the crawl's days") in page["parse_error"]
    log = crawled.result.log_file.read_text(encoding="utf-8")
    assert "cut at its page bound" in log and f"max_lookup_pages={MAX_LOOKUP_PAGES}" in log
    stats = crawled.result.summary["stats"]
    assert stats["arastance/archive_other_captures_pages_cut"] == 1
    assert stats["arastance/archive_other_captures_page_followed"] == MAX_LOOKUP_PAGES - 1


def test_a_later_page_of_the_lookup_that_fails_leaves_the_captures_of_those_before(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    crawled = _crawl(tmp_path_factory, LaterPagesFail, date(2012, 1, 1))
    page = _page_of(crawled.result, crawled.listed.original)
    last_of_first_page = _stamp(datetime(2012, 1, 1) + timedelta(hours=CDX_ROWS - 1))
    assert page["parse_status"] == "ok" and f"/web/{last_of_first_page}id_/" in page["url"]
    assert len(crawled.lookups) == 1 and "broke off; the captures it listed are tried" in (
        crawled.result.log_file.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("found", "read_to", "settled"), [
    (["20150102000000", "20150103000000", "20150104000000"], "20150104000000", True),
    (["20150102000000", "20150103000000", "20150104000000"], "20150103120000", False),  # a later row may be nearer
    (["20150102000000", "20150103000000"], "20170101000000", False),  # fewer than asked for: later rows may add
    (["20141231000000", "20141230000000", "20141229000000"], "20141231120000", False),  # read to before the listed one
    ([], "20190101000000", True),  # past the crawl's days
])
def test_the_lookup_is_settled_once_no_later_row_can_be_nearer(found: list[str], read_to: str, settled: bool) -> None:
    assert len(found) <= MAX_OTHER_CAPTURES
    assert lookup_settled(found, "20150101000000", read_to, date(2018, 12, 31)) is settled
