"""Benchmark: 500 new claims clustered into a warehouse of 100k and 1M claims (goal: < 10 s at 1M).

Stores ``N`` generated claims (the claim-load benchmark's statements: reworded copies, reposts)
straight into a fresh warehouse, clusters them in full and builds the near-duplicate index
(timed, the one-off cost), then stores 500 more and clusters them incrementally against the
index, as a load does (:func:`tasks.dedup_index.add_claims`). With ``--check`` it re-clusters
everything afterwards and checks the incremental result equals it. Prints wall and CPU time
and peak RSS. Each size runs in a process of its own; the machine is shared, so timings are noisy.
The one-off build takes ~10 CPU minutes at 1M: ``--keep DIR`` saves each size's build (before
the new claims) and later runs copy it instead.

Measured 2026-12-01 on the shared 2-core machine (load average 8-13, so wall times are
inflated; CPU is the steadier figure): 100k claims, 500 new in 2.17 s wall / 0.54 s CPU,
equal to the full re-cluster (full build 36.4 s / 10.4 s CPU, peak RSS 876 MiB); 1M claims,
500 new in 9.71 s wall / 3.67 s CPU (5.47 s / 3.63 s in a second run), 54 cluster rows
changed, peak RSS 943 MiB; again after the merge, at load average ~0.5 with a fresh 1M build
(361.6 s / 362.4 s CPU, peak RSS 5,305 MiB): 500 new in 2.49 s wall / 3.70 s CPU. Before the index kept positions and sizes and verified its
candidates: 25.3 s / 2.09 s CPU at 100k and 62.5 s / 57.0 s CPU at 1M (a third of the stored
texts were candidates, and all of them were re-clustered).

    .venv/bin/python benchmarks/bench_dedup_incremental.py [--claims 100000 1000000] [--new 500] [--check] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from arastance.base.input_paths import blocked_directory  # noqa: E402

CHUNK = 100_000


def store_claims(wh, statements: list[str], start: int) -> None:
    """Write claims straight into ``claims`` (the loader's preprocessing is another benchmark's)."""
    from warehouse import claims as claims_db
    from arastance.base.ids import content_hash

    seen = datetime(2018, 3, 10, 12)
    for lo in range(0, len(statements), CHUNK):
        rows = []
        for i, text in enumerate(statements[lo:lo + CHUNK], start=start + lo):
            url = f"https://araanews.ae/claim-{i}"
            rows.append({
                "claim_id": f"c{i:08d}", "source_id": "araanews", "canonical_url": url, "url": url, "title": None,
                "raw_text": text, "cleaned_text": text, "normalized_text": text, "body_text": None, "veracity": "false",
                "published_date": date(2012, 1, 1) + timedelta(days=i % 2500), "published_raw": None, "category": None,
                "is_multimedia": False, "claim_review": None, "content_hash": content_hash(text), "status": "active",
                "status_reason": None, "page_id": None, "field_layers": None, "first_seen": seen, "last_seen": seen, "run_id": "bench",
            })
        claims_db.upsert_claims(wh, claims_db.claims_table(rows))


def one_size(n: int, new: int, check: bool, seed: int, keep: Path | None = None) -> dict:
    """Build (or copy from ``keep``) a warehouse of ``n`` clustered claims, then time ``new`` more."""
    from arastance.config import load_settings
    from bench_claim_load import generate_statements
    from warehouse import open_warehouse

    s = load_settings().crawl
    opts = {"threshold": s.near_duplicate_threshold, "shingle_size": s.shingle_size}
    out: dict = {"claims": n}
    t = time.perf_counter()
    statements, _ = generate_statements(n + new, np.random.default_rng(seed))
    out["generate_s"] = time.perf_counter() - t
    built = None if keep is None else keep / f"dedup-{n}+{new}-seed{seed}.duckdb"  # the statements depend on n + new
    with tempfile.TemporaryDirectory(prefix="bench_dedup_") as tmp:
        path = Path(tmp) / "w.duckdb"
        if built is not None and built.exists():
            shutil.copyfile(built, path)
        else:
            with open_warehouse(path, publish=False) as wh:
                _build(wh, statements[:n], opts, out)
            if built is not None:
                built.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, built)
        with open_warehouse(path, publish=False) as wh:
            _incremental(wh, statements[n:], n, check, opts, out)
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _build(wh, statements: list[str], opts: dict, out: dict) -> None:
    """Store ``statements`` as claims, then cluster them in full and build the index (timed)."""
    from tasks import dedup_index

    wh.con.execute("INSERT INTO sources (source_id, name, kind) VALUES ('araanews', 'Araanews', 'fact_check')")
    store_claims(wh, statements, 0)
    wall, cpu = time.perf_counter(), time.process_time()
    out["clustered_before"], _ = dedup_index.rebuild_clusters(wh, "false", **opts)
    out["full_build_s"], out["full_build_cpu_s"] = time.perf_counter() - wall, time.process_time() - cpu


def _incremental(wh, statements: list[str], start: int, check: bool, opts: dict, out: dict) -> None:
    """Store ``statements`` as new claims and cluster them against the index (timed); ``check``: compare."""
    from tasks import dedup_index
    from tasks.dedup import cluster_claims
    from warehouse import claims as claims_db

    store_claims(wh, statements, start)
    new_ids = [f"c{i:08d}" for i in range(start, start + len(statements))]
    wall, cpu = time.perf_counter(), time.process_time()
    clustered, changed = dedup_index.add_claims(wh, "false", new_ids, **opts)
    out["incremental_s"], out["incremental_cpu_s"] = time.perf_counter() - wall, time.process_time() - cpu
    out["clustered_after"], out["changed_rows"] = clustered, changed
    if check:
        ids, texts = claims_db.cluster_input(wh, "false")
        full = {(m.claim_id, m.cluster_id, m.similarity, m.method) for m in cluster_claims(ids, texts, **opts)}
        stored = set(wh.con.execute("SELECT claim_id, cluster_id, similarity, method FROM claim_clusters").fetchall())
        out["equals_full_recluster"] = full == stored


def positive(text: str) -> int:
    """A count of claims: 0 or less has nothing to cluster (and a child given 0 once ran the default sizes)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a number of claims: give 1 or more")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=positive, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--new", type=positive, default=500)
    parser.add_argument("--check", action="store_true", help="compare with a full re-cluster afterwards")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep", type=Path, help="keep each size's one-off build here and reuse it on later runs")
    parser.add_argument("--child", type=positive, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(one_size(args.child, args.new, args.check, args.seed, args.keep)))
        return
    blocked = blocked_directory(args.keep) if args.keep else None  # named now, not after a build of minutes
    if blocked:
        parser.error(f"--keep {args.keep}: {blocked[0]} {blocked[1]}")
    failed = []
    for n in args.claims:
        command = [sys.executable, __file__, "--child", str(n), "--new", str(args.new), "--seed", str(args.seed)]
        command += ["--keep", str(args.keep)] if args.keep else []
        done = subprocess.run(command + (["--check"] if args.check else []), capture_output=True, text=True,
                              env={**os.environ, "TQDM_DISABLE": "1"})
        if done.returncode != 0:
            print(f"{n:,} claims: failed\n{done.stderr[-2000:]}", flush=True)
            failed.append(n)
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        check = f"   equals full re-cluster: {r['equals_full_recluster']}" if "equals_full_recluster" in r else ""
        build = (f"full cluster + index build {r['full_build_s']:6.1f} s (cpu {r['full_build_cpu_s']:.1f})"
                 if "full_build_s" in r else f"build reused from {args.keep}")
        print(f"{n:>9,} claims: {build}   "
              f"{args.new} new claims incrementally {r['incremental_s']:5.2f} s (cpu {r['incremental_cpu_s']:.2f})   "
              f"{r['changed_rows']} cluster rows changed   peak RSS {r['peak_rss_mib']:,.0f} MiB{check}", flush=True)
    if failed:  # `make bench` stops here instead of reporting success
        sys.exit(f"failed at {', '.join(f'{n:,}' for n in failed)} claims")


if __name__ == "__main__":
    main()
