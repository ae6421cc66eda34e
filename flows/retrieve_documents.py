"""Prefect flow ``retrieve_documents``: queries -> search -> kept documents -> articles -> pairs.

Per claim: its queries (stored ones reused, missing ones built and stored), the searches the
cache cannot answer (fanned out over claims on the task runner that the
``orchestration.task_runner`` setting names: threads by default, or Dask), the merge and filter
of its hits; then article fetches in waves (the first ``search.fetch_pool_per_claim`` candidates
of each claim, then the next candidate for each one that failed), the ranking of the fetched
articles on their text, and the claim-article pairs.
The flow only orchestrates: each task opens the warehouse and calls the stage logic in
:mod:`tasks.retrieval` (idempotent, resumable, nothing sent twice). Workers only search; this
process writes the warehouse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from uuid import uuid4

from prefect import flow, task, unmapped
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from pydantic import Field

from arastance.base.stopping import stop_on_exit
from arastance.config import load_settings
from arastance.logging import get_logger
from flows.artifacts import table_artifact
from flows.run_names import claim_run_name, first_words
from flows.runners import ConfiguredTaskRunner, unless_disk_refuses_writes, warehouse_busy
from tasks import retrieval
from tasks.articles import run_article_spider
from tasks.retrieval import RetrievalPlan, utc_now
from tasks.retrieval_report import SentQueries, next_run, report_markdown, stop_message
from tasks.search.base import SearchBudgetExceeded
from tasks.search.batch import ClaimSearch, QuerySpec, configured_backend, run_claim_queries
from tasks.stage_locks import locked_stage
from warehouse import flow_warehouse, open_warehouse

log = get_logger(__name__)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def plan_retrieval(warehouse_path: Path, claim_ids: list[str] | None, limit: int | None, redo: bool) -> RetrievalPlan:
    """Pending claims, their queries and the uncached ones within today's query budget."""
    with open_warehouse(warehouse_path) as wh:
        return retrieval.plan_retrieval(wh, load_settings(), claim_ids, limit, redo)


@task(retries=1, retry_delay_seconds=5, retry_condition_fn=unless_disk_refuses_writes, cache_policy=NO_CACHE,
      task_run_name=claim_run_name("search"))
def search_claim(claim_id: str, queries: list[QuerySpec], num: int, label: str, run_key: str) -> ClaimSearch:
    """Send one claim's uncached queries (no warehouse, no key in the parameters); ``label``
    (the claim's text) names the run, ``run_key`` the searches a refused key or spent quota stops."""
    return run_claim_queries(claim_id, queries, num, configured_backend(), run_key)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE,
      task_run_name=claim_run_name("store"))
def store_claim_search(warehouse_path: Path, claim: dict[str, Any], queries: list[QuerySpec], search: ClaimSearch,
                       backend: str) -> dict[str, Any]:
    """Cache what came back; for a claim with every query answered, store hits and decisions."""
    search_settings = load_settings().search  # read here: settings hold keys, parameters are recorded
    # one claim of many: the readers' copy is published once after the searches (publish_searches)
    with open_warehouse(warehouse_path, publish=False) as wh:
        return retrieval.store_claim_search(wh, search_settings, claim, queries, search, backend)


def _publish_readers_copy(warehouse_path: Path, wait_s: float) -> None:
    """Open and close a writer: its close publishes the readers' copy (a DuckLake has no copy, so
    it is not opened at all). The copy is taken only if the file changed since the last one."""
    if load_settings().warehouse_backend == "ducklake":
        return
    with open_warehouse(warehouse_path, wait_s=wait_s):
        pass


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def publish_searches(warehouse_path: Path) -> None:
    """Publish the claims' stored searches for readers (``arastance sql``, ``retrieve status``):
    each claim's store skips it, since a copy per claim would copy the whole file per claim, and
    without a later writer (``fetch`` off, or no claim searched) nothing else would publish them."""
    _publish_readers_copy(warehouse_path, wait_s=30.0)


def _publish_after(error: BaseException, warehouse_path: Path) -> None:
    """Publish what the searches stored before ``error`` ended them (a failure, or a stop request:
    each stored claim is whole), without waiting for a busy warehouse, which a stopped run must
    not, and without hiding ``error``: a copy that cannot be made now is logged and left to the
    next writer (a re-run's planning publishes it)."""
    try:
        _publish_readers_copy(warehouse_path, wait_s=0.0)
    except Exception as exc:  # noqa: BLE001 - the searches' own error is the one to raise
        log.warning("the searches stored before the run ended are not published yet; the next writer publishes them",
                    extra={"ended_by": type(error).__name__, "error": f"{type(exc).__name__}: {exc}"})


@task(retries=1, retry_delay_seconds=10, retry_condition_fn=unless_disk_refuses_writes, cache_policy=NO_CACHE)
def fetch_and_rank(warehouse_path: Path, claims: dict[str, str], run_dir: Path) -> dict[str, int]:
    """Fetch the claims' candidates in waves until each has its documents, then rank them on their text.

    ``claims`` maps claim id to claim text. Which URLs each wave fetches is
    :func:`tasks.retrieval.next_fetch_wave` (the first ``search.fetch_pool_per_claim`` candidates,
    then the next candidate for every one that turned out unusable, until a claim has
    ``search.max_documents_per_claim`` Arabic articles or no candidate is left); the ranking is
    :func:`tasks.retrieval.rank_fetched_articles`.
    """
    settings = load_settings()
    mirror = str(settings.search.mirror_base) if settings.search.mirror_base else None
    attempted: set[str] = set()
    counts = {"waves": 0, "fetched": 0, "ok": 0}
    while True:
        with open_warehouse(warehouse_path) as wh:
            todo = retrieval.next_fetch_wave(wh, settings.search, list(claims), attempted)
        if not todo:
            break
        attempted |= todo.keys()
        counts["waves"] += 1
        counts["fetched"] += len(todo)
        out = run_article_spider(sorted(t.url for t in todo.values()), run_dir / f"wave-{counts['waves']}",
                                 settings=settings, mirror_base=mirror, archive=retrieval.archive_fallback(settings.crawl),
                                 archive_days={t.url: t.around for t in todo.values() if t.around})
        with open_warehouse(warehouse_path) as wh:
            stored = retrieval.store_fetched_articles(wh, settings.search, out, run_dir.name)
        for status, n in stored.items():
            counts[status] = counts.get(status, 0) + n
    with open_warehouse(warehouse_path) as wh:
        retrieval.rank_fetched_articles(wh, settings.search, claims)
    return counts


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def create_pairs(warehouse_path: Path, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Pairs for the kept documents' Arabic articles inside their date window (documents dated outside
    it are dropped first); claims with a failed fetch stay pending."""
    search_settings = load_settings().search
    with open_warehouse(warehouse_path) as wh:
        return retrieval.create_pairs(wh, search_settings, claim_ids)


def claim_row(claim: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """One claim's line of the flow's result and artifact: its first words beside its id, a
    number in every figure column and no placeholders."""
    return {"claim": first_words(claim["text"]), "claim_id": claim["claim_id"], "status": outcome["status"],
            **{c: outcome.get(c) or 0 for c in ("hits", "candidates", "kept", "pairs")},
            "error": outcome.get("error") or ""}


class RetrievalFailed(RuntimeError):
    """Some claims could not be searched; what succeeded is stored and a re-run resumes."""


class RetrievalStopped(RetrievalFailed):
    """A refused key or a spent quota stopped the searches: the claims not searched stay pending."""


def _publish(rows: list[dict[str, Any]], fetched: dict[str, int], plan: RetrievalPlan, sent: SentQueries,
             backend: str) -> None:
    table_artifact(rows, key="retrieve-documents-claims", description=f"retrieval per claim ({backend})")
    create_markdown_artifact(report_markdown(rows, fetched, plan, sent, backend), key="retrieve-documents-report")


def _search_and_store(path: Path, plan: RetrievalPlan, num: int,
                      backend: str) -> tuple[dict[str, dict[str, Any]], SentQueries]:
    """Each planned claim's searches, stored as they come back; a row per claim, and what the
    searches sent. A SIGTERM (or Ctrl-C) that ends the wait asks the searching threads to stop at
    their next request.

    The stores publish nothing, so this publishes the readers' copy once at the end, also when
    every search failed, when a store failed or when the run was asked to stop (what was stored
    until then); a plan without claims stored nothing and publishes nothing.
    """
    rows: dict[str, dict[str, Any]] = {}
    sent = SentQueries(planned=sum(len(v) for v in plan.to_send.values()))
    if not plan.claims:
        return rows, sent
    try:
        with stop_on_exit():
            futures = search_claim.map(list(plan.to_send), list(plan.to_send.values()), unmapped(num),
                                       [plan.claims[c]["text"] for c in plan.to_send], unmapped(uuid4().hex))
            for claim_id, claim in plan.claims.items():
                if claim_id not in plan.to_send:  # answered from the cache: nothing to send
                    rows[claim_id] = store_claim_search(path, claim, plan.queries[claim_id], ClaimSearch(claim_id),
                                                        backend)
            for future in as_completed(futures):
                search = future.result()
                sent.add(search)
                rows[search.claim_id] = store_claim_search(path, plan.claims[search.claim_id],
                                                           plan.queries[search.claim_id], search, backend)
    except BaseException as exc:
        _publish_after(exc, path)
        raise
    publish_searches(path)
    return rows, sent


@flow(name="retrieve_documents", task_runner=ConfiguredTaskRunner(), validate_parameters=True)
@locked_stage("retrieval")
def retrieve_documents(claim_ids: list[str] | None = None, limit: Annotated[int, Field(ge=1)] | None = None, fetch: bool = True,
                       redo: bool = False, warehouse_path: str | None = None) -> list[dict[str, Any]]:
    """Retrieve documents for the pending claims (or ``claim_ids``); returns a row per claim.

    Args:
        claim_ids: only these claims (default: every claim of v_retrieval_claims not yet done).
        limit: at most this many claims in this run (1 or more; unset: every pending claim).
        fetch: fetch and extract the kept articles and create the claim-article pairs; off stops
            after the keep/drop decisions.
        redo: include claims already done (their searches come from the cache, so no quota is spent).
        warehouse_path: the DuckDB warehouse; default: the configured one.
    """
    settings = load_settings()
    path = flow_warehouse(warehouse_path, settings)
    backend = settings.search.backend
    plan = plan_retrieval(path, claim_ids, limit, redo)
    log.info("retrieval planned", extra={"claims": len(plan.claims), "backend": backend,
                                         "queries_cached": plan.cached_queries,
                                         "queries_to_send": sum(len(v) for v in plan.to_send.values()),
                                         "deferred": len(plan.deferred)})
    rows, sent = _search_and_store(path, plan, settings.search.results_per_query, backend)
    searched = [c for c, r in rows.items() if r["status"] == "searched"]
    fetched: dict[str, int] = {}
    if fetch and searched:
        run_dir = settings.staging_dir / "articles" / f"retrieval-{utc_now():%Y%m%dT%H%M%S%f}"
        fetched = fetch_and_rank(path, {c: plan.claims[c]["text"] for c in searched}, run_dir)
        for row in create_pairs(path, searched):
            rows[row["claim_id"]].update(row)
    ordered = [claim_row(plan.claims[claim_id], rows[claim_id]) for claim_id in plan.claims]
    _publish(ordered, fetched, plan, sent, backend)
    log.info("retrieval finished", extra={"claims": len(ordered), "deferred": len(plan.deferred), **fetched})
    failed = [r for r in ordered if r["status"] == "failed"]
    for row in failed:
        log.warning("claim search failed", extra={"claim": row["claim"], "claim_id": row["claim_id"], "error": row["error"]})
    if plan.deferred:
        log.warning("claims deferred by the daily query budget", extra={"claims": len(plan.deferred)})
    if stopped := stop_message(ordered, plan, backend, claim_ids):
        raise RetrievalStopped(stopped)
    if failed:
        raise RetrievalFailed(f"{len(failed)} of {len(ordered)} claim(s) failed (stored; a re-run resumes them); "
                              f"first error: {failed[0]['error']}")
    if plan.budget_error:
        raise SearchBudgetExceeded(f"{plan.budget_error}; {len(plan.deferred)} claim(s) left for later: "
                                   f"{next_run(backend, plan, plan.deferred, claim_ids)}")
    return ordered
