"""Benchmark: load + deduplicate 100k generated claims, then load them again (goal: < 30 s each).

Writes a synthetic crawl staging run (the staging contract's claims.jsonl / pages.jsonl /
run.json; page bodies not kept, as for pages a crawl does not store) of debunk-framed Arabic-like
claims: pseudo-words spelled with Arabic letters, Zipf-distributed and grouped into topics,
wrapped in the sites' framings; 8% are lightly reworded copies of another claim (one word
changed), 3% reposts (same text, another URL), 2% multimedia, 1% empty. Then, into a fresh
warehouse file:

1. the first load (validation, preprocessing, canonical URLs, upsert, exact + near-duplicate
   clustering over the whole warehouse, one transaction);
2. the same run again (idempotent: 0 new rows);
3. a re-crawl of the unchanged site (a new run with later fetch times: 0 new rows, last_seen
   moves);
4. the exact + near-duplicate clustering of all claims alone, for its share of a load.

Prints the wall and CPU time of each load (CPU time tells a busy machine from slow code) and
the row counts.

    .venv/bin/python benchmarks/bench_claim_load.py [--claims 100000] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arastance.base.ids import content_hash, stable_id  # noqa: E402
from arastance.config import load_settings  # noqa: E402
from tasks.claim_load.load import LoadReport, load_crawl_run  # noqa: E402
from tasks.dedup import cluster_claims  # noqa: E402
from warehouse import open_warehouse  # noqa: E402
from warehouse.claims import cluster_input  # noqa: E402

LETTERS = list("ابتثجحخدذرزسشصضطظعغفقكلمنهوي")
FRAMINGS = [
    "لا صحة لما يتم تداوله حول {}", "حقيقة {}", "شائعة: {}", "ما حقيقة {}؟", "غير صحيح أن {}",
    "نفي {}", "الحقيقة الكاملة وراء {}", "ما يتم تداوله عن {} غير صحيح", "{}.. خبر كاذب",
]
FUNCTION_WORDS = ["في", "من", "على", "إلى", "عن", "بعد", "قبل", "مع", "خلال", "بسبب", "الذي", "التي"]


def generate_run(run_dir: Path, n: int, rng: np.random.Generator, *, fetched_at: str) -> None:
    """Write a staging run of ``n`` araanews claims to ``run_dir``."""
    vocabulary = sorted({"".join(rng.choice(LETTERS, size=int(rng.integers(3, 9)))) for _ in range(30_000)})
    words = np.array(vocabulary)
    topics = rng.choice(len(words), size=(2_000, 12))
    zipf = 1.0 / np.arange(1, len(words) + 1)
    zipf /= zipf.sum()
    common = iter(rng.choice(len(words), size=n * 16, p=zipf).tolist())  # drawn at once: fast
    statements: list[str] = []
    for _ in range(n):
        roll = rng.random()
        if statements and roll < 0.08:  # lightly reworded copy
            base = statements[int(rng.integers(len(statements)))].split()
            base[int(rng.integers(len(base)))] = str(words[next(common)])
            statements.append(" ".join(base))
        elif statements and roll < 0.11:  # repost, same wording
            statements.append(statements[int(rng.integers(len(statements)))])
        else:
            topic = topics[int(rng.integers(len(topics)))]
            kinds = rng.random(int(rng.integers(6, 16)))
            statements.append(" ".join(
                str(words[topic[int(k * 1000) % len(topic)]]) if k < 0.6
                else FUNCTION_WORDS[int(k * 1000) % len(FUNCTION_WORDS)] if k < 0.8
                else str(words[next(common)])
                for k in kinds
            ))
    run_id = run_dir.name
    run_dir.mkdir(parents=True)
    with open(run_dir / "claims.jsonl", "w", encoding="utf-8") as claims, open(run_dir / "pages.jsonl", "w", encoding="utf-8") as pages:
        for i, statement in enumerate(statements):
            roll = rng.random()
            text = "" if roll < 0.01 else ("[فيديو]" if roll < 0.03 else FRAMINGS[i % len(FRAMINGS)].format(statement))
            url = f"https://araanews.ae/{2012 + i % 7}/{1 + i % 12:02d}/claim-{i}/?utm_source=feed"
            digest = content_hash(f"{url}\n{text}")
            page_id = stable_id(url, digest)
            day = f"{2012 + i % 7}-{1 + i % 12:02d}-{1 + i % 28:02d}"
            pages.write(json.dumps({
                "run_id": run_id, "page_id": page_id, "url": url, "source_id": "araanews", "fetched_at": fetched_at,
                "http_status": 200, "content_hash": digest, "html_file": None, "parse_status": "ok", "parse_error": None,
            }, ensure_ascii=False) + "\n")
            claims.write(json.dumps({
                "run_id": run_id, "source_id": "araanews", "url": url, "title": text[:80], "claim_text": text,
                "body_text": statement, "published_raw": day, "published_date": day, "category": "مجتمع",
                "is_multimedia": roll < 0.03 and roll >= 0.01, "claim_review": None, "veracity": "false",
                "page_id": page_id, "fetched_at": fetched_at,
            }, ensure_ascii=False) + "\n")
    (run_dir / "run.json").write_text(json.dumps({
        "run_id": run_id, "source_id": "araanews", "started_at": fetched_at, "finished_at": fetched_at,
        "pages": n, "items": n, "errors": 0, "dropped": {}, "stats": {},
    }), encoding="utf-8")


def timed(label: str, fn: Callable[[], LoadReport]) -> LoadReport:
    wall, cpu = time.perf_counter(), time.process_time()
    report = fn()
    print(f"{label:<38} wall {time.perf_counter() - wall:6.1f} s   cpu {time.process_time() - cpu:6.1f} s   "
          f"new claims {report.new_claims:>7,}   new pages {report.new_pages:>7,}   new cluster rows {report.new_cluster_rows:>6,}")
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    settings = load_settings()
    with tempfile.TemporaryDirectory(prefix="bench_claim_load_") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        generate_run(root / "araanews-bench-1", args.claims, rng, fetched_at="2018-03-10T12:00:00+00:00")
        generate_run(root / "araanews-bench-2", args.claims, np.random.default_rng(args.seed), fetched_at="2018-04-10T12:00:00+00:00")
        print(f"generated 2 staging runs of {args.claims:,} claims in {time.perf_counter() - t:.1f} s "
              f"(threshold {settings.crawl.near_duplicate_threshold}, {settings.crawl.shingle_size}-char shingles)")
        with open_warehouse(root / "warehouse.duckdb") as wh:
            first = timed("first load", lambda: load_crawl_run(wh, root / "araanews-bench-1", settings=settings))
            timed("same run again", lambda: load_crawl_run(wh, root / "araanews-bench-1", settings=settings))
            timed("re-crawl of the unchanged site", lambda: load_crawl_run(wh, root / "araanews-bench-2", settings=settings))
            wall, cpu = time.perf_counter(), time.process_time()
            ids, texts = cluster_input(wh, "false")
            members = cluster_claims(ids, texts, threshold=settings.crawl.near_duplicate_threshold, shingle_size=settings.crawl.shingle_size)
            print(f"{'deduplication alone (part of a load)':<38} wall {time.perf_counter() - wall:6.1f} s   cpu "
                  f"{time.process_time() - cpu:6.1f} s   {len(ids):,} claims -> {len(members):,} in clusters")
            counts: dict[str, Any] = {t: n for t, n in wh.table_counts().items() if t in {"claims", "raw_pages", "claim_clusters", "crawl_runs"}}
            clusters = wh.query("SELECT method, count(*) AS rows, count(DISTINCT cluster_id) AS clusters FROM claim_clusters GROUP BY method ORDER BY method")
        print(f"statuses after the first load: {first.statuses}; dropped: {first.dropped}")
        print(f"rows: {counts}")
        print(f"clusters: {clusters}")
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
