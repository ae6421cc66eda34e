"""The one progress convention: one-line progress records in logs (no carriage returns), a rich
bar on a terminal, nothing for short work."""

from __future__ import annotations

import logging
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from arastance.progress import Progress, progress_line, track

REPO = Path(__file__).resolve().parents[1]


def test_piped_work_logs_one_line_records_and_a_final_one(caplog: pytest.LogCaptureFixture,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with caplog.at_level(logging.INFO, logger="arastance.progress"):
        with Progress("embedding", total=4, unit="texts", interval_s=0) as bar:
            for _ in range(4):
                bar.update()
    lines = [r.getMessage() for r in caplog.records if r.name == "arastance.progress"]
    assert lines[0].startswith("embedding: 1/4 texts (25%)") and "left" in lines[0]
    assert lines[-1].startswith("embedding: 4/4 texts (100%)") and " in " in lines[-1]
    assert "\r" not in capsys.readouterr().err  # nothing drawn when stderr is not a terminal


def test_short_work_stays_quiet(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="arastance.progress"):
        assert list(track(range(3), "tiny", unit="things", min_total=10)) == [0, 1, 2]
        assert list(track(range(3), "off", enabled=False)) == [0, 1, 2]
    assert not [r for r in caplog.records if r.name == "arastance.progress"]


def test_the_line_says_rate_and_time_left() -> None:
    assert progress_line("tuning", 30, 120, "fits", 10.0) == "tuning: 30/120 fits (25%), 3.0/s, about 30s left"
    assert progress_line("reading", 7, None, "pages", 2.0) == "reading: 7 pages, 3.5/s"


def test_a_terminal_gets_a_rich_bar() -> None:
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from arastance.progress import track; list(track(range(40), 'crunching', unit='things'))"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    drawn = b"".join(chunks).decode("utf-8", errors="replace")
    assert proc.returncode == 0
    assert "crunching" in drawn and "40/40" in drawn and "━" in drawn, drawn
