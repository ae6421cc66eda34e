"""``arastance sql -f csv|json -o FILE`` streams: a result of long texts is written with a bounded memory.

DuckDB's streaming buffer counted a chunk's vectors but not its strings' bytes, and rows were fetched ten
thousand at a time, so a result of article texts sat in memory twice over (2.9 GB to write an 880 MB CSV).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from warehouse import open_warehouse

ROWS = 14_000
TEXT = "نص المقال " * 67  # 1.2 KB of UTF-8 per stored row
WIDE = "SELECT id, repeat(body, 9) AS body FROM memory_probe"  # 11 KB a row, as an article
# The query makes the texts long, so the stored table (and DuckDB's cache of it) stays small and what is
# measured is the writer's memory.

_PEAK = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run([sys.executable, '-c', 'from arastance.cli import main; main()', *sys.argv[1:]])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
    "sys.exit(done.returncode)\n"
)


@pytest.fixture
def probe_warehouse(tmp_path: Path) -> Path:
    wh = open_warehouse(tmp_path / "data" / "warehouse.duckdb")
    try:
        wh.con.execute(f"CREATE TABLE memory_probe AS SELECT i AS id, ? || i::VARCHAR AS body FROM range({ROWS}) t(i)",
                       [TEXT])
    finally:
        wh.close()  # closing publishes the copy that ``sql`` reads
    return tmp_path


def _peak_rss(*args: str) -> int:
    """Peak resident bytes of one ``arastance sql`` run, measured in a process of its own: this test
    process's RUSAGE_CHILDREN would report the largest child any earlier test started."""
    here = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", _PEAK, "sql", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": here})
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_writing_long_texts_to_a_file_keeps_memory_bounded(probe_warehouse: Path) -> None:
    idle = _peak_rss("-f", "csv", "-o", str(probe_warehouse / "one.csv"), "SELECT 1 AS n")
    for fmt in ("csv", "json"):
        out = probe_warehouse / f"wide.{fmt}"
        peak = _peak_rss("-f", fmt, "-o", str(out), WIDE)
        size = out.stat().st_size
        assert size > ROWS * 9 * len(TEXT.encode())  # the whole result was written
        # it was: 2.5 times the result's size above the command's own footprint; now DuckDB's few chunks
        assert peak - idle < size * 3 / 4, f"{fmt}: writing {size >> 20} MB took {(peak - idle) >> 20} MB above the idle command"
