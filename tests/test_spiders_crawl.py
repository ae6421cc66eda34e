"""Every spider crawls its snapshot site over real HTTP, in its own process, like `scrapy crawl`."""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers_disk import read_only, small_disk

from helpers_spiders import (
    canonical_post_url,
    claims_of,
    collapse,
    crawl,
    crawl_settings,
    LISTING_ONLY,
    pages_of,
    post_by_url,
    SITES,
    read_jsonl,
    server,  # noqa: F401 - a fixture
    start_server,
    world,
)
from snapshots.build import EXTRA_PATHS
from snapshots.fact_check_sites import CANONICAL_BASE, category_label, has_unclosed_markup, hides_category
from snapshots.server import SnapshotServer
from tasks import scrapy_launcher
from tasks.crawl_runner import CrawlError, CrawlResult, run_spider, unloaded_runs
from arastance.base.urls import canonicalize_url
from arastance.base.ids import content_hash

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def full_crawls(server: SnapshotServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, CrawlResult]:
    data_dir = tmp_path_factory.mktemp("crawl-data")
    with ThreadPoolExecutor(max_workers=len(SITES)) as pool:  # one process per spider, side by side
        futures = {site: pool.submit(crawl, site, data_dir, server) for site in SITES}
        return {site: future.result() for site, future in futures.items()}


@pytest.mark.parametrize("site", ["araanews", "dabegad", "norumors"])
def test_a_full_crawl_yields_every_post_with_the_worlds_fields(site: str, full_crawls: dict[str, CrawlResult]) -> None:
    claims = claims_of(full_crawls[site])
    expected = post_by_url(site)
    assert sorted(c["url"] for c in claims) == sorted(expected)
    for claim in claims:
        post = expected[claim["url"]]
        assert claim["source_id"] == site and claim["veracity"] == "false"
        assert claim["title"] == collapse(post.title)
        assert claim["claim_text"] == collapse(post.claim_text)
        assert claim["body_text"] == "\n".join(collapse(p) for p in post.body)
        assert claim["published_date"] == (post.published.isoformat() if post.published else None)
        assert claim["category"] == (None if hides_category(post) else category_label(post.category))
        assert claim["is_multimedia"] is post.multimedia
        assert claim["run_id"] == full_crawls[site].run_id


def test_chosen_pages_carry_exactly_what_the_site_published(full_crawls: dict[str, CrawlResult]) -> None:
    by_url = {c["url"]: c for site in ("araanews", "norumors") for c in claims_of(full_crawls[site])}
    araanews = [p for p in world().posts_of("araanews") if p.claim_text and not p.multimedia and p.published]
    broken = next(p for p in araanews if has_unclosed_markup(p))
    claim = by_url[canonical_post_url(broken)]
    assert claim["body_text"].split("\n") == [collapse(p) for p in broken.body]
    assert claim["published_raw"][0] in "٠١٢٣٤٥٦٧٨٩"
    norumors = next(p for p in world().posts_of("norumors") if p.published and p.claim_text and not p.multimedia)
    claim = by_url[canonical_post_url(norumors)]
    assert claim["published_raw"].endswith("هـ")
    assert claim["published_date"] == norumors.published.isoformat()


def test_reuters_yields_every_headline_as_a_true_claim(full_crawls: dict[str, CrawlResult]) -> None:
    claims = {c["url"]: c for c in claims_of(full_crawls["reuters"])}
    headlines = {canonicalize_url(CANONICAL_BASE["reuters"] + h.path.lstrip("/")): h for h in world().headlines}
    assert set(claims) == set(headlines)
    for url, h in headlines.items():
        claim = claims[url]
        assert claim["veracity"] == "true"
        assert claim["claim_text"] == claim["title"] == collapse(h.title)
        assert claim["published_date"] == h.published.date().isoformat()


@pytest.mark.parametrize("site", SITES)
def test_pagination_walks_every_listing_page(site: str, full_crawls: dict[str, CrawlResult], server: SnapshotServer) -> None:
    stats = full_crawls[site].summary["stats"]
    per_page = 10
    items = (len(world().headlines) if site == "reuters" else len(world().posts_of(site))) + len(EXTRA_PATHS)
    assert stats["arastance/listing_pages"] == -(-items // per_page)
    listings = [p for p in pages_of(full_crawls[site]) if p["parse_status"] == "skipped"]
    assert len(listings) == stats["arastance/listing_pages"]
    assert all(p["html_file"] is None for p in listings)


@pytest.mark.parametrize("site", SITES)
def test_failures_are_recorded_and_never_stop_the_crawl(site: str, full_crawls: dict[str, CrawlResult]) -> None:
    result = full_crawls[site]
    summary = result.summary
    assert summary["dropped"] == {"http_404": 1, "http_500": 1, "parse_failed": 1, "robots_disallowed": 1}
    assert summary["errors"] == 3
    failed = {p["url"].split(f"/{site}", 1)[1]: p for p in pages_of(result) if p["parse_status"] == "failed"}
    assert set(failed) == {EXTRA_PATHS["removed"], EXTRA_PATHS["server_error"], EXTRA_PATHS["broken"]}
    assert failed[EXTRA_PATHS["removed"]]["http_status"] == 404
    assert failed[EXTRA_PATHS["server_error"]]["http_status"] == 500
    broken = failed[EXTRA_PATHS["broken"]]
    assert broken["http_status"] == 200 and broken["parse_error"].startswith("parse_failed: missing required field(s): title")
    raw = gzip.decompress((result.run_dir / broken["html_file"]).read_bytes()).decode("utf-8")
    assert "قاعدة البيانات" in raw, "the raw HTML of a page that failed to parse is kept"
    stats = summary["stats"]
    assert stats["retry/count"] >= 3  # 2 retries of the permanent 500, 1 of the transient 503
    assert stats.get("arastance/failed/http_503") is None, "the transient 503 recovered after a retry"
    # Backoff doubles from retry_backoff_s: 0.05 + 0.10 before giving up on the 500, 0.05 before
    # the 503's successful retry (and before Reuters' second listing page, which fails once).
    assert stats["retry/backoff_seconds"] == pytest.approx(0.25 if site == "reuters" else 0.2)


def test_every_page_record_follows_the_staging_contract(full_crawls: dict[str, CrawlResult]) -> None:
    result = full_crawls["dabegad"]
    run = json.loads((result.run_dir / "run.json").read_text(encoding="utf-8"))
    assert set(run) == {"run_id", "source_id", "started_at", "finished_at", "pages", "items", "errors", "dropped", "stats",
                        "files"}
    claims, pages = claims_of(result), pages_of(result)
    assert run["items"] == len(claims) and run["pages"] == len(pages)
    for name, lines in (("claims.jsonl", len(claims)), ("pages.jsonl", len(pages))):  # the loader's manifest
        data = (result.run_dir / name).read_bytes()
        assert run["files"][name] == {"lines": lines, "sha256": hashlib.sha256(data).hexdigest()}
    assert set(pages[0]) == {"run_id", "page_id", "url", "source_id", "fetched_at", "http_status", "content_hash",
                             "html_file", "parse_status", "parse_error", "original_url", "captured_at"}
    assert all(p["original_url"] is None and p["captured_at"] is None for p in pages), "live pages are not captures"
    assert set(claims[0]) == {"run_id", "source_id", "url", "title", "claim_text", "body_text", "published_raw",
                              "published_date", "category", "is_multimedia", "claim_review", "veracity", "page_id",
                              "fetched_at", "field_layers"}
    assert all(c["field_layers"]["title"] == "css" for c in claims)
    ok_pages = {p["page_id"]: p for p in pages if p["parse_status"] == "ok"}
    assert {c["page_id"] for c in claims} == set(ok_pages)
    for page in ok_pages.values():
        body = gzip.decompress((result.run_dir / page["html_file"]).read_bytes())
        assert content_hash(body) == page["content_hash"]


def test_robots_txt_is_obeyed(full_crawls: dict[str, CrawlResult], server: SnapshotServer) -> None:
    requested = server.paths_requested()
    assert "/robots.txt" in requested
    assert not [p for p in requested if "/private/" in p], "no disallowed page was fetched"
    agents = {r.user_agent for r in server.requests}
    assert agents and all(a and a.startswith("AraStancePipeline/") for a in agents)
    for result in full_crawls.values():
        assert result.summary["stats"]["robotstxt/forbidden"] == 1


def test_an_incremental_recrawl_fetches_nothing_known(full_crawls: dict[str, CrawlResult], server: SnapshotServer,
                                                      tmp_path: Path) -> None:
    first = full_crawls["norumors"]
    known = tuple(c["url"] for c in claims_of(first))
    second = crawl("norumors", tmp_path / "data", server, known_urls=known)
    assert claims_of(second) == []
    stats = second.summary["stats"]
    assert stats["arastance/pagination_stopped"] == 1 and stats["arastance/listing_pages"] == 1
    assert stats["downloader/request_count"] <= 3  # robots.txt and the first listing page
    assert first.summary["stats"]["downloader/request_count"] > 10 * stats["downloader/request_count"]


def test_an_incremental_crawl_fetches_only_the_new_posts(full_crawls: dict[str, CrawlResult], server: SnapshotServer,
                                                         tmp_path: Path) -> None:
    claims = claims_of(full_crawls["araanews"])
    newest = {canonical_post_url(p) for p in sorted((p for p in world().posts_of("araanews") if p.published),
                                                    key=lambda p: p.published, reverse=True)[:3]}
    known = tuple(c["url"] for c in claims if c["url"] not in newest)
    second = crawl("araanews", tmp_path / "data", server, known_urls=known)
    assert {c["url"] for c in claims_of(second)} == newest
    assert second.summary["stats"]["arastance/listing_pages"] == 2


def test_a_page_slower_than_the_timeout_is_recorded_and_the_crawl_goes_on(tmp_path: Path) -> None:
    slow = start_server(slow_delay_s=2.0)
    try:
        result = crawl("dabegad", tmp_path / "data", slow, download_timeout_s=0.7, retry_times=1)
    finally:
        slow.stop()
    timeouts = [p for p in pages_of(result) if (p["parse_error"] or "").startswith("timeout")]
    assert len(timeouts) == 1 and timeouts[0]["http_status"] is None and timeouts[0]["html_file"] is None
    assert result.summary["dropped"] == {"http_404": 1, "http_500": 1, "parse_failed": 1, "robots_disallowed": 1,
                                         "timeout": 1}
    assert len(claims_of(result)) == len(world().posts_of("dabegad")) - 1


def test_a_page_that_redirects_to_itself_is_a_failed_page_not_a_silent_loss(tmp_path: Path) -> None:
    # it was: Scrapy's duplicate filter dropped the redirect, and the page left no record and no count
    looping, moved = world().posts_of("dabegad")[:2]
    srv = start_server()
    loop_path = f"/dabegad/{canonical_post_url(looping).removeprefix('https://dabegad.com/')}/"
    moved_path = f"/dabegad/{canonical_post_url(moved).removeprefix('https://dabegad.com/')}/"
    srv.faults[loop_path] = {"redirect": loop_path}
    srv.faults[moved_path] = {"redirect": loop_path}  # to a page the crawl asked for already
    try:
        result = crawl("dabegad", tmp_path / "data", srv)
    finally:
        srv.stop()
    [failed] = [p for p in pages_of(result) if (p["parse_error"] or "").startswith("redirect_loop")]
    assert failed["url"] == srv.base_url.rstrip("/") + loop_path and failed["http_status"] is None
    assert result.summary["dropped"]["redirect_loop"] == 1
    assert result.summary["stats"]["arastance/redirected_to_requested"] == 1
    assert {canonical_post_url(looping), canonical_post_url(moved)}.isdisjoint(c["url"] for c in claims_of(result))


def test_a_discovery_address_that_redirects_to_itself_moves_discovery_on_like_an_error(tmp_path: Path) -> None:
    # it was: the dropped redirect fired neither callback nor errback, discovery ended there and the crawl found nothing
    results = {}
    for fault in ({"status": 404}, {"redirect": "/dabegad/wp-sitemap.xml"}):
        srv = start_server()
        srv.faults["/dabegad/wp-sitemap.xml"] = fault
        try:
            results[next(iter(fault))] = crawl("dabegad", tmp_path / next(iter(fault)), srv,
                                               spider_args={"discovery": "sitemap,feed,listing"})
        finally:
            srv.stop()
    missing, looping = results["status"], results["redirect"]
    assert sorted(c["url"] for c in claims_of(looping)) == sorted(c["url"] for c in claims_of(missing))
    assert len(claims_of(looping)) > 0 and "redirect_loop" not in looping.summary["dropped"]
    failed = "arastance/discovery/sitemap_failed"
    assert looping.summary["stats"][failed] == missing.summary["stats"][failed] > 0


def test_a_crawl_stopped_half_way_resumes_where_it_stopped(tmp_path: Path) -> None:
    slow = start_server()
    # A slow site: 250 pages (26 listing pages one after another) cannot be fetched within the
    # time limit, which still leaves a loaded machine time to start Scrapy and fetch some.
    slow.latency_s = 1.0
    try:
        settings = crawl_settings(tmp_path / "data", slow)
        with pytest.raises(CrawlError, match="resumes it"):
            run_spider("reuters", settings, timeout_s=20)
        [run_dir] = (tmp_path / "data" / "staging" / "crawl").iterdir()
        first_session = len(read_jsonl(run_dir / "claims.jsonl"))
        assert not (run_dir / "run.json").exists(), "an interrupted run is not offered to the loader"
        slow.latency_s = 0.0
        resumed = run_spider("reuters", settings, timeout_s=60)
    finally:
        slow.stop()
    assert resumed.resumed and resumed.run_dir == run_dir
    urls = [c["url"] for c in claims_of(resumed)]
    assert 0 < first_session < len(urls)
    assert len(urls) == len(set(urls)) == len(world().headlines), "every headline once, none fetched twice"
    assert resumed.summary["stats"]["downloader/request_count"] < len(world().headlines)
    assert not (tmp_path / "data" / "crawl_jobs" / resumed.run_id).exists(), "the JOBDIR goes once the run is done"


def test_a_crawl_killed_past_its_grace_goes_on_with_its_run_from_a_fresh_jobdir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the killed spider's JOBDIR (a 0-byte queue file without its header, no active.json or spider.state)
    # was resumed by every later crawl, which requested nothing and idled to its time limit, to be killed again
    monkeypatch.setattr(scrapy_launcher, "STOP_GRACE_S", 0.0)  # a stop that outlasts its grace: killed at once
    slow = start_server()
    slow.latency_s = 2.0  # the listing pages come one after another: about a third of the site in 10 s
    try:
        settings = crawl_settings(tmp_path / "data", slow)
        with pytest.raises(CrawlError, match="resumes it"):
            run_spider("araanews", settings, timeout_s=10, spider_args=LISTING_ONLY)
        [run_dir] = (tmp_path / "data" / "staging" / "crawl").iterdir()
        first_session = (run_dir / "claims.jsonl").read_text(encoding="utf-8")
        assert first_session and not (tmp_path / "data" / "crawl_jobs" / run_dir.name / "scrapy").exists()
        slow.latency_s = 0.0
        again = run_spider("araanews", settings, timeout_s=120, spider_args=LISTING_ONLY)
    finally:
        slow.stop()
    assert again.resumed and again.run_dir == run_dir, "the run goes on: what it staged is loaded with it"
    assert (run_dir / "claims.jsonl").read_text(encoding="utf-8").startswith(first_session)
    assert {c["url"] for c in claims_of(again)} == set(post_by_url("araanews")), "every post, from a fresh JOBDIR"

def test_a_run_continued_from_a_fresh_jobdir_skips_what_the_warehouse_holds_now(server: SnapshotServer,
                                                                                  tmp_path: Path) -> None:
    # it was: known_urls.txt was written when the run began, so a run continued after its JOBDIR was discarded
    # fetched again every page loaded since
    settings = crawl_settings(tmp_path / "data", server)
    run_id = "araanews-20261201T000000000000"
    job = settings.crawl_jobs_dir / run_id
    job.mkdir(parents=True)
    (job / "known_urls.txt").write_text("", encoding="utf-8")  # the warehouse held nothing when the run began
    scrapy_launcher.discarded_mark(job / "scrapy").touch()  # its spider was killed, its JOBDIR removed
    (settings.staging_dir / "crawl" / run_id).mkdir(parents=True)
    before = len(server.requests)
    again = run_spider("araanews", settings, known_urls=list(post_by_url("araanews")), timeout_s=120,
                       spider_args=LISTING_ONLY)
    assert again.resumed and again.run_id == run_id
    assert again.summary["items"] == 0 and again.summary["dropped"].get("already_known", 0) > 0
    assert len(server.requests) - before < 5, "only the first listing page, every post on it known"


@pytest.mark.parametrize(("full", "leave"), [("staging", 150_000), ("crawl_jobs", 4_000)])
def test_a_crawl_whose_disk_fills_up_stops_at_once_and_the_next_one_takes_every_page(
        full: str, leave: int, server: SnapshotServer, tmp_path: Path) -> None:
    # it was: on a full staging disk the crawl "finished" with a run that could never be loaded (a claim
    # whose page was lost); on a full JOBDIR it sat idle until its one-hour timeout
    expected = len(claims_of(crawl("araanews", tmp_path / "reference", server)))
    data = tmp_path / "data"
    data.mkdir()
    with small_disk(tmp_path, 2) as disk:
        (data / full).symlink_to(disk.root)
        disk.fill(leave=leave)
        started = time.monotonic()
        with pytest.raises(CrawlError, match="stopped: the disk filled up, and no partial staging run is kept") as stop:
            crawl("araanews", data, server)
        assert stop.value.__cause__.errno == errno.ENOSPC, "the child's error, which callers (the flow's retry) read"
        assert time.monotonic() - started < 60
        assert not list((data / "staging" / "crawl").glob("araanews-*")) if (data / "staging" / "crawl").exists() else True
        assert not list((data / "crawl_jobs").glob("araanews-*")), "nothing is left to resume from"
        disk.free()
        again = crawl("araanews", data, server)
        assert not again.resumed and len(claims_of(again)) == expected  # no page lost to the full disk



def test_a_crawl_whose_staging_write_fails_stops_is_never_resumed_and_the_next_one_takes_every_page(
        server: SnapshotServer, tmp_path: Path) -> None:
    # it was: after a write failed for another reason than a full disk (here the disk turned
    # read-only) the crawl went on with every write refused and left its run unfinished with its
    # JOBDIR, and the crawl that resumed it did not fetch the lost pages again (Scrapy had seen them)
    expected = len(claims_of(crawl("araanews", tmp_path / "reference", server)))
    slow = start_server()
    slow.latency_s = 2.0  # the listing pages come one after another: about a third of the site in 10 s
    try:
        settings = crawl_settings(tmp_path / "data", slow)
        with pytest.raises(CrawlError, match="resumes it"):  # an interrupted run, some pages kept
            run_spider("araanews", settings, timeout_s=10, spider_args={"discovery": "listing"})
        [run_dir] = (tmp_path / "data" / "staging" / "crawl").iterdir()
        assert 0 < len(read_jsonl(run_dir / "claims.jsonl")) < expected
        slow.latency_s = 0.0
        with read_only(run_dir / "pages"):
            started = time.monotonic()
            with pytest.raises(CrawlError, match=r"stopped: a write to its staging run failed \(\[Errno 30\] Read-only "
                                                 r"file system: '.*/pages/\w+\.html\.gz'\), and its partial staging "
                                                 r"run .* could not be removed"):
                run_spider("araanews", settings, timeout_s=120, spider_args={"discovery": "listing"})
            assert time.monotonic() - started < 60
        assert not list((tmp_path / "data" / "crawl_jobs").glob("araanews-*")), "nothing is left to resume from"
        again = run_spider("araanews", settings, timeout_s=120, spider_args={"discovery": "listing"})
    finally:
        slow.stop()
    assert not again.resumed and again.run_dir != run_dir
    assert len(claims_of(again)) == expected, "no page lost to the failed writes"
    assert "finish_reason=finished" in again.log_file.read_text(encoding="utf-8")  # it was: the last drop reason


def test_a_finished_crawl_waiting_for_its_load_is_found_after_its_data_directory_moved(
        server: SnapshotServer, tmp_path: Path) -> None:
    # it was: the job directory named the warehouse by its absolute path, so after the data directory
    # was moved (a bigger disk, another mount point) the run waited for a warehouse that no longer existed
    first = crawl_settings(tmp_path / "data", server)
    result = run_spider("norumors", first, timeout_s=120, spider_args=LISTING_ONLY, load_into=first.warehouse)
    (tmp_path / "data").rename(tmp_path / "moved")
    moved = crawl_settings(tmp_path / "moved", server)
    asked: list[list[str]] = []
    waiting = unloaded_runs(moved, "norumors", "live", moved.warehouse, lambda run_ids: asked.append(run_ids) or set())
    assert waiting == [tmp_path / "moved" / "staging" / "crawl" / result.run_id] and asked == [[result.run_id]]
    elsewhere = crawl_settings(tmp_path / "other", server)
    assert unloaded_runs(moved, "norumors", "live", elsewhere.warehouse, lambda run_ids: set()) == [], \
        "a run waits for its own warehouse only"


def test_a_crawl_whose_staging_directory_is_read_only_stops_at_its_first_page_saying_why(
        server: SnapshotServer, tmp_path: Path) -> None:
    staging = tmp_path / "data" / "staging"
    staging.mkdir(parents=True)
    with read_only(staging):
        with pytest.raises(CrawlError, match=r"stopped: a write to its staging run failed \(\[Errno 30\] Read-only file "
                                             r"system: '.*/staging/crawl'\), and no partial staging run is kept") as stopped:
            crawl("norumors", tmp_path / "data", server)
    assert stopped.value.__cause__.errno == errno.EROFS  # the flow does not retry it
    assert not list((tmp_path / "data" / "crawl_jobs").glob("norumors-*"))


def test_a_crawl_whose_log_disk_is_full_fails_saying_so(server: SnapshotServer, tmp_path: Path) -> None:
    # it was: "failed with exit code 1" and an empty log: the child's traceback went into its output
    # file, on the same full disk, so nothing said why, and the flow retried it
    from arastance.cli import refused_write_message

    with small_disk(tmp_path, 1) as disk:
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "logs").symlink_to(disk.root)
        (disk.root / "crawl").mkdir()
        disk.fill(leave=0)
        with pytest.raises(CrawlError, match=r"failed: the disk filled up; free space and crawl again") as failed:
            crawl("norumors", tmp_path / "data", server)
    assert failed.value.__cause__.errno == errno.ENOSPC  # the flow does not retry it
    assert "OSError: [Errno 28] No space left on device" in str(failed.value), "the child's own traceback"
    assert refused_write_message(failed.value).startswith("no space left on device")


def test_a_crawl_whose_log_directory_is_read_only_leaves_nothing_to_resume(server: SnapshotServer, tmp_path: Path) -> None:
    # it was: each attempt left a crawl_jobs/<run>/known_urls.txt that no later crawl removed
    logs = tmp_path / "data" / "logs"
    for made in ((), ("crawl",)):  # a first crawl, and one after others made logs/crawl
        logs.joinpath(*made).mkdir(parents=True, exist_ok=True)
        with read_only(logs), pytest.raises(OSError, match="Read-only file system"):
            crawl("norumors", tmp_path / "data", server)
        jobs = tmp_path / "data" / "crawl_jobs"
        assert not jobs.exists() or not any(jobs.iterdir()), made

def test_scrapy_crawl_from_the_repository_root_works_as_scrapy_users_expect(server: SnapshotServer, tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARASTANCE_", "SCRAPY_"))}
    env.update({"ARASTANCE_DATA_DIR": str(tmp_path / "data"), "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0",
                "ARASTANCE_CRAWL__AUTOTHROTTLE": "false", "ARASTANCE_CRAWL__RETRY_BACKOFF_S": "0.05"})
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "norumors", "-a", f"base_url={server.site_url('norumors')}",
         "-a", "run_id=norumors-manual", "-s", "LOG_LEVEL=WARNING"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    run_dir = tmp_path / "data" / "staging" / "crawl" / "norumors-manual"
    assert len(read_jsonl(run_dir / "claims.jsonl")) == len(world().posts_of("norumors"))
    assert (run_dir / "run.json").is_file()
