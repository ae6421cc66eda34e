"""Retrieval benchmark: local search latency at scale, and the whole retrieval on the demo world.

1. Local BM25 index over a synthetic 100,000-document Arabic corpus (words drawn with a Zipf
   law from the demo world's vocabulary, dates over 2012-2018): build time, then 1,000 queries
   (claim statements of the demo world, half of them with a +/-2-month window). Goal: < 10 s.
2. Article extraction on the demo world's news pages (13 site layouts: news sites, a forum, a
   blog, a social page): share of pages whose title, date and main-text paragraphs come out
   exactly as written.
3. The retrieve_documents flow on the demo world: the world's news corpus indexed, its news
   pages served as the offline mirror on 127.0.0.1, its fact-check claims loaded as false
   claims; claims per minute end to end (search, filter, fetch, pairs) and the recall of the
   world's related articles at 10 documents, per query kind and for all five together.

Usage: python benchmarks/bench_retrieval.py [--docs 100000] [--queries 1000] [--claims 60]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arastance.base.arabic import tokenize  # noqa: E402
from tasks.search.base import DateWindow  # noqa: E402
from tasks.search.local import CorpusRecord, LocalIndex, records_from_dicts  # noqa: E402


def synthetic_corpus(world, n_docs: int, seed: int = 7) -> list[CorpusRecord]:
    """``n_docs`` documents of 80-300 words drawn from the world's vocabulary (Zipf-like)."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    for article in world.articles:
        for token in tokenize(" ".join(article.body)):
            counts[token] = counts.get(token, 0) + 1
    vocab = sorted(counts, key=counts.get, reverse=True)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    start = date(2012, 1, 1).toordinal()
    docs = []
    for i in range(n_docs):
        words = rng.choices(vocab, weights, k=rng.randint(80, 300))
        docs.append(CorpusRecord(f"https://synthetic{i % 50}.example/{i}", " ".join(words[:8]), " ".join(words[8:]),
                                 date.fromordinal(start + rng.randrange(7 * 365)), f"synthetic{i % 50}.example"))
    return docs


def bench_latency(world, n_docs: int, n_queries: int) -> None:
    t0 = time.perf_counter()
    corpus = synthetic_corpus(world, n_docs)
    t1 = time.perf_counter()
    index = LocalIndex.build(corpus)
    t2 = time.perf_counter()
    rng = random.Random(3)
    statements = [r.statement for r in world.rumours] + [h.title for h in world.headlines]
    queries = []
    for i in range(n_queries):
        day = date(2012, 1, 1) + timedelta(days=rng.randrange(7 * 365))
        window = DateWindow(day - timedelta(days=61), day + timedelta(days=61)) if i % 2 else None
        queries.append((rng.choice(statements), window))
    t3 = time.perf_counter()
    found = sum(len(index.search(q, w, 10)) for q, w in queries)
    t4 = time.perf_counter()
    print(f"[local index] corpus generated: {n_docs} docs in {t1 - t0:.1f}s; index built in {t2 - t1:.1f}s")
    print(f"[local index] {n_queries} queries (half windowed), top 10: {t4 - t3:.2f}s total, "
          f"{(t4 - t3) / n_queries * 1000:.2f} ms/query, {found / n_queries:.1f} results/query "
          f"(goal: < 10 s) -> {'OK' if t4 - t3 < 10 else 'TOO SLOW'}")


def bench_extraction(world, out: Path) -> None:
    from snapshots.news_sites import page_file, render_news_sites
    from spiders.article_extraction import extract_article

    render_news_sites(world, out)
    title = day = text = 0
    t0 = time.perf_counter()
    for article in world.articles:
        got = extract_article(page_file(out, article).read_bytes())
        title += got.title == article.title
        day += got.published_date == article.published
        text += got.paragraphs == list(article.body)
    n = len(world.articles)
    print(f"[extraction] {n} pages in {time.perf_counter() - t0:.1f}s: title exact {title / n:.3f}, "
          f"date exact {day / n:.3f}, main text exact {text / n:.3f}")


def bench_end_to_end(world, n_claims: int, work: Path) -> None:
    """The retrieval, kept in ``work``: its own data directory, DuckDB warehouse and search index (never a
    configured warehouse file, DuckLake or index) and the local search backend, so that a configured web
    API is never sent the world's invented claims, nor charged for them."""
    from prefect.testing.utilities import prefect_test_harness

    from arastance.base.ids import stable_id
    from arastance.cli.commands.demo import demo_environment
    from arastance.cli.common import print_table
    from arastance.config import load_settings
    from snapshots.news_sites import render_news_sites
    from snapshots.server import serve_snapshots
    from tasks.search.recall import recall_table, relevant_by_claim, retrieved_by_kind
    from warehouse import open_warehouse
    from warehouse.retrieval import claim_urls, hits_by_kind, kept_urls_by_claim, searched_query_kinds

    data = work / "data"
    os.environ.update({**demo_environment(data), "ARASTANCE_SEARCH__BACKEND": "local",
                       "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0", "ARASTANCE_CRAWL__AUTOTHROTTLE": "false",
                       "ARASTANCE_CRAWL__CONCURRENT_REQUESTS_PER_DOMAIN": "8", "ARASTANCE_LOG_LEVEL": "WARNING"})
    render_news_sites(world, work / "web")
    LocalIndex.build(records_from_dicts(world.corpus_records()), load_settings().search_index_dir)
    posts = [p for p in world.posts if p.expected_claim and p.published and p.repost_of is None][:n_claims]
    seen = datetime(2024, 1, 1)
    rows = [{"claim_id": stable_id(p.site, p.path), "source_id": p.site, "url": f"https://{p.site}.example{p.path}",
             "canonical_url": f"https://{p.site}.example{p.path}".rstrip("/"), "title": p.title,
             "raw_text": p.claim_text, "cleaned_text": p.expected_claim, "veracity": "false",
             "published_date": p.published, "first_seen": seen, "last_seen": seen, "status": "active"} for p in posts]
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", rows)
    with serve_snapshots(work / "web") as server, prefect_test_harness(server_startup_timeout=120):
        os.environ["ARASTANCE_SEARCH__MIRROR_BASE"] = server.base_url
        from flows.retrieve_documents import retrieve_documents

        t0 = time.perf_counter()
        result = retrieve_documents()
        elapsed = time.perf_counter() - t0
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        counts = wh.table_counts()
        relevant = relevant_by_claim(claim_urls(wh), world)
        kept = {c: [canonical for canonical, _ in docs] for c, docs in kept_urls_by_claim(wh).items()}
        table = recall_table(relevant, retrieved_by_kind(searched_query_kinds(wh), hits_by_kind(wh), kept, 10))
    print(f"[end to end] {len(result)} claims in {elapsed:.1f}s = {len(result) / elapsed * 60:.1f} claims/minute "
          f"({counts['queries']} queries, {counts['search_hits']} hits, {counts['articles']} articles fetched, "
          f"{counts['claim_article_pairs']} pairs)")
    print_table(table, title="Recall of the world's related articles at 10 documents per claim")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--claims", type=int, default=60)
    parser.add_argument("--skip-e2e", action="store_true")
    args = parser.parse_args()
    from snapshots.world import build_world

    world = build_world()
    bench_latency(world, args.docs, args.queries)
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:  # pages and warehouse: ~28 MB a run
        bench_extraction(world, Path(tmp) / "extraction")
        if not args.skip_e2e:
            bench_end_to_end(world, args.claims, Path(tmp) / "end-to-end")


if __name__ == "__main__":
    main()
