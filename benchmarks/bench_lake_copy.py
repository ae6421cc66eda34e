"""Benchmark: `arastance warehouse copy-to-lake` of DuckDB warehouse files of a few thousand claims.

Starts a PostgreSQL server (the Debian package's binaries, as in the tests). For each size, builds
a warehouse file by loading a synthetic staging run (:func:`bench_claim_load.generate_run`: claims
with ``--body-kib`` KiB HTML bodies, stored compressed in ``raw_pages``) and adding retrieved
articles, pairs and annotations (the tests' helpers), then copies it into a fresh catalog and data
path in a process of its own, so that its peak RSS is the copy's. Prints the file's size, the rows
copied, the copy's wall and CPU time, and its peak RSS beside the RSS the process had before the
copy began (imports, the attached catalog), for each ``--chunk-mib`` (the rows of a table that
one INSERT … SELECT copies; 100000 copies each table in one statement, as the first version did).

Measured 2026-12-05 on the 2-core machine at load average 4-5 (30 KiB bodies; 194 MiB before the
copy): 8,000 claims (a 122 MiB file, 224,188 rows) in 4.7 s, peak RSS 536 MiB; a table per
statement 4.5 s, 761 MiB. With warehouse_memory_limit 300MB: 8,000 claims 533 MiB (a table per
statement 724 MiB); 24,000 claims (574 MiB, 500,509 rows) 4.5 s, 607 MiB, where a table per
statement failed (Out of Memory on raw_pages' 323 MiB of bodies); 48,000 claims (1.2 GiB,
887,804 rows) 626 MiB. Under DuckDB's default limit (80% of RAM) the peak also holds what DuckDB
caches of the file it read: 48,000 claims 1,176 MiB.

    .venv/bin/python benchmarks/bench_lake_copy.py [--claims 2000 8000] [--body-kib 30] [--memory-limit 300MB]
        [--chunk-mib 32 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_claim_load import generate_run  # noqa: E402  (the claim-load benchmark's staging runs)
from helpers_annotation import add_labelled_pairs  # noqa: E402  (the tests' articles, pairs, annotations)
from helpers_postgres import PostgresServer, benchmark_postgres  # noqa: E402

from tasks.claim_load.load import load_crawl_run  # noqa: E402
from warehouse import Warehouse  # noqa: E402
from warehouse.connection import create_aside  # noqa: E402

_COPY_CHILD = """
import json, sys, time
from pathlib import Path
from arastance.config import load_settings
from warehouse import open_warehouse
from warehouse import lake_copy
def hwm():  # this process's peak RSS in MiB (getrusage's is inherited from the parent across exec)
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) / 1024
lake_copy.CHUNK_BYTES = int(sys.argv[2])
with lake_copy.open_source(Path(sys.argv[1])) as src, open_warehouse(load_settings().warehouse, migrate=False) as lake:
    before = hwm()
    wall, cpu = time.perf_counter(), time.process_time()
    counts = lake_copy.copy_to_lake(src, lake)
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "rss_before_mib": before,
                  "rss_mib": hwm(), "rows": sum(counts.values()), "tables": len(counts)}))
"""
_BUILD_CHILD = """
import sys
sys.path[:0] = sys.argv[4:]
from pathlib import Path
from bench_lake_copy import build_warehouse
build_warehouse(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
"""


def build_warehouse(root: Path, claims: int, body_kib: int) -> Path:
    """A warehouse file of ``claims`` loaded claims and ``claims // 4`` annotated claims of 3 pairs each."""
    run = root / f"staging-{claims}" / f"run-{claims}"
    generate_run(run, claims, np.random.default_rng(13), fetched_at="2024-01-01T00:00:00+00:00", body_kib=body_kib)
    path = root / f"warehouse-{claims}.duckdb"
    create_aside(path)
    with Warehouse(path, publish=False) as wh:
        load_crawl_run(wh, run)
        add_labelled_pairs(wh, claims // 4)
    shutil.rmtree(run.parent)
    return path


def build_in_child(root: Path, claims: int, body_kib: int) -> Path:
    """:func:`build_warehouse` in a process of its own, which has let the file go when it ends."""
    subprocess.run([sys.executable, "-c", _BUILD_CHILD, str(root), str(claims), str(body_kib), str(ROOT), str(ROOT / "tests"),
                    str(ROOT / "benchmarks")], check=True, cwd=root, env={**os.environ, "TQDM_DISABLE": "1"})
    return root / f"warehouse-{claims}.duckdb"


def lake_settings(server: PostgresServer, root: Path, label: str) -> dict[str, str]:
    """The environment of a process working on a fresh lake: its own catalog database and data path."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "ARASTANCE_DATA_DIR": str(root / f"{label}-data"),
            "ARASTANCE_WAREHOUSE_BACKEND": "ducklake", "ARASTANCE_WAREHOUSE_CATALOG_URL": server.create_database(label),
            "ARASTANCE_WAREHOUSE_DATA_PATH": str(root / f"{label}-lake")}


def copy_in_child(env: dict[str, str], root: Path, path: Path, chunk_bytes: int) -> dict[str, Any]:
    """Copy ``path`` into the lake of ``env`` in a process of its own, ``chunk_bytes`` a statement; return its figures."""
    done = subprocess.run([sys.executable, "-c", _COPY_CHILD, str(path), str(chunk_bytes)], capture_output=True,
                          text=True, cwd=root, env=env)
    if done.returncode:
        raise RuntimeError(f"copy of {path} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[2000, 8000], help="claims per warehouse file")
    parser.add_argument("--body-kib", type=int, default=30, help="HTML body size per page")
    parser.add_argument("--memory-limit", default=None, help="warehouse_memory_limit of the copying process")
    parser.add_argument("--chunk-mib", type=int, nargs="+", default=[32, 100_000],
                        help="bytes of rows per INSERT, in MiB (lake_copy.CHUNK_BYTES; 100000: a table per statement)")
    args = parser.parse_args(argv)
    with benchmark_postgres("bench_lake_copy") as (server, root):
        print(f"load average {os.getloadavg()[0]:.2f}; memory limit {args.memory_limit or 'DuckDB default'}")
        for claims in args.claims:
            path = build_in_child(root, claims, args.body_kib)
            for chunk_mib in args.chunk_mib:
                env = lake_settings(server, root, f"{path.stem}_{chunk_mib}".replace("-", "_"))
                if args.memory_limit:
                    env["ARASTANCE_WAREHOUSE_MEMORY_LIMIT"] = args.memory_limit
                try:
                    r = copy_in_child(env, root, path, chunk_mib * 2**20)
                except RuntimeError as exc:
                    print(f"{claims:>6,} claims, {chunk_mib:,} MiB a statement: failed: {str(exc).splitlines()[-1]}")
                    continue
                print(f"{claims:>6,} claims, file {path.stat().st_size / 2**20:6.1f} MiB, {chunk_mib:,} MiB a "
                      f"statement: copied {r['rows']:>8,} rows of {r['tables']} tables in {r['wall']:5.1f} s (cpu "
                      f"{r['cpu']:5.1f} s); peak RSS {r['rss_mib']:5.0f} MiB ({r['rss_before_mib']:.0f} MiB before "
                      "the copy)", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
