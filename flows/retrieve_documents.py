"""Prefect flow ``retrieve_documents``: queries -> search -> kept documents -> articles -> pairs.

Per claim: its queries (stored ones reused, missing ones built and stored), the searches the
cache cannot answer (fanned out over claims on the flow's task runner, threads by default,
Dask with ``retrieve_documents.with_options(task_runner=...)``), the merge and filter of its
hits, then one article fetch for every kept URL of the run and the claim-article pairs.
The flow only orchestrates: each task opens the warehouse and calls the stage logic in
:mod:`tasks.retrieval` (idempotent, resumable, nothing sent twice). Workers only search; this
process writes the warehouse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, task, unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner

from arastance.config import load_settings
from arastance.logging import get_logger
from flows.runners import warehouse_busy
from tasks import retrieval
from tasks.articles import run_article_spider
from tasks.retrieval import RetrievalPlan, utc_now
from tasks.search.base import SearchBudgetExceeded
from tasks.search.batch import ClaimSearch, QuerySpec, configured_backend, run_claim_queries
from warehouse import open_warehouse

log = get_logger(__name__)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def plan_retrieval(warehouse_path: Path, claim_ids: list[str] | None, limit: int | None, redo: bool) -> RetrievalPlan:
    """Pending claims, their queries and the uncached ones within today's query budget."""
    with open_warehouse(warehouse_path) as wh:
        return retrieval.plan_retrieval(wh, load_settings(), claim_ids, limit, redo)


@task(retries=1, retry_delay_seconds=5, cache_policy=NO_CACHE, task_run_name="search-{claim_id}")
def search_claim(claim_id: str, queries: list[QuerySpec], num: int) -> ClaimSearch:
    """Send one claim's uncached queries (no warehouse, no key in the parameters)."""
    return run_claim_queries(claim_id, queries, num, configured_backend())


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def store_claim_search(warehouse_path: Path, claim: dict[str, Any], queries: list[QuerySpec], search: ClaimSearch,
                       backend: str) -> dict[str, Any]:
    """Cache what came back; for a claim with every query answered, store hits and decisions."""
    search_settings = load_settings().search  # read here: settings hold keys, parameters are recorded
    with open_warehouse(warehouse_path) as wh:
        return retrieval.store_claim_search(wh, search_settings, claim, queries, search, backend)


@task(retries=1, retry_delay_seconds=10, cache_policy=NO_CACHE)
def fetch_articles(warehouse_path: Path, claim_ids: list[str], run_dir: Path) -> dict[str, int]:
    """Fetch every kept URL of these claims not stored yet (or failed before), and load them."""
    settings = load_settings()
    with open_warehouse(warehouse_path) as wh:
        wanted, todo = retrieval.urls_to_fetch(wh, claim_ids)
    counts = {"urls": wanted, "fetched": len(todo), "ok": 0}
    if not todo:
        return counts
    mirror = str(settings.search.mirror_base) if settings.search.mirror_base else None
    out = run_article_spider(todo, run_dir, settings=settings, mirror_base=mirror,
                             archive=retrieval.archive_fallback(settings.crawl))
    with open_warehouse(warehouse_path) as wh:
        counts.update(retrieval.store_fetched_articles(wh, settings.search, out, run_dir.name))
    return counts


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def create_pairs(warehouse_path: Path, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Pairs for the kept documents' Arabic articles; claims with a failed fetch stay pending."""
    with open_warehouse(warehouse_path) as wh:
        return retrieval.create_pairs(wh, claim_ids)


class RetrievalFailed(RuntimeError):
    """Some claims could not be searched; what succeeded is stored and a re-run resumes."""


def _publish(rows: list[dict[str, Any]], fetched: dict[str, int], plan: RetrievalPlan, backend: str) -> None:
    create_table_artifact(rows, key="retrieve-documents-claims", description=f"retrieval per claim ({backend})")
    failed = [r for r in rows if r["status"] == "failed"]
    create_markdown_artifact(
        f"# Document retrieval ({backend})\n\n"
        f"- claims: {len(rows)} ({sum(r['status'] == 'done' for r in rows)} done, {len(failed)} failed, "
        f"{len(plan.deferred)} deferred by the query budget)\n"
        f"- queries answered from the cache: {plan.cached_queries}; sent: "
        f"{sum(len(v) for v in plan.to_send.values())}\n"
        f"- kept documents: {sum(r['kept'] or 0 for r in rows)}; pairs: {sum(r['pairs'] or 0 for r in rows)}\n"
        f"- article fetch: {fetched}\n",
        key="retrieve-documents-report",
    )


@flow(name="retrieve_documents", task_runner=ThreadPoolTaskRunner(max_workers=4), validate_parameters=True)
def retrieve_documents(claim_ids: list[str] | None = None, limit: int | None = None, fetch: bool = True,
                       redo: bool = False) -> list[dict[str, Any]]:
    """Retrieve documents for the pending claims (or ``claim_ids``); returns a row per claim.

    Args:
        claim_ids: only these claims (default: every claim of v_retrieval_claims not yet done).
        limit: at most this many claims in this run.
        fetch: fetch and extract the kept articles and create the claim-article pairs; off stops
            after the keep/drop decisions.
        redo: include claims already done (their searches come from the cache, so no quota is spent).
    """
    settings = load_settings()
    path = settings.warehouse
    backend = settings.search.backend
    plan = plan_retrieval(path, claim_ids, limit, redo)
    futures = search_claim.map(list(plan.to_send), list(plan.to_send.values()), unmapped(settings.search.results_per_query))
    rows: dict[str, dict[str, Any]] = {}
    for claim_id, claim in plan.claims.items():
        if claim_id not in plan.to_send:  # answered from the cache: nothing to send
            rows[claim_id] = store_claim_search(path, claim, plan.queries[claim_id], ClaimSearch(claim_id), backend)
    for future in as_completed(futures):
        search = future.result()
        rows[search.claim_id] = store_claim_search(path, plan.claims[search.claim_id], plan.queries[search.claim_id],
                                                   search, backend)
    searched = [c for c, r in rows.items() if r["status"] == "searched"]
    fetched: dict[str, int] = {}
    if fetch and searched:
        run_dir = settings.staging_dir / "articles" / f"retrieval-{utc_now():%Y%m%dT%H%M%S%f}"
        fetched = fetch_articles(path, searched, run_dir)
        for row in create_pairs(path, searched):
            rows[row["claim_id"]].update(row)
    columns = ("claim_id", "status", "hits", "candidates", "kept", "pairs", "error")
    ordered = [{c: rows[claim_id].get(c) for c in columns} for claim_id in plan.claims]
    _publish(ordered, fetched, plan, backend)
    log.info("retrieval finished", extra={"claims": len(ordered), "deferred": len(plan.deferred), **fetched})
    failed = [r for r in ordered if r["status"] == "failed"]
    if failed:
        raise RetrievalFailed(f"{len(failed)} of {len(ordered)} claim(s) failed (stored; a re-run resumes them); "
                              f"first error: {failed[0]['error']}")
    if plan.budget_error:
        raise SearchBudgetExceeded(f"{plan.budget_error}; {len(plan.deferred)} claim(s) left for later")
    return ordered
