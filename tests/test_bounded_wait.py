"""Waits for what another process holds: bounded, said once naming the holder, and cut short by a stop.

The three waits (a stage's lock file, the warehouse file, a DuckLake's write lock) were three loops;
the warehouse file's wait said nothing (copy-to-lake's source, held by a writer, waited 30 s in
silence), and told a reader kept out by a writer that only one writer may write at a time.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_stopping import stopped_context

from arastance.base.bounded_wait import wait_for
from arastance.base.stopping import StopRequested
from warehouse import Warehouse, WarehouseBusyError

WAITING = "waiting for another process to close the warehouse"


class Busy(Exception):
    pass


def test_the_first_result_is_returned_and_the_wait_said_once() -> None:
    answers = iter([None, None, None, "lock"])
    said: list[str] = []
    got = wait_for(lambda: next(answers), wait_s=10, every_s=0.01, waiting=lambda: said.append("waiting"),
                   gave_up=lambda: Busy("never"))
    assert got == "lock" and said == ["waiting"]


def test_no_wait_asked_fails_at_once_and_says_nothing() -> None:
    said: list[str] = []
    with pytest.raises(Busy, match="held"):
        wait_for(lambda: None, wait_s=0, every_s=10, waiting=lambda: said.append("waiting"),
                 gave_up=lambda: Busy("held"))
    assert said == []


def test_the_wait_ends_with_the_callers_error_once_its_time_is_up() -> None:
    tries: list[int] = []
    with pytest.raises(Busy, match="waited"):
        wait_for(lambda: tries.append(1), wait_s=0.2, every_s=0.05, waiting=lambda: None,
                 gave_up=lambda: Busy("waited"))
    assert 2 <= len(tries) <= 6


def test_a_run_asked_to_stop_stops_waiting() -> None:
    stopped = stopped_context()  # the flow's block failed: its threads are asked to stop
    with pytest.raises(StopRequested):
        stopped.run(wait_for, lambda: None, wait_s=600, every_s=300, waiting=lambda: None,
                    gave_up=lambda: Busy("never"))


_HOLDER = """
import sys
from warehouse import Warehouse
with Warehouse(sys.argv[1], publish=False):
    print("held", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A warehouse file another process holds open for writing until the test lets it go."""
    path = tmp_path / "w.duckdb"
    Warehouse(path, publish=False).close()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_HOLDER), str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])
    assert holder.stdout.readline() == "held\n"  # type: ignore[union-attr]
    yield path, holder
    holder.communicate("go\n", timeout=60)


@pytest.mark.parametrize("read_only, why", [
    (False, "is locked by another process (only one writer at a time; waited 1s)"),
    (True, "is being written by another process (DuckDB opens no file for reading while a process writes it; "
           "waited 1s)"),
], ids=["writer", "reader"])
def test_opening_a_file_another_process_writes_says_so_once_naming_it_then_fails_in_one_line(
        held: tuple[Path, subprocess.Popen[str]], read_only: bool, why: str, caplog: pytest.LogCaptureFixture) -> None:
    path, holder = held
    caplog.set_level(logging.INFO, logger="warehouse.connection")
    with pytest.raises(WarehouseBusyError) as busy:
        Warehouse(path, read_only=read_only, wait_s=1)
    assert str(busy.value).startswith(f"warehouse {path} {why}: IO Error: Could not set lock on file")
    assert f"(PID {holder.pid})" in str(busy.value) and "\n" not in str(busy.value)
    [waiting] = [r for r in caplog.records if r.getMessage() == WAITING]
    assert waiting.holder == f"PID {holder.pid}" and waiting.wait_s == 1  # type: ignore[attr-defined]


def test_an_open_that_waits_gets_the_file_once_its_writer_closes_it(
        held: tuple[Path, subprocess.Popen[str]], caplog: pytest.LogCaptureFixture) -> None:
    path, holder = held
    caplog.set_level(logging.INFO, logger="warehouse.connection")
    opened: list[Warehouse] = []
    reader = threading.Thread(target=lambda: opened.append(Warehouse(path, read_only=True, wait_s=60)))
    reader.start()
    while not any(r.getMessage() == WAITING for r in caplog.records):
        assert reader.is_alive(), "the reader neither waited nor said so"
        reader.join(0.05)
    holder.stdin.write("go\n")  # type: ignore[union-attr]
    holder.stdin.flush()  # type: ignore[union-attr]
    reader.join(60)
    [wh] = opened
    with wh:
        assert wh.read_only
