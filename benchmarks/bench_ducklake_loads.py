"""Benchmark: two concurrent claim loads into one DuckLake warehouse versus one load alone.

Starts a PostgreSQL server (the Debian package's binaries, as in the tests), then, each time on
a fresh catalog and data path:

1. one load of a run of ``--claims`` claims, in a process of its own;
2. two loads at once, each in its own process with its own data directory (two Prefect workers
   on two hosts), of two runs of ``--claims`` claims each from different URLs.

Writers take the catalog's write lock per transaction (:mod:`warehouse.ducklake`), so the two
loads overlap where they read, validate and prepare (page bodies, claim text) and queue where
they commit. Prints each load's wall and CPU time, the wall time of the pair, and what loading
the two runs one after the other would take (twice the single load); CPU time and the load
average tell a busy machine from slow code.

    .venv/bin/python benchmarks/bench_ducklake_loads.py [--claims 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from helpers_crawl_load import StagedPost, write_run  # noqa: E402  (the tests' staging-run writer)
from helpers_postgres import PostgresServer, benchmark_postgres  # noqa: E402

_LOAD_CHILD = """
import json, sys, time
from tasks.claim_load.load import load_crawl_run
from warehouse import open_warehouse
run_dir, go = sys.argv[1:3]
while not __import__("os").path.exists(go):
    time.sleep(0.005)
start, cpu = time.time(), time.process_time()
with open_warehouse() as wh:
    r = load_crawl_run(wh, run_dir)
print(json.dumps({"start": start, "end": time.time(), "cpu": time.process_time() - cpu, "new_claims": r.new_claims}))
"""


def _run(root: Path, name: str, first: int, n: int) -> Path:
    posts = [StagedPost(f"/{name}/{i}/", f"ادعاء {name} رقم {i} عن واقعة في المدينة {i * 37} لم تحدث", title=f"حقيقة {i}")
             for i in range(first, first + n)]
    return write_run(root / name / "data" / "staging" / name, "araanews", posts)


def _loads(server: PostgresServer, root: Path, label: str, runs: list[Path]) -> list[dict[str, Any]]:
    """Load ``runs`` at once, one process each, into a fresh DuckLake; print and return the figures."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TQDM_DISABLE": "1", "ARASTANCE_WAREHOUSE_BACKEND": "ducklake",
           "ARASTANCE_WAREHOUSE_CATALOG_URL": server.create_database(label),
           "ARASTANCE_WAREHOUSE_DATA_PATH": str(root / f"{label}-lake")}
    subprocess.run([sys.executable, "-c", "from warehouse import open_warehouse; open_warehouse().close()"],
                   env={**env, "ARASTANCE_DATA_DIR": str(root / "migrate")}, check=True, cwd=root)
    go = root / f"{label}.go"
    procs = [subprocess.Popen([sys.executable, "-c", _LOAD_CHILD, str(run), str(go)], cwd=root, text=True,
                              env={**env, "ARASTANCE_DATA_DIR": str(run.parents[1])}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for run in runs]
    time.sleep(3)  # let both import before the start
    go.touch()
    results = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode:
            raise RuntimeError(f"{label} failed:\n{err[-3000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    for i, r in enumerate(results):
        print(f"{label} load {i + 1}: wall {r['end'] - r['start']:6.1f} s   cpu {r['cpu']:5.1f} s   new claims {r['new_claims']:,}")
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=2000, help="claims per run")
    args = parser.parse_args(argv)
    with benchmark_postgres("bench_ducklake") as (server, root):
        run_a, run_b = _run(root, "a", 0, args.claims), _run(root, "b", args.claims, args.claims)
        print(f"load average {os.getloadavg()[0]:.2f}; {args.claims:,} claims per run")
        (single,) = _loads(server, root, "alone", [run_a])
        pair = _loads(server, root, "pair", [run_a, run_b])
        one = single["end"] - single["start"]
        both = max(r["end"] for r in pair) - min(r["start"] for r in pair)
        print(f"one load alone {one:.1f} s; two concurrent loads {both:.1f} s for twice the claims "
              f"(one after the other: {2 * one:.1f} s; speed-up {2 * one / both:.2f}x); "
              f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
