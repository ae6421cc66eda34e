"""The terminal as an operator reads it, piped: a stage's own lines once each, no per-task state
lines, no carriage returns, tables at their natural width; and the demo's closing hints."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from helpers_true_claims import FLOOD, FUEL, claim_row

from arastance.cli.commands.demo import prefect_hint
from arastance.logging import TerminalFormatter
from arastance.config import load_settings
from warehouse import open_warehouse

REPO = Path(__file__).resolve().parents[1]


def arastance(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arastance.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO), **env})


@pytest.mark.slow
def test_a_flow_command_prints_its_own_lines_once_and_no_task_state_lines(tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
                                  claim_row("f2", "false", FUEL, date(2016, 3, 1)),
                                  claim_row("r1", "true", f"{FLOOD} صباحا", date(2016, 4, 1))])
    done = arastance("select-true-claims", env={"PREFECT_HOME": str(tmp_path / "prefect"),
                                    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
                                    "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    assert done.returncode == 0, done.stderr[-3000:]
    err = done.stderr
    assert err.count("selection inputs read") == 1, err  # one handler: no line twice
    assert "seeds=2 headlines=1" in err
    assert "Task run" not in err and "prefect.task_runs" not in err, err  # no per-task state lines
    assert "Finished in state Completed()" in err  # the flow run's own end stays
    assert "\r" not in err and "httpx" not in err


def test_tables_keep_their_width_when_piped() -> None:
    assert arastance("warehouse", "migrate", env={}).returncode == 0
    done = arastance("sql", "SELECT repeat('ب', 150) AS long_text, 42 AS answer", env={})
    assert done.returncode == 0, done.stderr
    [row] = [line for line in done.stdout.splitlines() if "ب" in line]
    assert "ب" * 150 in row and "42" in row


def test_the_demo_hint_names_the_server_it_ran_on_or_how_to_keep_the_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    hint = prefect_hint("abc")
    assert "temporary Prefect server" in hint and "PREFECT_API_URL=http://127.0.0.1:4200/api make demo" in hint
    monkeypatch.setenv("PREFECT_API_URL", "http://10.0.0.7:4200/api")
    assert "http://10.0.0.7:4200/runs/flow-run/abc" in prefect_hint("abc")


def _failed_record(name: str) -> logging.LogRecord:
    try:
        raise ValueError("warehouse /x/w.duckdb is broken")
    except ValueError:
        return logging.LogRecord(name, logging.ERROR, __file__, 1, "Encountered exception: %s", ("ValueError",),
                                 sys.exc_info())


def test_a_failed_prefect_run_shows_its_message_without_the_traceback_unless_debugging() -> None:
    quiet = TerminalFormatter("%(levelname)s %(name)s: %(message)s", "%H:%M:%S", verbose=False)
    debug = TerminalFormatter("%(levelname)s %(name)s: %(message)s", "%H:%M:%S", verbose=True)
    record = _failed_record("prefect.flow_runs")
    assert quiet.format(record) == "ERROR prefect.flow_runs: Encountered exception: ValueError"
    assert "Traceback" in debug.format(record) and "is broken" in debug.format(record)
    assert "Traceback" in quiet.format(_failed_record("tasks.retrieval"))  # the project's own: kept
