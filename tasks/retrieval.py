"""Document retrieval's stage logic: plan, budget, cache, merge and filter, the fetch's
dead-link archive fallback, pairs.

Plain functions of a warehouse and the settings; the Prefect flow
(:mod:`flows.retrieve_documents`) only calls them from its tasks and fans the searches out.
Every step is idempotent: stored queries are reused, the cache answers the searches that
already succeeded, and each claim's progress is stored (``claim_retrieval``), so a failed
run resumes with the claims not done and nothing is sent twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arastance.config import Settings
from arastance.config.crawl import CrawlSettings
from arastance.config.search import SearchSettings
from tasks.articles import article_rows, read_fetched
from tasks.documents import decision_rows, hit_rows, hits_of, merge_hits, pair_rows, select_documents
from tasks.queries import build_queries_for
from tasks.search.base import SearchBudgetExceeded, SearchResult
from tasks.search.batch import ClaimSearch, QuerySpec, configured_backend, query_spec
from tasks.search.cache import remember, reserve_queries
from warehouse import Warehouse
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
from warehouse.retrieval_queries import claims_with_queries, queries_of_claim, store_queries


def utc_now() -> datetime:
    """Warehouse timestamps are naive UTC."""
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


def plan_retrieval(wh: Warehouse, settings: Settings, claim_ids: list[str] | None, limit: int | None,
                   redo: bool) -> RetrievalPlan:
    """Pending claims, their queries (built and stored when missing) and the uncached ones.

    The uncached queries of metered backends are counted against today's budget claim by claim
    before anything is sent; claims that no longer fit are deferred to another day.
    """
    backend = configured_backend(settings)
    num = settings.search.results_per_query
    plan = RetrievalPlan()
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


def store_claim_search(wh: Warehouse, search_settings: SearchSettings, claim: dict[str, Any],
                       queries: list[QuerySpec], search: ClaimSearch, backend: str) -> dict[str, Any]:
    """Cache what came back; for a claim with every query answered, store hits and decisions.

    The hits of all the claim's queries are merged (one candidate per canonical URL) and
    filtered by the method's rule (news sources first, TF-IDF rank, at most
    ``max_documents_per_claim``), and the claim's status is stored with them in one transaction.
    """
    claim_id = claim["claim_id"]
    num = search_settings.results_per_query
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
    now = utc_now()
    hits = hit_rows(queries, results, backend, now)
    kept = sum(d.kept for d in decisions)
    with wh.transaction():
        store_hits(wh, hits)
        replace_decisions(wh, claim_id, decision_rows(claim_id, decisions, now))
        set_claim_status(wh, claim_id, backend=backend, status="searched", queries=len(queries), hits=len(hits), kept=kept)
    return {"claim_id": claim_id, "status": "searched", "hits": len(hits), "candidates": len(candidates), "kept": kept}


def urls_to_fetch(wh: Warehouse, claim_ids: Iterable[str]) -> tuple[int, list[str]]:
    """``(kept URLs of these claims, those not stored yet or failed before)``.

    The URL as the search engine gave it is fetched; its canonical form names the article.
    """
    kept = kept_urls_by_claim(wh)
    wanted = dict(pair for c in claim_ids for pair in kept.get(c, []))
    known = article_status(wh, wanted)
    todo = sorted(url for canonical, url in wanted.items()
                  if canonical not in known or known[canonical]["fetch_status"] == "failed")
    return len(wanted), todo


def archive_fallback(crawl_settings: CrawlSettings) -> tuple[str, str] | None:
    """Where the article fetcher looks for a dead link's copy: ``(archive root, availability API)``.

    With ``crawl.archive_fallback`` on, a link that answers with an HTTP error, times out or is
    refused is read from its closest web-archive capture (``articles.fetched_copy`` says which
    copy was stored); off (None), such a link is dropped with its error.
    """
    if not crawl_settings.archive_fallback:
        return None
    return str(crawl_settings.archive_url), crawl_settings.availability_url


def store_fetched_articles(wh: Warehouse, search_settings: SearchSettings, fetched: Path, run_id: str) -> dict[str, int]:
    """Load the article fetcher's output; the count of articles by fetch status."""
    pages, articles = article_rows(read_fetched(fetched), min_arabic_ratio=search_settings.min_arabic_ratio,
                                   min_text_chars=search_settings.min_text_chars, run_id=run_id)
    store_articles(wh, pages, articles)
    counts: dict[str, int] = {}
    for a in articles:
        counts[a["fetch_status"]] = counts.get(a["fetch_status"], 0) + 1
    return counts


def create_pairs(wh: Warehouse, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Pairs for the fetched Arabic articles of the kept documents; the claims are then done,
    except those with a document whose fetch failed: the next run fetches it again."""
    kept = kept_articles(wh, claim_ids)
    rows = pair_rows(kept, utc_now())
    pairs = {claim_id: 0 for claim_id in claim_ids}
    for row in rows:
        pairs[row["claim_id"]] += 1
    retry = claims_with_failed_fetches(wh, claim_ids)
    with wh.transaction():
        store_pairs(wh, rows)
        mark_claims_done(wh, {c: n for c, n in pairs.items() if c not in retry})
    return [{"claim_id": c, "status": "searched" if c in retry else "done", "pairs": n} for c, n in pairs.items()]
