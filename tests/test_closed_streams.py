"""Commands started with standard output, error or input closed, as cron jobs and daemons often are.

It was: every command ended at import with ``AttributeError: 'NoneType' object has no attribute
'isatty'`` when stdout was closed; with stderr closed, the warehouse took descriptor 2, so whatever
wrote to "standard error" below Python wrote into it, and tqdm's bars ended a run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from warehouse import open_warehouse

HERE = str(Path(__file__).resolve().parents[1])  # this checkout's code, also where another one's venv runs it
ENTRY_POINT = [sys.executable, "-c", "from arastance.cli import main; main()"]  # what the console script runs
CLOSINGS = {"stdout": ">&-", "stderr": "2>&-", "stdin": "<&-", "all three": "<&- >&- 2>&-"}
CLOSED_STDOUT = "error: standard output is closed, and this command's result is printed there; "


def _closed(closing: str, *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` started by bash with the redirections ``closing`` (``>&-``); the streams left open are pipes."""
    return subprocess.run(["bash", "-c", f'"$@" {closing}', "bash", *command], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": HERE})


def _arastance(closing: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _closed(closing, *ENTRY_POINT, *args)


@pytest.mark.parametrize("closing", CLOSINGS.values(), ids=CLOSINGS.keys())
def test_commands_that_store_their_work_run_as_usual_with_a_stream_closed(tmp_path: Path, closing: str) -> None:
    out = tmp_path / "answer.csv"
    for args in (["--help"], ["warehouse", "migrate"], ["sql", "--write", "CREATE TABLE kept AS SELECT 42 AS answer"],
                 ["sql", "--format", "csv", "--out", str(out), "SELECT answer FROM kept"]):
        done = _arastance(closing, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert out.read_text(encoding="utf-8") == "answer\n42\n"
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb") as wh:
        assert wh.con.sql("SELECT answer FROM kept").fetchall() == [(42,)]


@pytest.mark.parametrize(("args", "remedy"), [
    (["sql", "SELECT 1"], "give --out FILE"),
    (["stats"], "run it with standard output open, e.g. > FILE"),
    (["config", "show"], "run it with standard output open, e.g. > FILE"),
    (["warehouse", "status"], "run it with standard output open, e.g. > FILE"),
], ids=["sql", "stats", "config show", "warehouse status"])
def test_a_command_whose_result_is_printed_stops_with_one_line_when_stdout_is_closed(
        tmp_path: Path, args: list[str], remedy: str) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    done = _arastance(">&-", *args)
    assert (done.returncode, done.stderr) == (2, CLOSED_STDOUT + remedy + "\n")
    assert _arastance(">&- 2>&-", *args).returncode == 2  # nowhere to say it, but not a success
    assert _arastance("2>&- <&-", *args).returncode == 0  # only a closed stdout stops it


def test_out_naming_a_closed_stdout_is_refused_and_an_earlier_result_stays(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    done = _arastance(">&-", "sql", "--out", "/dev/stdout", "SELECT 1")
    assert (done.returncode, done.stderr) == (
        2, "error: --out /dev/stdout names descriptor 1, which is not open; give a file name\n")
    kept = tmp_path / "kept.csv"
    kept.write_text("n\n7\n", encoding="utf-8")
    failed = _arastance(">&-", "sql", "--format", "csv", "--out", str(kept), "SELECT error('broken') AS n")
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert kept.read_text(encoding="utf-8") == "n\n7\n"


def test_a_closed_stream_is_held_on_dev_null_for_files_children_and_progress_bars(tmp_path: Path) -> None:
    # what the entry point does first: no file the process opens takes a closed stream's number (the warehouse
    # took 2), a child writing to its standard streams succeeds, and tqdm (model downloads, training) runs
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, subprocess, sys\n"
        "from tqdm import tqdm\n"
        "from arastance.base.std_streams import hold_closed_streams, was_closed\n"
        "hold_closed_streams()\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)\n"
        "child = subprocess.run(['sh', '-c', 'echo out; echo err >&2; cat']).returncode\n"
        "total = sum(tqdm(range(3)))\n"
        "print('dropped'); print('dropped', file=sys.stderr)\n"
        "os.write(fd, f'{fd} {child} {total} {[was_closed(n) for n in (0, 1, 2)]}'.encode())\n",
        encoding="utf-8")
    report = tmp_path / "report.txt"
    for closing, closed in (("<&- >&- 2>&-", "[True, True, True]"), ("2>&-", "[False, False, True]"),
                            ("", "[False, False, False]")):
        done = _closed(closing, sys.executable, str(probe), str(report))
        assert done.returncode == 0, done.stderr
        fd, child, total, seen = report.read_text(encoding="utf-8").split(" ", 3)
        assert int(fd) > 2 and (child, total, seen) == ("0", "3", closed)


def test_retrieve_compare_stops_with_stdout_closed_only_when_its_report_is_printed(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    done = _arastance(">&-", "retrieve", "compare")  # it was: rc 0, the comparison printed to nowhere
    assert (done.returncode, done.stderr) == (
        2, CLOSED_STDOUT + "give --out FILE, or run it with standard output open, e.g. > FILE\n")
    written = _arastance(">&-", "retrieve", "compare", "--out", str(tmp_path / "report.md"))
    assert "no claim has been searched by every backend compared" in written.stderr  # it goes on to compare
