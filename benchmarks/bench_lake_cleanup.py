"""Benchmark: `arastance warehouse clean-lake` on a DuckLake whose rows were rewritten.

Starts a PostgreSQL server (the Debian package's binaries, as in the tests). For each size, builds
a warehouse file (:func:`bench_lake_copy.build_warehouse`), copies it into a fresh lake, rewrites
every claim and raw page ``--rewrites`` times (as re-keying or a re-parse rewrites rows: DuckLake
writes new files and keeps the old ones for time travel), moves the snapshots' times back ten days
(as days would) and leaves a killed write's file in the data path; then runs the command, a dry
run first. Prints the data path's size and file count before and after, and each run's wall time
(a command's, Python's start and imports included).

Measured 2026-12-05 on the 2-core machine at load average 3.1 (30 KiB bodies, two rewrites, with
--delete-unreferenced: the benchmark's lake alone writes its data path): 2,000 claims, a data path of
80.4 MiB in 13 files, cleaned to 27.2 MiB in 8 files in 2.0 s (30 snapshots expired, 4 old files and
the killed write's deleted); 8,000 claims, 320.8 MiB in 16 files to 108.2 MiB in 8 files in 2.5 s. The
dry runs reported the same files and sizes, and took 1.9 s and 2.5 s.

    .venv/bin/python benchmarks/bench_lake_cleanup.py [--claims 2000 8000] [--body-kib 30] [--rewrites 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from bench_lake_copy import build_in_child, copy_in_child, lake_settings  # noqa: E402
from helpers_postgres import PostgresServer, benchmark_postgres  # noqa: E402

_CHURN_CHILD = """
import sys
from warehouse import open_warehouse
with open_warehouse() as wh:
    for _ in range(int(sys.argv[1])):
        wh.execute("UPDATE claims SET title = title")
        wh.execute("UPDATE raw_pages SET fetched_at = fetched_at")
    wh.con.execute("CALL postgres_execute('lake_lock', "
                   "'UPDATE ducklake_snapshot SET snapshot_time = snapshot_time - interval ''10 days''')")
"""


def _data_path(lake: Path) -> tuple[float, int]:
    files = [p for p in lake.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 2**20, len(files)


def _clean(env: dict[str, str], root: Path, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "arastance.cli", "warehouse", "clean-lake", *args],
                          capture_output=True, text=True, cwd=root, env=env)
    if done.returncode:
        raise RuntimeError(f"clean-lake failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - start, done.stdout.strip().split(" on DuckLake")[0]


def bench(server: PostgresServer, root: Path, claims: int, body_kib: int, rewrites: int) -> None:
    path = build_in_child(root, claims, body_kib)
    env = lake_settings(server, root, path.stem.replace("-", "_"))
    copy_in_child(env, root, path, 32 * 2**20)
    lake = Path(env["ARASTANCE_WAREHOUSE_DATA_PATH"])
    subprocess.run([sys.executable, "-c", _CHURN_CHILD, str(rewrites)], check=True, cwd=root, env=env)
    killed = next(lake.rglob("*.parquet"))
    shutil.copy(killed, killed.with_name("ducklake-killed-write.parquet"))
    two_hours_ago = time.time() - 7200
    os.utime(killed.with_name("ducklake-killed-write.parquet"), (two_hours_ago, two_hours_ago))
    mib, files = _data_path(lake)
    print(f"{claims:>6,} claims, {rewrites} rewrite(s): data path {mib:7.1f} MiB in {files:,} files", flush=True)
    for args in (["--dry-run", "--delete-unreferenced"], ["--delete-unreferenced"]):  # this lake alone writes there
        wall, said = _clean(env, root, *args)
        mib, files = _data_path(lake)
        print(f"    clean-lake {' '.join(args):<33} {wall:5.1f} s: {said}; data path now {mib:7.1f} "
              f"MiB in {files:,} files", flush=True)
    path.unlink()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[2000, 8000], help="claims per warehouse")
    parser.add_argument("--body-kib", type=int, default=30, help="HTML body size per page")
    parser.add_argument("--rewrites", type=int, default=2, help="times every claim and raw page is rewritten")
    args = parser.parse_args(argv)
    with benchmark_postgres("bench_lake_cleanup") as (server, root):
        print(f"load average {os.getloadavg()[0]:.2f}")
        for claims in args.claims:
            bench(server, root, claims, args.body_kib, args.rewrites)


if __name__ == "__main__":
    main()
