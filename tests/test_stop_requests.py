"""A run asked to stop (SIGTERM, Ctrl-C) stops the work its threads do.

Python delivers signals to the main thread only, so a flow's tasks running in a thread pool went on
after a SIGTERM: an archive crawl paged the CDX API for eight more minutes, then crawled and loaded
what it had found. Here the waits and loops of that work (CDX paging, a search backing off, a spider)
end within seconds, and end to end a SIGTERM'd ``arastance crawl`` exits and loads nothing.
"""

from __future__ import annotations

import contextvars
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest
from helpers_prefect import PrefectServer, prefect_server
from helpers_search import ApiServer, Reply, SeenRequest
from helpers_spiders import snapshot_root
from prefect.exceptions import TerminationSignal

from arastance.base.stopping import StopRequested, check_stop, pause, stop_on_exit, stop_requested
from arastance.config import load_settings
from snapshots.server import SnapshotServer
from tasks.search.http import JsonClient
from tasks.web_archive.client import CdxQuery, WaybackClient
from warehouse import open_warehouse

ARASTANCE = str(Path(sys.executable).with_name("arastance"))
CDX_HEADER = ["timestamp", "original", "statuscode", "mimetype", "digest"]


def in_context_thread(work: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    """``work`` in a thread that inherits the caller's context, as Prefect's thread pool runs a task."""
    raised: list[BaseException] = []
    context = contextvars.copy_context()

    def run() -> None:
        try:
            context.run(work)
        except BaseException as exc:  # noqa: BLE001 - the test looks at what ended the work
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


def stop_once(work: Callable[[], object], started: Callable[[], bool]) -> tuple[float, list[BaseException]]:
    """Run ``work`` in a thread of a :func:`stop_on_exit` block, leave the block with Prefect's
    ``TerminationSignal`` once ``started()`` holds, and return how long the thread took to end."""
    with pytest.raises(TerminationSignal):
        with stop_on_exit():
            thread, raised = in_context_thread(work)
            deadline = time.monotonic() + 20
            while not started() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert started(), "the work never got going"
            stopped_at = time.monotonic()
            raise TerminationSignal(signal.SIGTERM)
    thread.join(timeout=20)
    assert not thread.is_alive(), "the work went on after the stop"
    return time.monotonic() - stopped_at, raised


def test_a_wait_in_a_thread_of_the_block_ends_when_the_block_raises() -> None:
    began = threading.Event()

    def work() -> None:
        began.set()
        pause(60)

    took, raised = stop_once(work, began.is_set)
    assert took < 2 and len(raised) == 1 and isinstance(raised[0], StopRequested)


def test_nothing_is_stopped_when_the_block_ends_normally_or_outside_any_block() -> None:
    seen: list[bool] = []
    with stop_on_exit():
        thread, raised = in_context_thread(lambda: (pause(0.2), seen.append(stop_requested())))
        thread.join(timeout=10)
    assert seen == [False] and raised == []
    check_stop("outside")  # no block: nothing to stop
    started = time.monotonic()
    pause(0.1)
    assert not stop_requested() and time.monotonic() - started >= 0.1


def _endless_slow_cdx(request: SeenRequest) -> Reply:
    """A legitimate but slow CDX server: new captures and a new resume key on every page."""
    page = int(request.params.get("resumeKey", "0"))
    time.sleep(0.2)
    rows = [[f"2015{m:02d}01000000", f"https://araanews.ae/2015/{m:02d}/post-{page}-{m}/", "200", "text/html", "D"]
            for m in range(1, 6)]
    return Reply(body=[CDX_HEADER, *rows, [], [str(page + 1)]])


def test_cdx_paging_stops_at_once_when_the_run_is_asked_to_stop(tmp_path: Path) -> None:
    api = ApiServer(_endless_slow_cdx)
    client = WaybackClient(api.url, api.url + "/wayback/available", cache_dir=tmp_path, delay_s=0.0)
    with api.running():
        took, raised = stop_once(lambda: client.captures(CdxQuery("araanews.ae/*", date(2012, 1, 1), date(2018, 12, 31))),
                                 lambda: len(api.requests) >= 3)
        sent = len(api.requests)
        time.sleep(0.6)
        assert len(api.requests) == sent, "paging went on after the stop"
    assert took < 2 and isinstance(raised[0], StopRequested)
    assert len(list((tmp_path / "cdx").rglob("page-*.json"))) >= 2, "the pages read so far stay cached for a resume"


def test_a_search_waiting_out_a_long_retry_after_stops_when_the_run_is_asked_to_stop() -> None:
    api = ApiServer(lambda r: Reply(status=429, body={"error": "slow down"}, headers={"Retry-After": "50"}))
    client = JsonClient("brave", [], describe_error=lambda r: r.text)
    with api.running():
        took, raised = stop_once(lambda: client.get(api.url + "/search", {"q": "x"}), lambda: len(api.requests) >= 1)
    assert took < 2 and isinstance(raised[0], StopRequested) and len(api.requests) == 1


# -- end to end: SIGTERM to `arastance crawl` -----------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def sigterm_crawl(server: PrefectServer, args: list[str], env: dict[str, str], started: Callable[[], bool],
                  out: Path, *, ctrl_c: bool = False) -> tuple[float, int, str]:
    """Start ``arastance crawl``, SIGTERM it (or, with ``ctrl_c``, SIGINT its process group, as a
    terminal's Ctrl-C does) once ``started()`` holds; seconds to exit, exit code, output."""
    env = {**server.env, "ARASTANCE_DATA_DIR": os.environ["ARASTANCE_DATA_DIR"], **env}
    with out.open("wb") as log:
        proc = subprocess.Popen([ARASTANCE, "crawl", *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while not started() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert proc.poll() is None and started(), out.read_text(encoding="utf-8")[-3000:]
            time.sleep(1.0)
            signalled = time.monotonic()
            if ctrl_c:
                os.killpg(proc.pid, signal.SIGINT)
            else:
                proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=90)
            took = time.monotonic() - signalled
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return took, code, out.read_text(encoding="utf-8")


def nothing_loaded() -> bool:
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        return wh.scalar("SELECT count(*) FROM crawl_runs") == 0 and wh.scalar("SELECT count(*) FROM claims") == 0


@pytest.mark.slow
def test_a_sigterm_during_a_live_crawl_stops_the_spider_and_loads_nothing(server: PrefectServer, tmp_path: Path) -> None:
    with SnapshotServer(snapshot_root(), latency_s=0.5) as site:
        env = {"ARASTANCE_SITES__ARAANEWS": site.site_url("araanews"), "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0",
               "ARASTANCE_CRAWL__CONCURRENT_REQUESTS_PER_DOMAIN": "1"}
        took, code, output = sigterm_crawl(server, ["--site", "araanews"], env, lambda: len(site.requests) >= 3,
                                           tmp_path / "crawl.log")
        sent = len(site.requests)
        time.sleep(2)
        assert len(site.requests) == sent, "the spider went on fetching after the command ended"
    # it was: the spider crawled the whole site, and the claims were loaded, before the command exited
    assert code != 0 and took < 45, output[-3000:]
    assert "spider araanews stopped: the run was asked to stop" in output
    assert nothing_loaded()
    jobs = load_settings().crawl_jobs_dir
    assert [p.name for p in jobs.iterdir()][0].startswith("araanews-"), "the stopped crawl stays resumable"


@pytest.mark.slow
def test_a_sigterm_while_the_load_waits_for_the_warehouse_loads_nothing_and_the_next_crawl_loads_it_first(
    server: PrefectServer, tmp_path: Path
) -> None:
    out = tmp_path / "crawl.log"
    holder: list[subprocess.Popen] = []

    def spider_done() -> bool:
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        if "crawl starting" in text and not holder:  # the known URLs are read: another writer takes the file
            holder.append(subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; "
                                            "c = duckdb.connect(sys.argv[1]); time.sleep(300)",
                                            str(load_settings().warehouse)]))
        return "crawl finished" in text

    with SnapshotServer(snapshot_root()) as site:
        env = {"ARASTANCE_SITES__ARAANEWS": site.site_url("araanews"), "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0"}
        try:
            took, code, output = sigterm_crawl(server, ["--site", "araanews"], env, spider_done, out)
        finally:
            for proc in holder:
                proc.kill()
                proc.wait()
        # it was: the load waited for the other writer (up to warehouse_write_wait_s), then loaded the run
        assert code != 0 and took < 30, output[-3000:]
        assert nothing_loaded()
        again = subprocess.run([ARASTANCE, "crawl", "--site", "araanews"], capture_output=True, text=True,
                               env={**server.env, "ARASTANCE_DATA_DIR": os.environ["ARASTANCE_DATA_DIR"], **env},
                               timeout=300)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "araanews (live): loaded 1 earlier crawl(s)" in again.stdout
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM crawl_runs") == 2
        assert wh.scalar("SELECT count(*) FROM claims") > 0


@pytest.mark.slow
def test_a_sigterm_during_archive_discovery_stops_paging_and_crawls_nothing(server: PrefectServer, tmp_path: Path) -> None:
    api = ApiServer(_endless_slow_cdx)
    with api.running():
        env = {"ARASTANCE_CRAWL__ARCHIVE_URL": api.url + "/", "ARASTANCE_CRAWL__ARCHIVE_DELAY_S": "0"}
        took, code, output = sigterm_crawl(server, ["--archive", "--site", "araanews"], env,
                                           lambda: len(api.requests) >= 3, tmp_path / "crawl.log")
        sent = len(api.requests)
        time.sleep(1)
        assert len(api.requests) == sent, "CDX paging went on after the command ended"
    # it was: paging went on to the last CDX page (eight minutes here), then the crawl and the load ran
    assert code != 0 and took < 15, output[-3000:]
    assert "the run was asked to stop" in output and "crawl starting" not in output
    assert nothing_loaded()
    cached = list((load_settings().data_dir / "archive_cache" / "cdx").rglob("page-*.json"))
    assert len(cached) >= 3 and all(json.loads(p.read_text())["captures"] for p in cached)


@pytest.mark.slow
def test_ctrl_c_stops_a_crawl_once_and_gracefully_so_the_next_crawl_resumes_it_fetching_nothing_twice(
        server: PrefectServer, tmp_path: Path) -> None:
    # it was: the spider got the terminal's SIGINT and then the launcher's, which Scrapy takes as
    # "force an unclean shutdown": the saved queue was lost and the resumed crawl fetched pages twice
    with SnapshotServer(snapshot_root(), latency_s=0.5) as site:
        env = {"ARASTANCE_SITES__ARAANEWS": site.site_url("araanews"), "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0",
               "ARASTANCE_CRAWL__CONCURRENT_REQUESTS_PER_DOMAIN": "2"}
        took, code, output = sigterm_crawl(server, ["--site", "araanews"], env, lambda: len(site.requests) >= 5,
                                           tmp_path / "crawl.log", ctrl_c=True)
        assert code != 0 and took < 45, output[-3000:]
        [crawl_log] = (load_settings().logs_dir / "crawl").glob("*.log")
        text = crawl_log.read_text(encoding="utf-8")
        assert "stop asked by the launcher" in text and "unclean shutdown" not in text
        site.latency_s = 0.0
        again = subprocess.run([ARASTANCE, "crawl", "--site", "araanews"], capture_output=True, text=True, timeout=300,
                               env={**server.env, "ARASTANCE_DATA_DIR": os.environ["ARASTANCE_DATA_DIR"], **env})
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Resuming crawl" in crawl_log.read_text(encoding="utf-8")
    [run] = (load_settings().staging_dir / "crawl").iterdir()
    urls = [json.loads(line)["url"] for line in (run / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(urls) == len(set(urls)) > 0, "no page was fetched twice"


def processes_of(data_dir: str) -> list[int]:
    """PIDs of the processes started with this data directory (a command, its spiders, its Prefect server)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and f"ARASTANCE_DATA_DIR={data_dir}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:  # gone, or not ours to read
            continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_a_sigterm_leaves_no_temporary_prefect_server_behind(tmp_path: Path) -> None:
    # it was: Prefect sent the SIGTERM again to Python's default handler, the process died without
    # its exit handlers, and every command stopped that way left its temporary server running (240 MB)
    api = ApiServer(_endless_slow_cdx)
    data_dir = os.environ["ARASTANCE_DATA_DIR"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {"ARASTANCE_CRAWL__ARCHIVE_URL": api.url + "/", "ARASTANCE_CRAWL__ARCHIVE_DELAY_S": "0"}
    with api.running(), (tmp_path / "crawl.log").open("wb") as log:
        proc = subprocess.Popen([ARASTANCE, "crawl", "--archive", "--site", "araanews"], env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 240
            while len(api.requests) < 2 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert proc.poll() is None and len(processes_of(data_dir)) >= 2, "the command and its server run"
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    output = (tmp_path / "crawl.log").read_text(encoding="utf-8")
    deadline = time.monotonic() + 10
    while processes_of(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = processes_of(data_dir)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert code == 143 and not left, output[-2000:]
    assert "Stopping temporary server" in output
