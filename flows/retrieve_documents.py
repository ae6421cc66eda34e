"""Prefect flow ``retrieve_documents``: queries -> search -> kept documents -> articles -> pairs.

Per claim: its queries (stored ones reused, missing ones built and stored), the searches the
cache cannot answer (fanned out over claims on the flow's task runner, threads by default,
Dask with ``retrieve_documents.with_options(task_runner=...)``), the merge and filter of its
hits, then one article fetch for every kept URL of the run and the claim-article pairs.
Every step is idempotent and each claim's progress is stored (``claim_retrieval``): a failed
run resumes with the claims not done, and the cache answers the searches that already
succeeded, so nothing is sent twice. Workers only search; this process writes the warehouse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
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
from tasks.articles import article_rows, read_fetched, run_article_spider
from tasks.documents import decision_rows, hit_rows, hits_of, merge_hits, pair_rows, select_documents
from tasks.queries import build_queries_for
from tasks.search.base import SearchBudgetExceeded, SearchResult
from tasks.search.batch import ClaimSearch, QuerySpec, configured_backend, query_spec, run_claim_queries
from tasks.search.cache import remember, reserve_queries
from warehouse import open_warehouse
from warehouse.queries import claims_with_queries, queries_of_claim, store_queries
from warehouse.retrieval import (
    article_status,
    cached_results,
    claims_with_failed_fetches,
    kept_articles,
    kept_urls_by_claim,
    mark_claims_done,
    pending_claims,
    replace_decisions,
    set_claim_status,
    store_articles,
    store_hits,
    store_pairs,
)

log = get_logger(__name__)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass
class RetrievalPlan:
    """The claims of this run, their queries, and what is left to send."""

    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    queries: dict[str, list[QuerySpec]] = field(default_factory=dict)
    to_send: dict[str, list[QuerySpec]] = field(default_factory=dict)
    deferred: list[str] = field(default_factory=list)
    budget_error: str | None = None
    cached_queries: int = 0


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def plan_retrieval(warehouse_path: Path, claim_ids: list[str] | None, limit: int | None, redo: bool) -> RetrievalPlan:
    """Pending claims, their queries (built and stored when missing) and the uncached ones.

    The uncached queries of metered backends are counted against today's budget claim by claim
    before anything is sent; claims that no longer fit are deferred to another day.
    """
    settings = load_settings()
    backend = configured_backend(settings)
    num = settings.search.results_per_query
    plan = RetrievalPlan()
    with open_warehouse(warehouse_path) as wh:
        claims = pending_claims(wh, claim_ids, include_done=redo)[: limit or None]
        have = claims_with_queries(wh)
        missing = [c for c in claims if c["claim_id"] not in have]
        if missing:
            store_queries(wh, build_queries_for(missing, settings, progress=False))
        for claim in claims:
            plan.claims[claim["claim_id"]] = claim
            plan.queries[claim["claim_id"]] = [query_spec(q, backend.name, num) for q in queries_of_claim(wh, claim["claim_id"])]
        cached = cached_results(wh, [q.cache_key for specs in plan.queries.values() for q in specs])
        for claim_id, specs in plan.queries.items():
            todo = [q for q in specs if q.cache_key not in cached]
            plan.cached_queries += len(specs) - len(todo)
            if not todo:
                continue
            if plan.budget_error:
                plan.deferred.append(claim_id)
                continue
            try:
                reserve_queries(wh, backend, len(todo), settings.search.daily_query_budget)
            except SearchBudgetExceeded as exc:
                plan.budget_error = str(exc)
                plan.deferred.append(claim_id)
                continue
            plan.to_send[claim_id] = todo
    for claim_id in plan.deferred:
        del plan.claims[claim_id]
    return plan


@task(retries=1, retry_delay_seconds=5, cache_policy=NO_CACHE, task_run_name="search-{claim_id}")
def search_claim(claim_id: str, queries: list[QuerySpec], num: int) -> ClaimSearch:
    """Send one claim's uncached queries (no warehouse, no key in the parameters)."""
    return run_claim_queries(claim_id, queries, num, configured_backend())


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def store_claim_search(warehouse_path: Path, claim: dict[str, Any], queries: list[QuerySpec], search: ClaimSearch,
                       backend: str) -> dict[str, Any]:
    """Cache what came back; for a claim with every query answered, store hits and decisions."""
    claim_id = claim["claim_id"]
    search_settings = load_settings().search  # read here: settings hold keys, parameters are recorded
    num = search_settings.results_per_query
    with open_warehouse(warehouse_path) as wh:
        by_key = {q.cache_key: q for q in queries}
        with wh.transaction():
            for key, results in search.results.items():
                q = by_key[key]
                remember(wh, backend, q.text, q.window, num, [SearchResult.from_json(r) for r in results])
        if search.error:
            set_claim_status(wh, claim_id, backend=backend, status="failed", queries=len(queries), error=search.error)
            return {"claim_id": claim_id, "status": "failed", "error": search.error}
        stored = cached_results(wh, by_key)
        results = {k: [SearchResult.from_json(r) for r in v] for k, v in stored.items()}
        candidates = merge_hits(hits_of(queries, results))
        decisions = select_documents(claim["text"], candidates, news_domains=[
            *search_settings.news_domains, *search_settings.stance_dataset_domains], limit=search_settings.max_documents_per_claim)
        now = _now()
        hits = hit_rows(queries, results, backend, now)
        kept = sum(d.kept for d in decisions)
        with wh.transaction():
            store_hits(wh, hits)
            replace_decisions(wh, claim_id, decision_rows(claim_id, decisions, now))
            set_claim_status(wh, claim_id, backend=backend, status="searched", queries=len(queries), hits=len(hits), kept=kept)
    return {"claim_id": claim_id, "status": "searched", "hits": len(hits), "candidates": len(candidates), "kept": kept}


@task(retries=1, retry_delay_seconds=10, cache_policy=NO_CACHE)
def fetch_articles(warehouse_path: Path, claim_ids: list[str], run_dir: Path) -> dict[str, int]:
    """Fetch every kept URL of these claims not stored yet (or failed before), and load them."""
    settings = load_settings()
    with open_warehouse(warehouse_path) as wh:
        kept = kept_urls_by_claim(wh)
        wanted = dict(pair for c in claim_ids for pair in kept.get(c, []))
        known = article_status(wh, wanted)
    # the URL as the search engine gave it is fetched; its canonical form names the article
    todo = sorted(url for canonical, url in wanted.items()
                  if canonical not in known or known[canonical]["fetch_status"] == "failed")
    counts = {"urls": len(wanted), "fetched": len(todo), "ok": 0}
    if not todo:
        return counts
    mirror = str(settings.search.mirror_base) if settings.search.mirror_base else None
    archive = ((str(settings.crawl.archive_url), settings.crawl.availability_url)
               if settings.crawl.archive_fallback else None)
    out = run_article_spider(todo, run_dir, mirror_base=mirror, archive=archive)
    pages, articles = article_rows(read_fetched(out), min_arabic_ratio=settings.search.min_arabic_ratio,
                                   min_text_chars=settings.search.min_text_chars, run_id=run_dir.name)
    with open_warehouse(warehouse_path) as wh:
        store_articles(wh, pages, articles)
    for a in articles:
        counts[a["fetch_status"]] = counts.get(a["fetch_status"], 0) + 1
    return counts


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def create_pairs(warehouse_path: Path, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Pairs for the fetched Arabic articles of the kept documents; the claims are then done,
    except those with a document whose fetch failed: the next run fetches it again."""
    with open_warehouse(warehouse_path) as wh:
        kept = kept_articles(wh, claim_ids)
        rows = pair_rows(kept, _now())
        pairs = {claim_id: 0 for claim_id in claim_ids}
        for row in rows:
            pairs[row["claim_id"]] += 1
        retry = claims_with_failed_fetches(wh, claim_ids)
        with wh.transaction():
            store_pairs(wh, rows)
            mark_claims_done(wh, {c: n for c, n in pairs.items() if c not in retry})
    return [{"claim_id": c, "status": "searched" if c in retry else "done", "pairs": n} for c, n in pairs.items()]


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
        run_dir = settings.staging_dir / "articles" / f"retrieval-{_now():%Y%m%dT%H%M%S%f}"
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
