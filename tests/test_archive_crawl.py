"""Archive mode end to end: spiders read the sites as archived (CDX discovery, ``id_`` captures,
redirects, lost captures, 429s) and the warehouse gets the same claims as from the live sites."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.base.captures import capture_url
from arastance.cli import app
from helpers_spiders import canonical_post_url, claims_of, crawl_settings, pages_of, snapshot_root, world
from snapshots.archive_index import REDIRECT_TARGET, redirected_post
from snapshots.server import SnapshotServer
from tasks.crawl_runner import CrawlResult, archive_claim_captures, run_spider, run_verdict
from warehouse import open_warehouse

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def server() -> Iterator[SnapshotServer]:
    with SnapshotServer(snapshot_root(), slow_delay_s=0.3, archive_rate_limit_every=9) as srv:
        yield srv


def archive_crawl(site: str, data_dir: Path, server: SnapshotServer, **crawl: object) -> CrawlResult:
    settings = crawl_settings(data_dir, server, archive_url=server.archive_url, archive_delay_s=0.0,
                              archive_page_size=25, **crawl)
    return run_spider(site, settings, mode="archive", timeout_s=120)


def test_an_archive_crawl_reads_every_post_with_its_capture_as_provenance(server: SnapshotServer, tmp_path: Path) -> None:
    result = archive_crawl("araanews", tmp_path / "data", server)
    claims, pages = claims_of(result), pages_of(result)
    posts = world().posts_of("araanews")
    assert sorted(c["url"] for c in claims) == sorted(canonical_post_url(p) for p in posts)
    ok = [p for p in pages if p["parse_status"] == "ok"]
    assert all("/archive/web/" in p["url"] and "id_/" in p["url"] for p in ok)
    assert all(p["original_url"].startswith("https://araanews.ae/") and p["captured_at"] < "2019" for p in ok)
    # The redirected post's first capture was a 301 (left out by statuscode:200); the page parsed is the later capture.
    moved = canonical_post_url(redirected_post(world(), "araanews"))
    claim = next(c for c in claims if c["url"] == moved)
    page = next(p for p in pages if p["page_id"] == claim["page_id"])
    assert REDIRECT_TARGET in page["url"] and page["captured_at"].startswith("2018-11-20")
    # The capture the archive lists but lost is a failed page; listings and 2021 captures are left out.
    assert [p["parse_error"].split(":")[0] for p in pages if p["parse_status"] == "failed"] == ["http_404"]
    summary = result.summary
    assert summary["dropped"]["archive_not_claim_url"] > 0 and run_verdict(summary) == "ok"
    assert summary["stats"]["retry/count"] > 0, "the emulator's 429s were retried"


@pytest.mark.parametrize("stored_as", ["https://", "http://www."])
def test_an_incremental_archive_crawl_skips_known_pages_and_a_resumed_one_keeps_its_run(
    server: SnapshotServer, tmp_path: Path, stored_as: str
) -> None:
    # http://www.: the key an old capture's own canonical link gave a claim before it was put on
    # canonical_base; the post is still known (it was: crawled again as a second claim)
    known = tuple(canonical_post_url(p).replace("https://", stored_as) for p in world().posts_of("norumors"))
    settings = crawl_settings(tmp_path / "data", server, archive_url=server.archive_url, archive_delay_s=0.0)
    again = run_spider("norumors", settings, mode="archive", known_urls=known, timeout_s=120)
    assert again.summary["items"] == 0 and again.summary["dropped"]["already_known"] == len(known)
    assert run_verdict(again.summary) == "ok", "nothing new is not a failure"
    cdx_cache = list((tmp_path / "data" / "archive_cache" / "cdx").glob("*/page-*.json"))
    assert cdx_cache, "discovery pages are cached for the next run"


def test_a_capture_that_redirects_to_itself_is_a_failed_page_with_its_capture(tmp_path: Path) -> None:
    # it was: Scrapy's duplicate filter dropped the redirect, and the capture left no record and no count
    with SnapshotServer(snapshot_root()) as srv:
        settings = crawl_settings(tmp_path / "data", srv, archive_url=srv.archive_url, archive_delay_s=0.0)
        looping = archive_claim_captures("norumors", settings)[0][0]
        address = capture_url(srv.archive_url, looping.timestamp, looping.original)
        srv.faults[unquote(urlsplit(address).path)] = {"redirect": address}
        result = run_spider("norumors", settings, mode="archive", timeout_s=120)
    [failed] = [p for p in pages_of(result) if (p["parse_error"] or "").startswith("redirect_loop")]
    assert failed["url"] == address and failed["original_url"] == looping.original
    assert failed["captured_at"].startswith(looping.timestamp[:4]) and result.summary["dropped"]["redirect_loop"] == 1
    assert len(claims_of(result)) == len(world().posts_of("norumors")) - 1


def test_crawl_archive_loads_the_same_claims_as_live_and_a_rerun_adds_nothing(tmp_path: Path) -> None:
    with prefect_test_harness(server_startup_timeout=180):
        live = runner.invoke(app, ["crawl", "--offline", "--site", "norumors"],
                             env={"ARASTANCE_DATA_DIR": str(tmp_path / "live")})
        assert live.exit_code == 0, live.output
        # --both after a live crawl: the live pass finds nothing new, the archive pass skips every known post.
        both = runner.invoke(app, ["crawl", "--offline", "--both", "--site", "norumors"],
                             env={"ARASTANCE_DATA_DIR": str(tmp_path / "live"), "COLUMNS": "250"})
        assert both.exit_code == 0, both.output
        assert "archive" in both.output and both.output.count(" ok ") >= 2
        archived = runner.invoke(app, ["crawl", "--offline", "--archive", "--site", "norumors"],
                                 env={"ARASTANCE_DATA_DIR": str(tmp_path / "archive")})
        assert archived.exit_code == 0, archived.output
        rerun = runner.invoke(app, ["crawl", "--offline", "--archive", "--full", "--site", "norumors"],
                              env={"ARASTANCE_DATA_DIR": str(tmp_path / "archive")})
        assert rerun.exit_code == 0, rerun.output
        empty = runner.invoke(app, ["crawl", "--offline", "--archive", "--from", "2030-01-01", "--to", "2030-12-31",
                                    "--site", "norumors"], env={"ARASTANCE_DATA_DIR": str(tmp_path / "empty")})
    query = ("SELECT source_id, canonical_url, cleaned_text, published_date, status FROM claims "
             "ORDER BY source_id, canonical_url")
    with open_warehouse(tmp_path / "live" / "warehouse.duckdb", read_only=True) as wh:
        from_live = wh.query(query)
        live_runs = wh.query("SELECT run_id, new_claims FROM crawl_runs ORDER BY started_at")
    with open_warehouse(tmp_path / "archive" / "warehouse.duckdb", read_only=True) as wh:
        from_archive = wh.query(query)
        runs = wh.query("SELECT run_id, new_claims FROM crawl_runs ORDER BY started_at")
        captured = wh.scalar("SELECT count(*) FROM raw_pages WHERE captured_at IS NOT NULL AND original_url IS NOT NULL")
        layered = wh.scalar("SELECT count(*) FROM claims WHERE json_extract_string(field_layers, '$.title') = 'css'")
    assert len(from_live) == len(world().posts_of("norumors"))
    assert from_archive == from_live
    assert [r["new_claims"] for r in live_runs][1:] == [0, 0] and live_runs[-1]["run_id"].endswith("-archive")
    assert [r["new_claims"] for r in runs][-1] == 0 and all(r["run_id"].endswith("-archive") for r in runs)
    assert captured >= len(from_archive) and layered == len(from_archive)
    assert empty.exit_code == 1
    assert "norumors (archive): no claims found" in empty.output + str(empty.stderr)


def test_the_archive_options_are_checked_before_anything_runs() -> None:
    for args, message in ((["--from", "2014-01-01"], "add --archive"), (["--archive", "--from", "2014-13-01"], "YYYY-MM-DD"),
                          (["--archive", "--from", "2015-01-01", "--to", "2014-01-01"], "is after"),
                          (["--archive", "--both"], "exclude each other")):
        result = runner.invoke(app, ["crawl", *args])
        assert result.exit_code == 2 and message in result.output + str(result.stderr), (args, result.output)
