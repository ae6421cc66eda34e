"""Benchmark: peak memory of writing results of long texts (goal: far below the output's size).

A team's warehouse holds hundreds of thousands of articles, so what writes them out must stream:

- ``sql``: ``arastance sql -f csv|json|parquet|table -o FILE`` on a query of about 11 KB per row. DuckDB's
  streaming buffer counts a chunk's vectors, not its strings' bytes, and rows were fetched ten thousand at a
  time: 845 MB peak for a 206 MB CSV before ``39ec1f1``. Parquet was written in DuckDB's row groups of
  122,880 rows, each held whole (376 MB above the idle command for 14,000 rows, 1.1 GB for 42,000), and
  the table fetched every row to size its columns (365 MB; 1.0 GB); now 93–106 and 131 MB (the table keeps
  up to 32 MB of its rows in memory before it spills them to a file).
- ``export``: ``dataset export`` of gold pairs whose articles are long, run within a DuckDB memory limit
  of 128 MB: the export held every pair's text in Python (4.3 GB for 41,000 pairs of 11.5 KB before
  ``b117de6``), and sorting every text with its row ran out of DuckDB's memory. It then still read 200
  texts at a time whatever their length and held row groups of 8M characters (363 MB above an empty
  export for 296 MB of text); batches now aim at 2M characters and row groups at 4 MB (about 200 MB,
  most of it DuckDB's: its cache up to the limit, and what it reads beyond what it counts).

Each command runs in a process of its own, which reports its peak resident memory; the figure printed is
that peak above an idle run of the same command (``SELECT 1``; the export of an empty warehouse).

    .venv/bin/python benchmarks/bench_large_outputs.py [--rows 14000] [--claims 500]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the tests' warehouse builders

from helpers_annotation import add_long_text_dataset  # noqa: E402

from warehouse import open_warehouse  # noqa: E402

TEXT = "نص المقال " * 67  # 1.2 KB of UTF-8 per stored row
WIDE = "SELECT id, repeat(body, 9) AS body FROM memory_probe"  # 11 KB a row, as an article

#: Run in the measured process: prints its peak resident memory (VmHWM: its own image's, where
#: getrusage's figure for children also counts the memory of the process that forked it).
_REPORT_PEAK = """
import re, sys
from pathlib import Path
def report_peak():
    print(int(re.search(r"VmHWM:\\s*(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024,
          file=sys.stderr)
"""
#: Each command in a process of its own.
_SQL = _REPORT_PEAK + """
from arastance.cli import main
try:
    main()
finally:
    report_peak()
"""
_EXPORT = _REPORT_PEAK + """
from tasks.dataset.export import export_dataset
from warehouse import open_warehouse
with open_warehouse(Path(sys.argv[1]), publish=False) as wh:
    export_dataset(wh, Path(sys.argv[2]))
report_peak()
"""


def _peak(script: str, *args: str, env: dict[str, str] | None = None) -> int:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"failed: {done.stderr[-2000:]}")
    return int(done.stderr.strip().splitlines()[-1])


def bench_sql(work: Path, rows: int) -> None:
    data = work / "sql"
    with open_warehouse(data / "warehouse.duckdb") as wh:  # closing publishes the copy `sql` reads
        wh.con.execute(f"CREATE TABLE memory_probe AS SELECT i AS id, ? || i::VARCHAR AS body FROM range({rows}) t(i)",
                       [TEXT])
    env = {"ARASTANCE_DATA_DIR": str(data)}
    idle = _peak(_SQL, "sql", "-f", "csv", "-o", str(work / "one.csv"), "SELECT 1 AS n", env=env)
    for fmt in ("csv", "json", "parquet", "table"):
        out = work / f"wide.{fmt}"
        peak = _peak(_SQL, "sql", "-f", fmt, "-o", str(out), WIDE, env=env)
        print(f"sql -f {fmt} -o: {out.stat().st_size >> 20} MB written, {(peak - idle) >> 20} MB above the idle command")


def bench_export(work: Path, claims: int) -> None:
    db = work / "export" / "warehouse.duckdb"
    with open_warehouse(db, publish=False) as wh:
        text = add_long_text_dataset(wh, claims)
    empty = work / "empty" / "warehouse.duckdb"
    open_warehouse(empty, publish=False).close()
    limited = {"ARASTANCE_WAREHOUSE_MEMORY_LIMIT": "128MB"}  # DuckDB's buffers and cache; it spills beyond
    idle = _peak(_EXPORT, str(empty), str(work / "empty-ds"), env=limited)
    peak = _peak(_EXPORT, str(db), str(work / "ds"), env=limited)
    written = sum(p.stat().st_size for p in (work / "ds").glob("*.jsonl"))
    print(f"dataset export: {text >> 20} MB of article text, {written >> 20} MB of JSON Lines, "
          f"{(peak - idle) >> 20} MB above an empty export (DuckDB limited to 128 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=14_000, help="rows of the sql result (11 KB each)")
    parser.add_argument("--claims", type=int, default=500, help="claims of the export (4 articles of 120 KB each)")
    args = parser.parse_args()
    if not Path("/proc/self/status").is_file() or not re.search("VmHWM", Path("/proc/self/status").read_text()):
        raise SystemExit("this benchmark reads peak memory from /proc/self/status (Linux)")
    with tempfile.TemporaryDirectory(prefix="bench-large-outputs-") as tmp:
        os.environ["ARASTANCE_DATA_DIR"] = str(Path(tmp) / "data")  # never the configured places
        bench_sql(Path(tmp), args.rows)
        bench_export(Path(tmp), args.claims)


if __name__ == "__main__":
    main()
