"""``arastance retrieve`` (document retrieval flow, progress, recall) and ``arastance index``
(the local BM25 search index)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from arastance.cli.common import console, fail, print_table, settings
from tasks.search.base import DateWindow, SearchError
from warehouse import WarehouseError, open_warehouse

retrieve_app = typer.Typer(help="Retrieve documents for the claims: search, filter, fetch, pair.")
index_app = typer.Typer(help="The local BM25 search index (the offline search backend).", no_args_is_help=True)


@retrieve_app.callback(invoke_without_command=True)
def retrieve(
    ctx: typer.Context,
    claim: Optional[list[str]] = typer.Option(None, "--claim", help="only this claim id (repeatable)"),
    limit: Optional[int] = typer.Option(None, min=1, help="at most this many pending claims"),
    fetch: bool = typer.Option(True, "--fetch/--no-fetch", help="fetch the kept articles and create the pairs"),
    redo: bool = typer.Option(False, "--redo", help="also claims already done (searches come from the cache)"),
) -> None:
    """Run the retrieve_documents flow over the pending claims (resumes a failed run)."""
    if ctx.invoked_subcommand is not None:
        return
    s = settings()
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
    from warehouse.retrieval import decision_counts, retrieval_progress

    s = settings()
    try:
        with open_warehouse(s.warehouse, read_only=True) as wh:
            print_table(retrieval_progress(wh), title="Claims by retrieval status")
            print_table(decision_counts(wh), title="Documents by decision and reason")
    except WarehouseError as exc:
        fail(str(exc))


@retrieve_app.command("recall")
def recall(k: Optional[int] = typer.Option(None, min=1, help="documents per claim [search.max_documents_per_claim]")) -> None:
    """Recall of the demo world's related articles, per query kind and for the final documents."""
    from snapshots.world import build_world
    from tasks.search.recall import recall_table, relevant_by_claim, retrieved_by_kind
    from warehouse.retrieval import claim_urls, hits_by_kind, kept_urls_by_claim, searched_query_kinds

    s = settings()
    try:
        with open_warehouse(s.warehouse, read_only=True) as wh:
            relevant = relevant_by_claim(claim_urls(wh), build_world())
            kept = {c: [canonical for canonical, _ in docs] for c, docs in kept_urls_by_claim(wh).items()}
            retrieved = retrieved_by_kind(searched_query_kinds(wh), hits_by_kind(wh), kept,
                                          k or s.search.max_documents_per_claim)
    except WarehouseError as exc:
        fail(str(exc))
    print_table(recall_table(relevant, retrieved), title=f"Recall of related articles at {k or s.search.max_documents_per_claim}")


@index_app.command("build")
def build_index(
    corpus: Optional[Path] = typer.Option(None, help="JSON Lines corpus (url,title,text,published_date,domain) [search.corpus_path]"),
    world: bool = typer.Option(False, "--world", help="index the demo world's news articles instead of a file"),
) -> None:
    """Build the local BM25 index under search.index_dir (default <data_dir>/search_index)."""
    from tasks.search.factory import index_dir
    from tasks.search.local import CorpusError, LocalIndex, read_corpus, records_from_dicts

    s = settings()
    path = corpus or s.search.corpus_path
    try:
        if world:
            from snapshots.world import build_world

            records = records_from_dicts(build_world().corpus_records())
        elif path is None:
            fail("no corpus: give --corpus, set search.corpus_path (ARASTANCE_SEARCH__CORPUS_PATH) or use --world")
        elif not path.is_file():
            fail(f"corpus file {path} does not exist")
        else:
            records = read_corpus(path)
        started = time.monotonic()
        index = LocalIndex.build(records, index_dir(s), show_progress=True)
    except CorpusError as exc:
        fail(str(exc))
    console.print(f"indexed {len(index)} document(s) in {time.monotonic() - started:.1f}s into {index_dir(s)}")


@index_app.command("search")
def search(
    query: str = typer.Argument(..., help="query text"),
    start: Optional[str] = typer.Option(None, help="window start YYYY-MM-DD"),
    end: Optional[str] = typer.Option(None, help="window end YYYY-MM-DD"),
    num: int = typer.Option(10, min=1, max=100),
) -> None:
    """Query the configured backend through the warehouse cache (web backends spend budget)."""
    from datetime import date

    from tasks.search.batch import configured_backend
    from tasks.search.cache import cached_search

    s = settings()
    try:
        window = DateWindow.of(date.fromisoformat(start) if start else None, date.fromisoformat(end) if end else None)
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
