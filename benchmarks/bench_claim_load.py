"""Benchmark: load + deduplicate 100k generated claims with their HTML bodies, then load them again.

Goals: the first load of 100k claims with 30 KiB bodies in < 60 s with < 2 GiB peak RSS on 2
cores; reloads in < 30 s. Writes a synthetic crawl staging run (the staging contract's
claims.jsonl / pages.jsonl / run.json, and a gzip'd HTML body per page of about ``--body-kib``
KiB: the sites' boilerplate plus article paragraphs; ``--body-kib 0`` keeps no bodies) of
debunk-framed Arabic-like claims: pseudo-words spelled with Arabic letters, Zipf-distributed and grouped into topics,
wrapped in the sites' framings; 8% are lightly reworded copies of another claim (one word
changed), 3% reposts (same text, another URL), 2% multimedia, 1% empty. Then, into a fresh
warehouse file:

1. the first load (validation, preprocessing, canonical URLs, upsert, exact + near-duplicate
   clustering over the whole warehouse, one transaction);
2. the same run again (idempotent: 0 new rows);
3. a re-crawl of the unchanged site (a new run with later fetch times: 0 new rows, last_seen
   moves);
4. the exact + near-duplicate clustering of all claims alone, for its share of a load.

Each load runs in a process of its own, so its peak RSS is its own (large runs add the
preprocessing workers, reported apart; CPU time is the loading process's, workers excluded). Prints the wall and CPU
time and the peak RSS of each load (CPU time tells a busy machine from slow code) and the row
counts.

Measured 2026-12-01, 100k claims (1,384 MiB of staged gzip bodies) on the 2-core machine at load
average ~1: first load 54.9 s wall / 73.0 s CPU, peak RSS 1,720 MiB (+ 178 MiB for the worker that
prepares the claims); same run again 0.4 s; re-crawl of the unchanged site 17.6 s / 5.5 s CPU
(its claims are prepared by the worker), 559 MiB; deduplication alone 3.0 s; warehouse file
2,336 MiB. Before this work (idle machine): 181.5 s wall / 204.4 s CPU, 2,123 MiB. What changed:
pages go in by a plain INSERT behind anti-joins (DuckDB's INSERT OR IGNORE took 1.2-1.4 s per
1,000 pages once 100k were stored, a plain insert ~0.2 s); page batches let DuckDB's write-ahead
log grow to 256 MB before a checkpoint (at the default 16 MiB every batch or two checkpointed,
4-6 s each at 100k); the next batch's bodies are read while the current one is written (72.3 s /
84.4 s CPU / 1,716 MiB at this point); and runs of 20k claims or more prepare their claims
(cleaning, URL canonicalisation, validation: pure Python, ~25 s at 100k) in a worker process
during the page phase, on the second core (`tasks/claim_load/ahead.py`).

    .venv/bin/python benchmarks/bench_claim_load.py [--claims 100000 25000] [--body-kib 30] [--seed 13]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arastance.base.ids import content_hash, stable_id  # noqa: E402
from arastance.config import load_settings  # noqa: E402
from tasks.dedup import cluster_claims  # noqa: E402
from warehouse import open_warehouse  # noqa: E402
from warehouse.claims import cluster_input  # noqa: E402

LETTERS = list("ابتثجحخدذرزسشصضطظعغفقكلمنهوي")
FRAMINGS = [
    "لا صحة لما يتم تداوله حول {}", "حقيقة {}", "شائعة: {}", "ما حقيقة {}؟", "غير صحيح أن {}",
    "نفي {}", "الحقيقة الكاملة وراء {}", "ما يتم تداوله عن {} غير صحيح", "{}.. خبر كاذب",
]
FUNCTION_WORDS = ["في", "من", "على", "إلى", "عن", "بعد", "قبل", "مع", "خلال", "بسبب", "الذي", "التي"]


def _body_parts(words: np.ndarray, rng: np.random.Generator) -> tuple[str, list[str]]:
    """The sites' shared page furniture (head, styles, navigation) and a pool of article paragraphs."""
    nav = "".join(f'<li class="menu-item"><a href="/category/{i}/">{words[i]} {words[i + 1]}</a></li>' for i in range(60))
    style = "".join(f".c{i}{{margin:{i % 9}px;padding:{i % 7}px;color:#{i * 7919 % 0xFFFFFF:06x}}}" for i in range(120))
    head = (f'<!DOCTYPE html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><style>{style}</style>'
            f'<script src="/static/app.js" defer></script></head><body><nav><ul>{nav}</ul></nav>')
    paragraphs = [
        "<p>" + " ".join(str(w) for w in words[rng.integers(0, len(words), size=int(rng.integers(120, 260)))]) + "</p>"
        for _ in range(400)
    ]
    return head, paragraphs


def generate_statements(n: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    """``n`` Arabic-like claim statements (8% reworded copies, 3% reposts) and the vocabulary."""
    lengths = rng.integers(3, 9, size=30_000)
    letters = "".join(rng.choice(LETTERS, size=int(lengths.sum())).tolist())
    ends = np.cumsum(lengths)
    vocabulary = sorted({letters[end - size:end] for end, size in zip(ends.tolist(), lengths.tolist())})
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
    return statements, words


def generate_run(run_dir: Path, n: int, rng: np.random.Generator, *, fetched_at: str, body_kib: int = 0) -> None:
    """Write a staging run of ``n`` araanews claims to ``run_dir`` (with gzip'd bodies if ``body_kib``)."""
    statements, words = generate_statements(n, rng)
    run_id = run_dir.name
    (run_dir / "pages").mkdir(parents=True)
    head, paragraphs = _body_parts(words, rng) if body_kib else ("", [])
    with open(run_dir / "claims.jsonl", "w", encoding="utf-8") as claims, open(run_dir / "pages.jsonl", "w", encoding="utf-8") as pages:
        for i, statement in enumerate(statements):
            roll = rng.random()
            text = "" if roll < 0.01 else ("[فيديو]" if roll < 0.03 else FRAMINGS[i % len(FRAMINGS)].format(statement))
            url = f"https://araanews.ae/{2012 + i % 7}/{1 + i % 12:02d}/claim-{i}/?utm_source=feed"
            html_file = None
            if body_kib:
                parts = [head, f"<article><h1>{text[:80]}</h1><blockquote>{text}</blockquote>"]
                size = sum(len(p.encode("utf-8")) for p in parts)
                for k in rng.integers(0, len(paragraphs), size=64).tolist():
                    if size >= body_kib * 1024:
                        break
                    parts.append(paragraphs[k])
                    size += len(paragraphs[k].encode("utf-8"))
                body = ("".join(parts) + f"<footer>{i}</footer></article></body></html>").encode("utf-8")
                digest = content_hash(body)
                html_file = f"pages/{i}.html.gz"
                # level 1 to generate fast; the loader inflates whatever level the spiders used
                (run_dir / html_file).write_bytes(gzip.compress(body, compresslevel=1))
            else:
                digest = content_hash(f"{url}\n{text}")
            page_id = stable_id(url, digest)
            day = f"{2012 + i % 7}-{1 + i % 12:02d}-{1 + i % 28:02d}"
            pages.write(json.dumps({
                "run_id": run_id, "page_id": page_id, "url": url, "source_id": "araanews", "fetched_at": fetched_at,
                "http_status": 200, "content_hash": digest, "html_file": html_file, "parse_status": "ok", "parse_error": None,
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


_LOAD_CHILD = """
import json, resource, sys, time
from arastance.config import load_settings
from tasks.claim_load.load import load_crawl_run
from warehouse import open_warehouse
warehouse, run_dir = sys.argv[1:3]
wall, cpu = time.perf_counter(), time.process_time()
with open_warehouse(warehouse, publish=False) as wh:
    r = load_crawl_run(wh, run_dir, settings=load_settings())
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "new_claims": r.new_claims, "new_pages": r.new_pages, "new_cluster_rows": r.new_cluster_rows,
                  "statuses": r.statuses, "dropped": r.dropped}))
"""


def derive_run(master: Path, run_dir: Path, n: int, *, fetched_at: str | None = None) -> None:
    """The first ``n`` claims of ``master`` as a run of its own (bodies hard-linked, not copied).

    With ``fetched_at``, a later re-crawl of the same pages: a new run id and fetch time.
    """
    (run_dir / "pages").mkdir(parents=True)
    old_id, new_id = master.name, run_dir.name
    old_at = json.loads((master / "run.json").read_text(encoding="utf-8"))["started_at"]

    def rewrite(line: str) -> str:
        line = line.replace(f'"{old_id}"', f'"{new_id}"')
        return line.replace(f'"{old_at}"', f'"{fetched_at}"') if fetched_at else line

    for name in ("pages.jsonl", "claims.jsonl"):
        with open(master / name, encoding="utf-8") as src, open(run_dir / name, "w", encoding="utf-8") as dst:
            for i, line in enumerate(src):
                if i == n:
                    break
                dst.write(rewrite(line))
                if name == "pages.jsonl" and (html := json.loads(line)["html_file"]):
                    os.link(master / html, run_dir / html)
    run = json.loads((master / "run.json").read_text(encoding="utf-8"))
    run.update(run_id=new_id, pages=n, items=n, **({"started_at": fetched_at, "finished_at": fetched_at} if fetched_at else {}))
    (run_dir / "run.json").write_text(json.dumps(run), encoding="utf-8")


def load_in_child(label: str, warehouse: Path, run_dir: Path) -> dict[str, Any]:
    """Load ``run_dir`` in a fresh process: its peak RSS is the load's alone."""
    done = subprocess.run([sys.executable, "-c", _LOAD_CHILD, str(warehouse), str(run_dir)], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "TQDM_DISABLE": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"{label} failed:\n{done.stderr[-3000:]}")
    r = json.loads(done.stdout.strip().splitlines()[-1])
    workers = f" (+ workers {r['worker_rss_mib']:.0f} MiB each)" if r["worker_rss_mib"] else ""
    print(f"{label:<38} wall {r['wall']:6.1f} s   cpu {r['cpu']:6.1f} s   peak RSS {r['rss_mib']:6.0f} MiB{workers}   "
          f"new claims {r['new_claims']:>7,}   new pages {r['new_pages']:>7,}   new cluster rows {r['new_cluster_rows']:>6,}",
          flush=True)
    return r


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, nargs="+", default=[25_000, 100_000], help="run sizes to load")
    parser.add_argument("--body-kib", type=int, default=30, help="HTML body size per page (0: no bodies)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    settings = load_settings()
    with tempfile.TemporaryDirectory(prefix="bench_claim_load_") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        master = root / "araanews-master"
        generate_run(master, max(args.claims), np.random.default_rng(args.seed), fetched_at="2018-03-10T12:00:00+00:00",
                     body_kib=args.body_kib)
        staged = sum(f.stat().st_size for f in master.rglob("*") if f.is_file())
        print(f"generated a staging run of {max(args.claims):,} claims ({staged / 2**20:,.0f} MiB on disk, "
              f"{args.body_kib} KiB bodies) in {time.perf_counter() - t:.1f} s "
              f"(threshold {settings.crawl.near_duplicate_threshold}, {settings.crawl.shingle_size}-char shingles)",
              flush=True)
        for n in sorted(args.claims):
            print(f"\n{n:,} claims")
            first_run, second_run = root / f"araanews-{n}-1", root / f"araanews-{n}-2"
            derive_run(master, first_run, n)
            derive_run(master, second_run, n, fetched_at="2018-04-10T12:00:00+00:00")
            warehouse = root / f"warehouse-{n}.duckdb"
            open_warehouse(warehouse, publish=False).close()
            first = load_in_child("first load", warehouse, first_run)
            load_in_child("same run again", warehouse, first_run)
            load_in_child("re-crawl of the unchanged site", warehouse, second_run)
            with open_warehouse(warehouse, read_only=True) as wh:
                wall, cpu = time.perf_counter(), time.process_time()
                ids, texts = cluster_input(wh, "false")
                members = cluster_claims(ids, texts, threshold=settings.crawl.near_duplicate_threshold,
                                         shingle_size=settings.crawl.shingle_size)
                print(f"{'deduplication alone (part of a load)':<38} wall {time.perf_counter() - wall:6.1f} s   cpu "
                      f"{time.process_time() - cpu:6.1f} s   {len(ids):,} claims -> {len(members):,} in clusters")
                counts: dict[str, Any] = {t: n for t, n in wh.table_counts().items()
                                          if t in {"claims", "raw_pages", "claim_clusters", "crawl_runs"}}
            print(f"statuses after the first load: {first['statuses']}; dropped: {first['dropped']}")
            print(f"rows: {counts}; warehouse file {warehouse.stat().st_size / 2**20:,.0f} MiB")
            for run in (first_run, second_run):
                shutil.rmtree(run)
            warehouse.unlink()


if __name__ == "__main__":
    main()
