"""Plain Scrapy commands from the repository root, as a Scrapy user runs them against the
offline snapshots: a feed export of claims, the shell (with and without the project's spider),
the spiders' contracts, and log lines that name the run and the pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_spiders import SITES, read_jsonl, server, world  # noqa: F401 - server: a fixture
from snapshots.server import SnapshotServer

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def scrapy(server: SnapshotServer, data_dir: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARASTANCE_", "SCRAPY_"))}
    env.update({"ARASTANCE_DATA_DIR": str(data_dir), "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0",
                "ARASTANCE_CRAWL__AUTOTHROTTLE": "false", "ARASTANCE_CRAWL__RETRY_BACKOFF_S": "0.05",
                "ARASTANCE_CRAWL__RETRY_TIMES": "1",
                **{f"ARASTANCE_SITES__{site.upper()}": server.site_url(site) for site in SITES}})
    return subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_a_feed_export_holds_the_claims_and_the_staging_run_keeps_the_pages(server: SnapshotServer,
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "norumors.jsonl"
    done = scrapy(server, tmp_path / "data", "crawl", "norumors", "-O", str(out), "-a", "run_id=norumors-feed")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "Error processing" not in done.stderr, done.stderr[-3000:]
    run_dir = tmp_path / "data" / "staging" / "crawl" / "norumors-feed"
    staged = read_jsonl(run_dir / "claims.jsonl")
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(exported) == len(staged) == len(world().posts_of("norumors"))
    assert {c["url"] for c in exported} == {c["url"] for c in staged}
    assert all("body" not in c and c["claim_text"] is not None for c in exported)  # claims, not raw pages
    assert len(read_jsonl(run_dir / "pages.jsonl")) > len(staged)  # listings and failures kept too
    assert json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["items"] == len(staged)
    # the project's lines name the staging run and where it is; failures name their URL
    assert f"staging run finished run_id=norumors-feed dir={run_dir}" in done.stderr
    warnings = [line for line in done.stderr.splitlines() if "page could not be fetched" in line]
    assert warnings and all("url=http://127.0.0.1" in w and "run_id=norumors-feed" in w for w in warnings)


def test_the_shell_opens_any_url_and_a_site_spider_without_leaving_a_staging_run(server: SnapshotServer,
                                                                               tmp_path: Path) -> None:
    data = tmp_path / "data"
    post = world().posts_of("norumors")[0].path.lstrip("/")
    url = server.site_url("norumors") + post
    plain = scrapy(server, data, "shell", url, "-c", "(response.status, len(response.css('h1')))")
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert plain.stdout.strip() == "(200, 1)"
    with_spider = scrapy(server, data, "shell", "--spider=norumors", url,
                         "-c", "len(list(spider.parse_detail(response)))")
    assert with_spider.returncode == 0, with_spider.stderr[-3000:]
    assert with_spider.stdout.strip() == "1"  # the claim item (the page went with the signal)
    assert not (data / "staging" / "crawl").exists() or not any((data / "staging" / "crawl").iterdir())


def test_scrapy_check_runs_the_contracts_of_every_site_callback(server: SnapshotServer, tmp_path: Path) -> None:
    listed = scrapy(server, tmp_path / "data", "check", "-l")
    assert listed.returncode == 0, listed.stderr[-3000:]
    for site in SITES:
        assert f"{site}\n  * parse_detail\n  * parse_listing" in listed.stdout, listed.stdout
    done = scrapy(server, tmp_path / "data", "check", *SITES)  # the config-only sites have no snapshot pages
    assert done.returncode == 0, done.stderr[-3000:]
    assert "OK" in done.stderr and "FAILED" not in done.stderr
    ran = int(done.stderr.split("Ran ")[1].split(" contract")[0])
    assert ran == len(SITES) * 5  # listing: 2 x @returns; detail: 2 x @returns and @scrapes
    assert not (tmp_path / "data" / "staging" / "crawl").exists()
