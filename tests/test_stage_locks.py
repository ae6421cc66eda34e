"""Per-stage locks: a live holder refuses a second run with its PID, a dead holder's lock is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json
from helpers_crawl_load import StagedPost, write_run

from arastance.config import load_settings
from tasks.annotation.workflow import import_annotations
from tasks.crawl_runner import run_spider
from tasks.claim_load.load import load_crawl_run
from tasks.stage_locks import StageBusyError, stage_lock, warehouse_locks
from warehouse import Warehouse, open_warehouse

PROJECT = Path(__file__).resolve().parents[1]


@contextmanager
def lock_held_elsewhere(directory: Path, stage: str) -> Iterator[subprocess.Popen[bytes]]:
    """Another process that takes the stage's lock and keeps it until this block ends (SIGKILL)."""
    code = (
        "import sys, time\nfrom tasks.stage_locks import stage_lock\n"
        f"with stage_lock({str(directory)!r}, {stage!r}):\n    print('held', flush=True)\n    time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=PROJECT, stdout=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(PROJECT)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"held"
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_live_holder_is_refused_with_its_pid_and_a_dead_one_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with lock_held_elsewhere(tmp_path, "load") as holder:
        with pytest.raises(StageBusyError, match=f"load is already running \\(PID {holder.pid} on "):
            with stage_lock(tmp_path, "load"):
                pass
    with stage_lock(tmp_path, "load"):  # the holder died without cleaning up: its lock is free
        pass
    assert any(getattr(r, "dead_pid", None) == holder.pid for r in caplog.records)
    with stage_lock(tmp_path, "load"), pytest.raises(StageBusyError, match=f"PID {os.getpid()}"):
        with stage_lock(tmp_path, "load"):  # one process, two runs (threads of one flow) count too
            pass


def test_a_second_crawl_of_a_running_site_is_refused_before_touching_its_run(tmp_path: Path) -> None:
    settings = load_settings()
    started = time.monotonic()
    with lock_held_elsewhere(settings.data_dir / "locks", "crawl-dabegad") as holder:
        with pytest.raises(StageBusyError, match=f"crawl-dabegad is already running \\(PID {holder.pid}"):
            run_spider("dabegad", settings)
    assert time.monotonic() - started < 30
    assert not (settings.data_dir / "crawl_jobs").exists()  # no run id chosen, no scratch shared


def test_load_and_annotation_import_take_their_stage_lock(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "norumors-1", "norumors", [StagedPost("/p/1/", "شائعة عن المطر", "مطر")])
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    labels = write_json(tmp_path / "l.json", [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree")])])
    locks = warehouse_locks(warehouse.path)
    for stage, call in (("load", lambda: load_crawl_run(warehouse, run)),
                        ("annotation-import", lambda: import_annotations(warehouse, labels))):
        with lock_held_elsewhere(locks, stage) as holder, pytest.raises(StageBusyError, match=f"PID {holder.pid}"):
            call()
        call()  # the holder is gone: the stage runs
    assert warehouse.scalar("SELECT count(*) FROM crawl_runs") == 1
    assert warehouse.scalar("SELECT count(*) FROM annotations") == 1


def test_retrieval_and_training_flows_take_their_stage_lock(tmp_path: Path) -> None:
    from flows.retrieve_documents import retrieve_documents
    from flows.train import train_stance_model

    # the lock leaves the flows' parameters as Prefect validates and documents them
    assert train_stance_model.validate_parameters({"kind": "cpu", "scheme": "4way"})["kind"] == "cpu"
    assert retrieve_documents.validate_parameters({"limit": 3})["limit"] == 3
    assert "description" in train_stance_model.parameters.properties["dataset"]
    other = tmp_path / "elsewhere" / "w.duckdb"  # training honours its warehouse_path parameter
    other.parent.mkdir()
    with open_warehouse(other):  # a flow works on an existing warehouse (a mistyped path is refused first)
        pass
    for stage, call, locks in (
        ("retrieval", lambda: retrieve_documents.fn(), warehouse_locks(load_settings().warehouse)),
        ("training", lambda: train_stance_model.fn(warehouse_path=str(other)), warehouse_locks(other)),
    ):
        with lock_held_elsewhere(locks, stage) as holder, \
                pytest.raises(StageBusyError, match=f"{stage} is already running \\(PID {holder.pid}"):
            call()


def test_the_cli_says_which_process_holds_the_stage(tmp_path: Path) -> None:
    from arastance.config import load_settings as settings_now

    run = write_run(tmp_path / "norumors-1", "norumors", [StagedPost("/p/1/", "شائعة عن المطر", "مطر")])
    with lock_held_elsewhere(warehouse_locks(settings_now().warehouse), "load") as holder:
        done = subprocess.run([sys.executable, "-c", "from arastance.cli import main; main()", "claims", "load", str(run)],
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(PROJECT)}, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode != 0
    assert f"load is already running (PID {holder.pid}" in done.stderr and "Traceback" not in done.stderr
