"""The ``crawl_sources`` flow and the crawl commands, end to end: real HTTP, real Prefect, real DuckDB."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import subprocess
import sys
import zlib
from datetime import datetime
from pathlib import Path
from unittest import mock

import pytest
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.base.ids import content_hash, stable_id
from arastance.cli import app
from arastance.config import load_settings
from helpers_disk import small_disk
from helpers_prefect import free_port
from helpers_spiders import world
from snapshots.offline import offline_world
from warehouse import open_warehouse

runner = CliRunner()


async def _artifact_rows(key: str) -> list[dict]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    async with get_client() as client:
        artifacts = await client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
    return [a.data for a in artifacts]


@pytest.mark.slow
def test_the_flow_crawls_offline_loads_and_a_rerun_on_another_port_fetches_nothing_new() -> None:
    from flows.crawl_sources import crawl_sources

    posts = world().posts_of("norumors")
    with prefect_test_harness(server_startup_timeout=180):
        # Each call serves the snapshots on a new free port: claims are keyed by the real site's
        # canonical URL, so the second crawl still knows every post.
        with offline_world():
            [first] = crawl_sources(sites=["norumors"])
        with offline_world():
            [second] = crawl_sources(sites=["norumors"])
        artifacts = asyncio.run(_artifact_rows("crawl-sources"))
    assert first["status"] == "ok" and first["claims_parsed"] == len(posts)
    assert first["new_claims"] > 0 and first["errors"] == 3
    assert second["claims_parsed"] == 0 and second["new_claims"] == 0
    assert second["requests"] <= 3 < first["requests"]
    assert len(artifacts) == 2 and "norumors" in str(artifacts[0])
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        stored = wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'norumors'")
        runs = wh.scalar("SELECT count(*) FROM crawl_runs WHERE source_id = 'norumors'")
        urls = {r["canonical_url"] for r in wh.query("SELECT canonical_url FROM claims WHERE source_id = 'norumors'")}
    assert stored == first["new_claims"] and runs == 2
    assert all(u.startswith("https://norumors.net/rumors/") for u in urls)

    # No server is running any more: reparse works from the HTML the warehouse kept.
    result = runner.invoke(app, ["reparse", "--site", "norumors"])
    assert result.exit_code == 0, result.output
    staging = load_settings().staging_dir / "crawl"
    reparsed = [p for p in staging.iterdir() if p.name not in (first["run_id"], second["run_id"])]
    assert len(reparsed) == 1
    claims = (reparsed[0] / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(claims) == first["claims_parsed"]
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'norumors'") == stored
        assert wh.scalar("SELECT count(*) FROM crawl_runs WHERE source_id = 'norumors'") == 3


@pytest.mark.slow
def test_each_site_is_a_flow_run_of_its_own_and_a_dead_site_fails_alone() -> None:
    from prefect import get_client

    from flows.crawl_sources import crawl_sources

    dead = f"http://127.0.0.1:{free_port()}/"  # nothing listens there: every fetch is refused
    with prefect_test_harness(server_startup_timeout=180):
        with offline_world(), mock.patch.dict(os.environ, {"ARASTANCE_SITES__REUTERS": dead}):
            parent = crawl_sources(sites=["norumors", "reuters"], return_state=True)
        with get_client(sync_client=True) as client:
            runs = {r.name: r for r in client.read_flow_runs()}
        [artifact] = asyncio.run(_artifact_rows("crawl-sources"))
    assert parent.is_failed()
    assert "reuters (live): " in parent.message and "norumors (live)" not in parent.message
    assert parent.message.endswith("; loaded: norumors")
    good, bad = runs["crawl-norumors-live"], runs["crawl-reuters-live"]
    assert good.state.is_completed() and good.parent_task_run_id is not None
    assert bad.state.is_failed() and bad.parent_task_run_id is not None
    assert "reuters (live): " in bad.state.message
    assert "no claims found" in bad.state.message or "only fetch errors" in bad.state.message
    statuses = {r["site"]: r["status"] for r in json.loads(artifact)}  # both sites stay in the table
    assert statuses["norumors"] == "ok" and statuses["reuters"].startswith("failed: ")
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'norumors'") > 0
        assert wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'reuters'") == 0


@pytest.mark.slow
def test_a_crawl_stopped_before_its_load_is_loaded_by_the_next_crawl_which_fetches_it_not_again() -> None:
    from flows.crawl_sources import crawl_sources
    from tasks.crawl_runner import AWAITING_LOAD, run_spider

    posts = world().posts_of("norumors")
    staging, jobs = load_settings().staging_dir / "crawl", load_settings().crawl_jobs_dir
    with prefect_test_harness(server_startup_timeout=180):
        with offline_world():
            # What a SIGTERM between the spider's end and the load leaves: a finished staging run.
            stopped = run_spider("norumors", load_settings(), timeout_s=120, load_into=load_settings().warehouse)
            # A finished run whose files were damaged afterwards: reported, left on disk, no stop.
            damaged = staging / "norumors-20200101T000000000000"
            damaged.mkdir()
            (damaged / "run.json").write_text("{", encoding="utf-8")
            (jobs / damaged.name).mkdir()
            (jobs / damaged.name / AWAITING_LOAD).write_text(str(load_settings().warehouse.resolve()), encoding="utf-8")
            [row] = crawl_sources(sites=["norumors"])
        with offline_world():
            [again] = crawl_sources(sites=["norumors"])
    assert stopped.summary["items"] == len(posts)
    assert row["status"] == "ok" and row["earlier_runs_loaded"] == 1
    assert row["claims_parsed"] == 0 and row["new_claims"] == 0, "the stopped crawl's claims were known"
    assert row["requests"] <= 3 < stopped.summary["stats"]["downloader/request_count"]
    assert again["earlier_runs_loaded"] == 0
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        runs = {r["run_id"] for r in wh.query("SELECT run_id FROM crawl_runs")}
        stored = wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'norumors'")
    assert stopped.run_id in runs and damaged.name not in runs and len(runs) == 3
    assert stored > 0 and damaged.is_dir()
    assert sorted(p.name for p in jobs.iterdir()) == [damaged.name], "loaded runs are released, the damaged one waits"




def test_a_long_step_is_retried_on_anything_but_a_full_or_read_only_disk() -> None:
    from prefect.states import Failed

    from flows.runners import unless_disk_refuses_writes
    from tasks.crawl_runner import CrawlError

    full = OSError(errno.ENOSPC, "No space left on device")
    assert not unless_disk_refuses_writes(None, None, Failed(data=full))
    assert not unless_disk_refuses_writes(None, None, Failed(data=OSError(errno.EDQUOT, "Disk quota exceeded")))
    assert not unless_disk_refuses_writes(None, None, Failed(data=OSError(errno.EROFS, "Read-only file system")))
    wrapped = CrawlError("crawl of norumors (run r) stopped: the disk filled up")
    wrapped.__cause__ = full
    assert not unless_disk_refuses_writes(None, None, Failed(data=wrapped))
    assert unless_disk_refuses_writes(None, None, Failed(data=CrawlError("crawl of norumors (run r) exceeded 3600s")))
    assert unless_disk_refuses_writes(None, None, Failed(data=ConnectionResetError(errno.ECONNRESET, "reset by peer")))

@pytest.mark.slow
def test_a_crawl_stopped_by_a_full_disk_is_not_retried_and_its_site_fails_saying_so(tmp_path: Path) -> None:
    # it was: the crawl task's retry crawled again on the still-full disk, stopped the same way and
    # removed its partial run again, only delaying the failure
    from prefect import get_client

    from flows.crawl_sources import crawl_sources

    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with small_disk(tmp_path, 2) as disk, prefect_test_harness(server_startup_timeout=180):
        settings.staging_dir.symlink_to(disk.root)
        disk.fill(leave=150_000)
        with offline_world():
            parent = crawl_sources(sites=["norumors"], return_state=True)
        with get_client(sync_client=True) as client:
            [site_run] = [r for r in client.read_flow_runs() if r.name == "crawl-norumors-live"]
            crawl_tasks = [t for t in client.read_task_runs() if t.name.startswith("crawl-norumors")]
    assert parent.is_failed() and site_run.state.is_failed()
    assert "stopped: the disk filled up" in site_run.state.message
    assert [t.run_count for t in crawl_tasks] == [1], "one attempt, no retry"
    [crawl_log] = (settings.logs_dir / "crawl").glob("norumors-*.log")
    # one site: no "the other sites were loaded"; the reason's first line ends with the log, not "Log …:"
    assert parent.message.endswith(f"crawl again (log {crawl_log})")
    assert not list(settings.crawl_jobs_dir.glob("norumors-*")), "nothing left to resume from"


@pytest.mark.slow
def test_a_warehouse_that_refuses_writes_fails_the_site_at_once_not_after_retries() -> None:
    # it was: the warehouse steps before a crawl retried any error three times (a newer version's
    # warehouse, a damaged file), though only a busy warehouse is worth a retry
    from prefect import get_client

    from flows.crawl_sources import crawl_sources

    with open_warehouse(load_settings().warehouse) as wh:
        wh.con.execute("INSERT INTO schema_version VALUES (999, 'from_the_future', 'abcd', now()::TIMESTAMP)")
    with prefect_test_harness(server_startup_timeout=180):
        with offline_world():
            parent = crawl_sources(sites=["norumors"], return_state=True)
        with get_client(sync_client=True) as client:
            [site_run] = [r for r in client.read_flow_runs() if r.name == "crawl-norumors-live"]
            steps = {t.name: t.run_count for t in client.read_task_runs()}
    assert parent.is_failed() and "999_from_the_future" in site_run.state.message
    assert steps["unloaded-runs-norumors-live"] == 1, steps
    assert "crawl-norumors-live" not in steps, "nothing was crawled"

def test_snapshots_build_writes_the_offline_web(tmp_path: Path) -> None:
    result = runner.invoke(app, ["snapshots", "build", "--out", str(tmp_path / "web")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "web" / "robots.txt").is_file()
    assert (tmp_path / "web" / "reuters" / "news" / "archive" / "topNews" / "index.html").is_file()
    assert "reuters" in result.output


def test_an_unknown_site_is_refused_before_anything_runs() -> None:
    for command in (["crawl", "--site", "bbc"], ["reparse", "--site", "bbc"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2
        assert "unknown --site bbc" in result.output + str(result.stderr)


def test_reparse_without_a_warehouse_says_so() -> None:
    result = runner.invoke(app, ["reparse", "--site", "norumors"])
    assert result.exit_code == 2
    assert "does not exist" in result.output + str(result.stderr)


def _dabegad_page(title: str, claim: str) -> bytes:
    """A Dabegad post with no canonical link and a relative date, as old WordPress themes printed it."""
    return f"""<html><head><title>{title}</title></head><body>
<h1 class="entry-title">{title}</h1>
<div class="entry"><blockquote>{claim}</blockquote><p>راجعنا المصادر الرسمية ولم نجد ما يؤكد الخبر.</p></div>
<time class="entry-date">منذ يومين</time></body></html>""".encode()


def _raw_page(url: str, html: bytes, fetched_at: datetime, *, original: str | None = None,
              captured_at: datetime | None = None) -> dict:
    """A ``raw_pages`` row as the crawl loader stores it (an archived page: the capture's address in ``url``)."""
    digest = content_hash(html)
    return {"page_id": stable_id(url, digest), "url": url, "source_id": "dabegad", "fetched_at": fetched_at,
            "http_status": 200, "content_hash": digest, "html_zlib": zlib.compress(html), "parse_status": "ok",
            "original_url": original, "captured_at": captured_at}


def test_reparse_keys_and_dates_an_archived_page_as_the_archive_crawl_did() -> None:
    # it was: the claim was keyed by the web.archive.org address (a second claim for the post on every
    # reparse) and "منذ يومين" was counted from the day the archive was fetched, not from the capture
    original = "http://www.dabegad.com/society/2207-fake-bread-prices/"
    capture = f"https://web.archive.org/web/20160305120000id_/{original}"
    rows = [
        _raw_page(capture, _dabegad_page("شائعة رفع سعر الخبز", "الحكومة ترفع سعر رغيف الخبز إلى جنيه"),
                  datetime(2026, 11, 1), original=original, captured_at=datetime(2016, 3, 5, 12)),
        _raw_page("https://dabegad.com/society/2300-fake-school-closure/",
                  _dabegad_page("شائعة إغلاق المدارس", "إغلاق جميع المدارس في القاهرة أسبوعا"), datetime(2026, 11, 1)),
    ]
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("raw_pages", rows)
    result = runner.invoke(app, ["reparse", "--site", "dabegad", "--no-load"])
    assert result.exit_code == 0, result.output
    [run_dir] = (load_settings().staging_dir / "crawl").iterdir()
    claims = [json.loads(line) for line in (run_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted((c["url"], c["published_date"]) for c in claims) == [
        ("https://dabegad.com/society/2207-fake-bread-prices", "2016-03-03"),
        ("https://dabegad.com/society/2300-fake-school-closure", "2026-10-30"),
    ]
    pages = [json.loads(line) for line in (run_dir / "pages.jsonl").read_text(encoding="utf-8").splitlines()]
    archived = next(p for p in pages if p["url"] == capture)
    assert archived["original_url"] == original and archived["captured_at"].startswith("2016-03-05T12:00")


def test_reparse_reads_the_readers_copy_while_a_writer_holds_the_warehouse() -> None:
    # it was: reparse opened the writer's file (read-only) and held every writer off for its whole run,
    # and it could not start while one wrote (locked by another process after 30 s)
    rows = [_raw_page("https://dabegad.com/society/2300-fake-school-closure/",
                      _dabegad_page("شائعة إغلاق المدارس", "إغلاق جميع المدارس في القاهرة أسبوعا"), datetime(2026, 11, 1))]
    path = load_settings().warehouse
    with open_warehouse(path) as wh:
        wh.insert_rows("raw_pages", rows)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(120)", str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = runner.invoke(app, ["reparse", "--site", "dabegad", "--no-load"])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 0, result.output
    [run_dir] = (load_settings().staging_dir / "crawl").iterdir()
    assert len((run_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()) == 1
