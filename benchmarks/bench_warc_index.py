"""Historical index benchmark: WARC extraction, index build time and peak memory, query latency.

Goal (issue 18): 1M archived articles indexed in < 30 min and < 8 GiB on 2 cores; 1,000 queries
over them in < 10 s. A million synthetic articles is too heavy for a shared machine, so this
measures at ``--docs`` (default 50,000) and ``--pages`` (WARC pages, default 3,000) and
prints the linear extrapolation to 1M next to the measured figures: build time and memory of
the streamed builder grow linearly with the documents (the matrix holds one entry per distinct
term of a document); the query time grows with the postings of the query terms, i.e. at most
linearly. Each phase runs in its own process, so its peak RSS is its own.

1. WARC -> corpus: synthetic Arabic article pages (plus English and duplicate pages) written as
   gzip'd WARC files with warcio, read back by :func:`tasks.search.warc.warc_corpus`.
2. corpus -> index: :meth:`tasks.search.local.LocalIndex.build` (bm25s format), saved to disk.
3. 1,000 queries (half with a +/-2-month window) against the loaded index.
4. Optionally (``--duckdb-fts``), the same corpus in DuckDB's full-text index, when DuckDB's fts
   extension can be loaded here (pip package ``duckdb-extension-fts`` matching the duckdb version).

Usage: python benchmarks/bench_warc_index.py [--docs 50000] [--pages 3000] [--queries 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue
import random
import resource
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TARGET_DOCS = 1_000_000


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _vocabulary() -> tuple[list[str], list[float], list[str]]:
    from snapshots.world import build_world
    from arastance.base.arabic import tokenize

    world = build_world()
    counts: dict[str, int] = {}
    for article in world.articles:
        for token in tokenize(" ".join(article.body)):
            counts[token] = counts.get(token, 0) + 1
    vocab = sorted(counts, key=counts.get, reverse=True)
    statements = [r.statement for r in world.rumours] + [h.title for h in world.headlines]
    return vocab, [1 / (rank + 1) for rank in range(len(vocab))], statements


def _article(rng: random.Random, vocab: list[str], weights: list[float]) -> tuple[str, list[str], date]:
    words = rng.choices(vocab, weights, k=rng.randint(250, 600))  # a news article's length
    paragraphs = [" ".join(words[i:i + 40]) for i in range(10, len(words), 40)]
    return " ".join(words[:10]), paragraphs, date(2012, 1, 1) + timedelta(days=rng.randrange(7 * 365))


def phase_extract(q: mp.Queue, out: str, n_pages: int, n_files: int, workers: int) -> None:
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from spiders.article_extraction import extract_article
    from tasks.search.warc import WarcFilter, WarcStats, warc_corpus

    vocab, weights, _ = _vocabulary()
    rng = random.Random(11)
    files = [Path(out) / f"news-{i}.warc.gz" for i in range(n_files)]
    handles = [f.open("wb") for f in files]
    writers = [WARCWriter(h, gzip=True) for h in handles]
    for i in range(n_pages):
        title, paragraphs, day = _article(rng, vocab, weights)
        if i % 20 == 0:  # an English page
            paragraphs = ["The minister said the talks would continue next week in the capital."] * 4
        body = (f'<html lang="ar"><head><title>{title}</title><meta property="article:published_time" '
                f'content="{day}T08:00:00Z"></head><body><nav><a href="/">الرئيسية</a></nav><article><h1>{title}</h1>'
                + "".join(f"<p>{p}</p>" for p in paragraphs) + "</article><footer>حقوق</footer></body></html>").encode()
        url = f"https://news{i % 40}.example/{i // (40 if i % 25 else 1)}"  # every 25th page repeats a URL
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
        w = writers[i % n_files]
        w.write_record(w.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers))
    for h in handles:
        h.close()
    size = sum(f.stat().st_size for f in files)
    stats = WarcStats()
    t0 = time.perf_counter()
    kept = sum(1 for _ in warc_corpus([str(f) for f in files], WarcFilter(date(2012, 1, 1), date(2018, 12, 31)),
                                      extract=extract_article, workers=workers, stats=stats))
    q.put({"pages": n_pages, "kept": kept, "seconds": time.perf_counter() - t0, "warc_mib": size / 2**20,
           "peak_mib": _peak_mib(), "outcomes": dict(stats.counts)})


def phase_build(q: mp.Queue, out: str, n_docs: int, workers: int) -> None:
    from tasks.search.local import CorpusRecord, LocalIndex

    vocab, weights, _ = _vocabulary()
    rng = random.Random(7)

    corpus = []
    for i in range(n_docs):  # generated before the clock starts: only indexing is timed
        title, paragraphs, day = _article(rng, vocab, weights)
        corpus.append(CorpusRecord(f"https://news{i % 50}.example/{i}", title, "\n\n".join(paragraphs), day, None))
    base = _peak_mib()
    t0 = time.perf_counter()
    LocalIndex.build(corpus, Path(out), workers=workers)
    elapsed = time.perf_counter() - t0
    disk = sum(f.stat().st_size for f in Path(out).iterdir()) / 2**20
    q.put({"docs": n_docs, "seconds": elapsed, "peak_mib": _peak_mib(), "base_mib": base, "disk_mib": disk})


def phase_query(q: mp.Queue, out: str, n_queries: int) -> None:
    from tasks.search.base import DateWindow
    from tasks.search.local import LocalIndex

    _, _, statements = _vocabulary()
    t0 = time.perf_counter()
    index = LocalIndex.load(Path(out))
    loaded = time.perf_counter() - t0
    rng = random.Random(3)
    queries = []
    for i in range(n_queries):
        day = date(2012, 1, 1) + timedelta(days=rng.randrange(7 * 365))
        queries.append((rng.choice(statements), DateWindow(day - timedelta(days=61), day + timedelta(days=61)) if i % 2 else None))
    t1 = time.perf_counter()
    found = sum(len(index.search(text, window, 10)) for text, window in queries)
    q.put({"queries": n_queries, "seconds": time.perf_counter() - t1, "load_s": loaded, "results": found / n_queries,
           "peak_mib": _peak_mib()})


def phase_duckdb_fts(q: mp.Queue, out: str, n_docs: int, n_queries: int) -> None:
    import duckdb

    from arastance.base.arabic import normalize

    vocab, weights, statements = _vocabulary()
    rng = random.Random(7)
    con = duckdb.connect(str(Path(out) / "fts.duckdb"))
    try:
        import duckdb_extension_fts  # the pip-installed extension, for offline machines

        con.execute(f"LOAD '{Path(duckdb_extension_fts.__file__).parent}/extensions/v{duckdb.__version__}/fts.duckdb_extension'")
    except (ImportError, duckdb.Error) as exc:
        q.put({"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"})
        return
    con.execute("CREATE TABLE docs (id INTEGER, day DATE, body VARCHAR)")
    t0 = time.perf_counter()
    batch = []
    for i in range(n_docs):
        title, paragraphs, day = _article(rng, vocab, weights)
        batch.append((i, day, normalize(f"{title} {title} {' '.join(paragraphs)}")))
        if len(batch) == 10_000:
            con.executemany("INSERT INTO docs VALUES (?, ?, ?)", batch)
            batch = []
    if batch:
        con.executemany("INSERT INTO docs VALUES (?, ?, ?)", batch)
    con.execute("PRAGMA create_fts_index('docs', 'id', 'body', stemmer='none', stopwords='none', "
                "ignore='[^0-9a-z\u0621-\u064a]+', strip_accents=0, lower=0)")  # Python puts the letters in
    built = time.perf_counter() - t0
    t1 = time.perf_counter()
    for text in (rng.choice(statements) for _ in range(n_queries)):
        con.execute("SELECT id FROM (SELECT id, fts_main_docs.match_bm25(id, ?) AS s FROM docs) WHERE s IS NOT NULL "
                    "ORDER BY s DESC LIMIT 10", [normalize(text)]).fetchall()
    q.put({"docs": n_docs, "build_s": built, "query_s": time.perf_counter() - t1, "peak_mib": _peak_mib()})


def _run(target, *args) -> dict:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(q, *args))
    p.start()
    while True:  # a phase that dies (e.g. an import error) ends the benchmark instead of hanging it
        try:
            result = q.get(timeout=5)
            break
        except queue.Empty:
            if not p.is_alive():
                raise SystemExit(f"benchmark phase {target.__name__} died (exit {p.exitcode})") from None
    p.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--pages", type=int, default=3_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duckdb-fts", action="store_true", help="also measure DuckDB full-text search")
    parser.add_argument("--only-duckdb-fts", action="store_true", help="only that (e.g. in a venv with duckdb 1.5)")
    args = parser.parse_args()
    scale = TARGET_DOCS / args.docs
    with tempfile.TemporaryDirectory(prefix="bench-warc-") as tmp:
        warc_dir, index_dir = Path(tmp) / "warc", Path(tmp) / "index"
        warc_dir.mkdir()
        if args.only_duckdb_fts:
            _report_duckdb(_run(phase_duckdb_fts, tmp, args.docs, args.queries), args.queries)
            return
        e = _run(phase_extract, str(warc_dir), args.pages, args.files, args.workers)
        per_page = e["seconds"] / e["pages"]
        print(f"[WARC -> corpus] {e['pages']} pages in {args.files} files ({e['warc_mib']:.0f} MiB gz), {args.workers} "
              f"workers: {e['seconds']:.1f}s = {per_page * 1000:.2f} ms/page, {e['kept']} kept; peak {e['peak_mib']:.0f} MiB")
        print(f"                 outcomes: {e['outcomes']}")
        print(f"                 -> 1M pages: {per_page * TARGET_DOCS / 60:.0f} min")
        b = _run(phase_build, str(index_dir), args.docs, args.workers)
        grow = b["peak_mib"] - b["base_mib"]
        print(f"[corpus -> index] {b['docs']} docs (250-600 words) in {b['seconds']:.1f}s, peak RSS {b['peak_mib']:.0f} MiB "
              f"({grow:.0f} MiB over the process's {b['base_mib']:.0f}), {b['disk_mib']:.0f} MiB on disk")
        print(f"                 -> 1M docs: {b['seconds'] * scale / 60:.0f} min (goal < 30), "
              f"~{(b['base_mib'] + grow * scale) / 1024:.1f} GiB (goal < 8; the corpus held in memory here "
              "is counted: streamed from WARC files it is not)")
        r = _run(phase_query, str(index_dir), args.queries)
        per_1k = r["seconds"] / r["queries"] * 1000
        print(f"[queries] {r['queries']} (half windowed) over {args.docs} docs: {r['seconds']:.2f}s "
              f"({r['results']:.1f} results/query; index loaded in {r['load_s']:.1f}s; peak {r['peak_mib']:.0f} MiB)")
        print(f"          -> 1,000 queries over 1M docs: <= {per_1k * scale:.1f}s (goal < 10)")
        if args.duckdb_fts:
            _report_duckdb(_run(phase_duckdb_fts, tmp, args.docs, args.queries), args.queries)


def _report_duckdb(d: dict, n_queries: int) -> None:
    if "error" in d:
        print(f"[duckdb fts] unavailable here: {d['error']}")
    else:
        print(f"[duckdb fts] {d['docs']} docs indexed in {d['build_s']:.1f}s, {n_queries} queries in "
              f"{d['query_s']:.1f}s; peak {d['peak_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
