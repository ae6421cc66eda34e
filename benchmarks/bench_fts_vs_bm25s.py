"""Benchmark: DuckDB's full-text-search extension against bm25s for the local search index.

The ``fts`` extension now loads offline (pip package ``duckdb-extension-fts``), so it could
replace bm25s. Both index the same synthetic Arabic corpus (bench_retrieval's generator, the
same tokens: the project's tokeniser, title twice) and answer the same queries (half of them
with a +/-2-month window, top 10). Prints index build time, query time and how far the two
top-10 lists agree (mean overlap), on a shared machine (timings are noisy).

    .venv/bin/python benchmarks/bench_fts_vs_bm25s.py [--docs 20000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retrieval import synthetic_corpus  # noqa: E402
from arastance.base.arabic import tokenize  # noqa: E402
from tasks.search.base import DateWindow  # noqa: E402
from tasks.search.local import LocalIndex  # noqa: E402
from warehouse.extensions import load_extension  # noqa: E402

_EPOCH = date(1970, 1, 1).toordinal()
_SEARCH = """
SELECT url FROM (SELECT url, day, fts_main_docs.match_bm25(id, $q) AS score FROM docs)
WHERE score IS NOT NULL AND ($lo IS NULL OR day BETWEEN $lo AND $hi)
ORDER BY score DESC, url LIMIT 10
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    from snapshots.world import build_world

    world = build_world()
    corpus = synthetic_corpus(world, args.docs)
    rng = random.Random(3)
    statements = [r.statement for r in world.rumours] + [h.title for h in world.headlines]
    queries = []
    for i in range(args.queries):
        day = date(2012, 1, 1) + timedelta(days=rng.randrange(7 * 365))
        queries.append((rng.choice(statements), DateWindow(day - timedelta(days=61), day + timedelta(days=61)) if i % 2 else None))

    t = time.perf_counter()
    index = LocalIndex.build(corpus)
    bm25_build = time.perf_counter() - t
    t = time.perf_counter()
    bm25_results = [[r.url for r in index.search(q, w, 10)] for q, w in queries]
    bm25_query = time.perf_counter() - t

    con = duckdb.connect()
    load_extension(con, "fts")
    t = time.perf_counter()
    con.execute("CREATE TABLE docs (id INTEGER, url VARCHAR, day INTEGER, body VARCHAR)")
    con.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", [
        (i, r.url, r.published_date.toordinal() - _EPOCH if r.published_date else None,
         " ".join(tokenize(r.title) * 2 + tokenize(r.text)))
        for i, r in enumerate(corpus)
    ])
    # the text is tokenised already: split on whitespace only, no stemming, stop words or folding
    con.execute("PRAGMA create_fts_index('docs', 'id', 'body', stemmer='none', stopwords='none', "
                "ignore='\\s+', strip_accents=0, lower=0)")
    fts_build = time.perf_counter() - t
    t = time.perf_counter()
    fts_results = []
    for q, w in queries:
        lo = hi = None
        if w is not None:
            lo, hi = w.start.toordinal() - _EPOCH, w.end.toordinal() - _EPOCH
        rows = con.execute(_SEARCH, {"q": " ".join(tokenize(q)), "lo": lo, "hi": hi}).fetchall()
        fts_results.append([r[0] for r in rows])
    fts_query = time.perf_counter() - t

    overlap = sum(len(set(a) & set(b)) / max(len(set(a) | set(b)), 1) for a, b in zip(bm25_results, fts_results))
    print(f"{args.docs:,} documents, {args.queries} queries (half windowed), top 10; shared machine, noisy timings")
    print(f"{'':<10} {'build s':>8} {'queries s':>10} {'ms/query':>9}")
    print(f"{'bm25s':<10} {bm25_build:8.1f} {bm25_query:10.2f} {bm25_query / args.queries * 1000:9.1f}")
    print(f"{'duckdb fts':<10} {fts_build:8.1f} {fts_query:10.2f} {fts_query / args.queries * 1000:9.1f}")
    print(f"mean Jaccard overlap of the two top-10 lists: {overlap / args.queries:.2f}")


if __name__ == "__main__":
    main()
