"""``arastance retrieve`` (document retrieval flow, progress, recall) and ``arastance index``
(the local BM25 search index)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from contextlib import ExitStack
from datetime import date
from pathlib import Path
from typing import Optional, get_args

import typer

from arastance.base.input_paths import not_a_file
from arastance.cli.common import console, fail, print_table, require_stdout, settings
from arastance.cli.output_file import output_file_refusal, replacing
from arastance.config.search import SearchSettings
from tasks.search.base import DateWindow, SearchError
from warehouse import WarehouseError, open_report, open_warehouse

BACKENDS: tuple[str, ...] = get_args(SearchSettings.model_fields["backend"].annotation)
retrieve_app = typer.Typer(help="Retrieve documents for the claims: search, filter, fetch, pair.")
index_app = typer.Typer(help="The local BM25 search index (the offline search backend).", no_args_is_help=True)


@retrieve_app.callback(invoke_without_command=True)
def retrieve(
    ctx: typer.Context,
    claim: Optional[list[str]] = typer.Option(None, "--claim", help="only this claim id (repeatable)"),
    limit: Optional[int] = typer.Option(None, min=1, help="at most this many pending claims"),
    fetch: bool = typer.Option(True, "--fetch/--no-fetch", help="fetch the kept articles and create the pairs"),
    redo: bool = typer.Option(False, "--redo", help="also claims already done (searches come from the cache)"),
    backend: Optional[str] = typer.Option(None, "--backend", help=f"search backend for this run: {', '.join(BACKENDS)} "
                                          "[search.backend]"),
) -> None:
    """Run the retrieve_documents flow over the pending claims (resumes a failed run)."""
    if ctx.invoked_subcommand is not None:
        return
    if backend is not None:
        if backend not in BACKENDS:
            fail(f"--backend {backend!r} is not one of {', '.join(BACKENDS)}")
        # the run's tasks (threads, Dask workers started by it) read their settings from the environment
        os.environ["ARASTANCE_SEARCH__BACKEND"] = backend
    settings()  # a bad setting fails here, before Prefect starts
    from flows.retrieve_documents import RetrievalFailed, retrieve_documents  # Prefect loads only when needed
    flow = retrieve_documents  # its runner follows orchestration.task_runner
    started = time.monotonic()
    try:
        rows = flow(claim_ids=claim or None, limit=limit, fetch=fetch, redo=redo)
    except (RetrievalFailed, SearchError, WarehouseError, FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    elapsed = time.monotonic() - started
    print_table(rows, title="Document retrieval per claim")
    console.print(f"{len(rows)} claim(s) in {elapsed:.1f}s ({len(rows) / max(elapsed, 1e-9) * 60:.1f} claims/minute)")


@retrieve_app.command("status")
def status() -> None:
    """Claims per retrieval status and documents per keep/drop reason."""
    require_stdout()
    from warehouse.retrieval import decision_counts, retrieval_progress

    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            print_table(retrieval_progress(wh, s.period.bounds), title="Claims by retrieval status")
            print_table(decision_counts(wh), title="Documents by decision and reason")
    except WarehouseError as exc:
        fail(str(exc))


@retrieve_app.command("compare")
def compare(
    backend: Optional[list[str]] = typer.Option(None, "--backend", help="compare these (repeatable; default: all with hits)"),
    out: Optional[Path] = typer.Option(None, "--out", help="also write the report as Markdown to this file"),
) -> None:
    """Compare backends on the claims each has searched: documents kept, overlap, share inside the
    date window, share from news domains (from stored hits; sends no query)."""
    from tasks.search.compare import compare_backends
    from warehouse.backend_comparison import article_dates, cache_keys, claim_queries, stored_hits

    if out is None:  # the report is only printed
        require_stdout("give --out FILE, or run it with standard output open, e.g. > FILE")
    s = settings()
    for name in backend or []:
        if name not in BACKENDS:
            fail(f"--backend {name!r} is not one of {', '.join(BACKENDS)}")
    if out is not None and (refusal := output_file_refusal("--out", out, s)):
        fail(refusal)
    try:
        with open_warehouse(s.warehouse, read_only=True) as wh:
            hits, queries, cached, dates = stored_hits(wh), claim_queries(wh), cache_keys(wh), article_dates(wh)
    except WarehouseError as exc:
        fail(str(exc))
    news = [*s.search.news_domains, *s.search.stance_dataset_domains]
    rows, overlap, n_claims = compare_backends(hits, queries, cached, dates, backend, num=s.search.results_per_query,
                                               news_domains=news, limit=s.search.max_documents_per_claim)
    if not rows or n_claims == 0:
        fail("no claim has been searched by every backend compared; run `arastance retrieve --backend X --redo` "
             "for each backend first")
    print_table(rows, title=f"Backends on the same {n_claims} claim(s)")
    print_table(overlap, title="Overlap of kept documents")
    if out is not None:
        with replacing(out) as partial:  # a report cut short by a full disk leaves an earlier one as it was
            partial.write_text(markdown_report(rows, overlap, n_claims), encoding="utf-8")
        console.print(f"report written to {out}")


def markdown_report(rows: list[dict], overlap: list[dict], n_claims: int) -> str:
    """The comparison as Markdown tables (for a PR, an issue or the run's notes)."""
    def table(data: list[dict]) -> str:
        if not data:
            return "(only one backend)\n"
        cols = list(data[0])
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join("" if r[c] is None else str(r[c]) for c in cols) + " |" for r in data]
        return "\n".join(lines) + "\n"

    return (f"# Search backends compared on {n_claims} claim(s)\n\n"
            "inside_window: share of dated kept documents inside the claim's window; undated: share with no date; "
            "news_domains: share from the configured news domains.\n\n"
            f"{table(rows)}\n## Overlap\n\n{table(overlap)}")


@retrieve_app.command("recall")
def recall(k: Optional[int] = typer.Option(None, min=1, help="documents per claim [search.max_documents_per_claim]")) -> None:
    """Recall of the demo world's related articles, per query kind and for the final documents."""
    require_stdout()
    from snapshots.world import build_world
    from tasks.search.recall import recall_table, relevant_by_claim, retrieved_by_kind
    from warehouse.retrieval import claim_urls, hits_by_kind, kept_urls_by_claim, searched_query_kinds

    s = settings()
    try:
        with open_report(s.warehouse) as wh:
            relevant = relevant_by_claim(claim_urls(wh), build_world())
            kept = {c: [canonical for canonical, _ in docs] for c, docs in kept_urls_by_claim(wh).items()}
            retrieved = retrieved_by_kind(searched_query_kinds(wh), hits_by_kind(wh), kept,
                                          k or s.search.max_documents_per_claim)
    except WarehouseError as exc:
        fail(str(exc))
    print_table(recall_table(relevant, retrieved), title=f"Recall of related articles at {k or s.search.max_documents_per_claim}")


def _day(value: Optional[str], option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"invalid {option} {value!r}: expected YYYY-MM-DD")


@index_app.command("build")
def build_index(
    corpus: Optional[Path] = typer.Option(None, help="JSON Lines corpus (url,title,text,published_date,domain) [search.corpus_path]"),
    world: bool = typer.Option(False, "--world", help="index the demo world's news articles instead of a file"),
    warc: Optional[list[str]] = typer.Option(None, "--warc", help="WARC file or http(s) URL (repeatable), e.g. CC-NEWS"),
    captures: bool = typer.Option(False, "--captures", help="index the web-archive captures stored in the warehouse "
                                  "(crawl archive mode, archived articles); combines with --warc"),
    date_from: Optional[str] = typer.Option(None, "--from", help="with --warc/--captures: earliest publication date "
                                            "YYYY-MM-DD"),
    date_to: Optional[str] = typer.Option(None, "--to", help="with --warc/--captures: latest publication date "
                                          "YYYY-MM-DD"),
    lang: str = typer.Option("ar", "--lang", help="with --warc/--captures: language of the pages kept"),
    keep_undated: bool = typer.Option(False, "--keep-undated", help="with --warc/--captures: keep pages without a "
                                      "publication date"),
    workers: int = typer.Option(2, min=1, help="with --warc: processes extracting WARC files in parallel"),
) -> None:
    """Build the local BM25 index under search.index_dir (default <data_dir>/search_index)."""
    from itertools import chain

    from spiders.article_extraction import extract_article
    from tasks.search.archive_captures import capture_pages
    from tasks.search.local import CorpusError, CorpusRecord, LocalIndex, read_corpus, records_from_dicts
    from tasks.search.warc import WarcError, WarcFilter, WarcStats, dedup_records, warc_pages
    from warehouse.archive_captures import count_archive_captures, iter_archive_captures

    if captures and (corpus is not None or world):
        fail("--captures cannot be combined with --corpus or --world (those are built corpora, not archived pages); "
             "it combines with --warc")
    given = [name for name, on in (("--corpus", corpus is not None), ("--world", world), ("--warc", bool(warc))) if on]
    if len(given) > 1:
        fail(f"{' and '.join(given)} each choose what is indexed; give one (--warc combines with --captures)")
    page_filters = [name for name, on in (("--from", date_from is not None), ("--to", date_to is not None),
                                          ("--lang", lang != "ar"), ("--keep-undated", keep_undated)) if on]
    if page_filters and not (warc or captures):
        fail(f"{', '.join(page_filters)} filter archived pages: give --warc or --captures, or leave them out")
    s = settings()
    path = corpus or s.search.corpus_path
    stats = WarcStats()
    try:
        with ExitStack() as stack:
            records: Iterable[CorpusRecord]
            if warc or captures:
                flt = WarcFilter(_day(date_from, "--from"), _day(date_to, "--to"), lang,
                                 min_arabic_ratio=s.search.min_arabic_ratio, min_text_chars=s.search.min_text_chars,
                                 keep_undated=keep_undated, max_page_bytes=int(s.crawl.max_page_mb * 2**20))
                pages: list[Iterable[CorpusRecord]] = []
                if warc:
                    pages.append(warc_pages(warc, flt, extract=extract_article, workers=workers, stats=stats,
                                            show_progress=True))
                if captures:
                    wh = stack.enter_context(open_report(s.warehouse))  # read while the index is built
                    pages.append(capture_pages(iter_archive_captures(wh), flt, extract=extract_article, stats=stats,
                                               total=count_archive_captures(wh), show_progress=True))
                records = dedup_records(chain.from_iterable(pages), stats)  # one article in both inputs: once
            elif world:
                from snapshots.world import build_world

                records = records_from_dicts(build_world().corpus_records())
            elif path is None:
                fail("no corpus: give --warc, --captures, --corpus, set search.corpus_path "
                     "(ARASTANCE_SEARCH__CORPUS_PATH) or use --world")
            elif not path.is_file():
                given = "--corpus" if corpus else "search.corpus_path (ARASTANCE_SEARCH__CORPUS_PATH)"
                fail(f"corpus file {path} ({given}) {not_a_file(path)}")
            else:
                records = read_corpus(path)
            started = time.monotonic()
            index = LocalIndex.build(records, s.search_index_dir, show_progress=True)
    except (CorpusError, WarcError, WarehouseError, SearchError) as exc:
        fail(str(exc))
    if warc or captures:
        print_table(stats.as_rows(), title="WARC records by outcome" if not captures else "Archived pages by outcome")
    console.print(f"indexed {len(index)} document(s) in {time.monotonic() - started:.1f}s into {s.search_index_dir}")


@index_app.command("search")
def search(
    query: str = typer.Argument(..., help="query text"),
    start: Optional[str] = typer.Option(None, help="window start YYYY-MM-DD (with --end)"),
    end: Optional[str] = typer.Option(None, help="window end YYYY-MM-DD (with --start)"),
    num: int = typer.Option(10, min=1, max=100),
) -> None:
    """Query the configured backend through the warehouse cache (web backends spend budget)."""
    require_stdout()
    from tasks.search.batch import configured_backend
    from tasks.search.cache import cached_search

    s = settings()
    if (start is None) != (end is None):  # a window has two bounds: one alone was dropped without a word
        fail(f"--{'start' if start is not None else 'end'} alone is no date window: give both --start and --end")
    try:
        window = DateWindow.of(_day(start, "--start"), _day(end, "--end"))
    except ValueError as exc:
        fail(f"invalid --start/--end: {exc}")
    try:
        backend = configured_backend(s)
        with open_warehouse(s.warehouse) as wh:
            results, cached = cached_search(wh, backend, query, window, num, daily_budget=s.search.daily_query_budget)
    except (SearchError, WarehouseError, FileNotFoundError) as exc:
        fail(str(exc))
    print_table([r.to_json() for r in results], title=f"{backend.name}{' (cached)' if cached else ''}: {query}",
                columns=["rank", "url", "title", "published_date"])


def register(app: typer.Typer) -> None:
    app.add_typer(retrieve_app, name="retrieve")
    app.add_typer(index_app, name="index")
