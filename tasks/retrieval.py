"""Document retrieval's stage logic: plan, budget, cache, merge and filter, fetch waves (with the
dead-link archive fallback), ranking on article text, pairs.

Plain functions of a warehouse and the settings; the Prefect flow
(:mod:`flows.retrieve_documents`) only calls them from its tasks and fans the searches out.
Every step is idempotent: stored queries are reused while the claim's text, date and the window
setting they were built from stay the same, the cache answers the searches that
already succeeded, and each claim's progress is stored (``claim_retrieval``), so a failed
run resumes with the claims not done and nothing is sent twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from itertools import islice
from pathlib import Path
from typing import Any

from arastance.config import Settings
from arastance.config.crawl import CrawlSettings
from arastance.config.search import SearchSettings
from arastance.logging import get_logger
from tasks.articles import article_rows, read_fetched
from tasks.date_window import date_verdicts, enforce_date_window
from tasks.documents import (
    POOL_REASONS,
    PoolDocument,
    decision_rows,
    documents_to_fetch,
    hit_rows,
    hits_of,
    merge_hits,
    pair_rows,
    rank_fetched,
    select_documents,
)
from tasks.queries import build_queries_for, query_inputs
from tasks.search.base import SearchBudgetExceeded, SearchResult
from tasks.search.batch import ClaimSearch, QuerySpec, configured_backend, query_spec
from tasks.search.cache import cache_name, refund_queries, remember, requests_per_query, reserve_queries
from warehouse import Warehouse
from warehouse.date_window import query_windows
from warehouse.retrieval import (
    cached_results,
    claims_with_failed_fetches,
    kept_articles,
    mark_claims_done,
    pool_documents,
    replace_decisions,
    retrieval_candidates,
    set_claim_status,
    store_articles,
    store_hits,
    store_pairs,
    unknown_claim_ids,
    update_decisions,
)
from warehouse.retrieval_queries import claims_with_current_queries, queries_of_claim, store_queries

log = get_logger(__name__)


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
    #: the claims of a ``redo`` run (those deferred too) that a run without it leaves as they are:
    #: stored done, nothing their queries were built from changed. A run stopped or deferred before
    #: it stored them done again leaves them done, so only another ``redo`` takes them up.
    redo_only: set[str] = field(default_factory=set)


def plan_retrieval(wh: Warehouse, settings: Settings, claim_ids: list[str] | None, limit: int | None,
                   redo: bool) -> RetrievalPlan:
    """The claims to retrieve (:func:`claims_to_retrieve`) dated within the setting ``period``, their
    queries (built and stored when missing, or when what they were built from changed:
    :func:`tasks.queries.query_inputs`) and the uncached ones.

    The uncached queries of metered backends are counted against today's budget claim by claim
    before anything is sent, as the billed requests (pages) each may take; claims that no longer
    fit are deferred to another day. With no
    claim pending, no backend (nor search index) is needed: the plan is empty.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit {limit}: at most how many claims get documents, so 1 or more (unset: every pending claim)")
    if claim_ids and (unknown := unknown_claim_ids(wh, claim_ids)):
        raise ValueError(f"no stored claim has the id(s) {', '.join(unknown)}; "
                         "`arastance sql \"SELECT claim_id, title FROM claims\"` lists them")
    num = settings.search.results_per_query
    plan = RetrievalPlan()
    with closing(claims_to_retrieve(wh, settings, claim_ids, redo)) as candidates:  # a limit leaves its reader early
        claims = list(islice(candidates, limit))
    if not claims:  # nothing to search: no backend (nor index) needed
        return plan
    if not redo and (changed := sum(c["retrieval_status"] == "done" for c in claims)):
        log.info("done claims whose queries were built from other inputs are retrieved again", extra={"claims": changed})
    backend = configured_backend(settings)
    inputs = {c["claim_id"]: query_inputs(c, settings.search.date_window_months) for c in claims}
    plan.redo_only = {c["claim_id"] for c in claims if not taken_without_redo(c, inputs[c["claim_id"]])}
    have = claims_with_current_queries(wh, inputs)
    missing = [c for c in claims if c["claim_id"] not in have]
    if missing:
        store_queries(wh, build_queries_for(missing, settings, progress=False))
    for claim in claims:
        claim_id = claim["claim_id"]
        plan.claims[claim_id] = claim
        plan.queries[claim_id] = [query_spec(q, cache_name(backend), num)  # a rebuilt local index: searched afresh
                                  for q in queries_of_claim(wh, claim_id, inputs[claim_id])]
    cached = cached_results(wh, [q.cache_key for specs in plan.queries.values() for q in specs])
    per_query = requests_per_query(backend, num)
    for claim_id, specs in plan.queries.items():
        todo = [q for q in specs if q.cache_key not in cached]
        plan.cached_queries += len(specs) - len(todo)
        if not todo:
            continue
        if plan.budget_error:
            plan.deferred.append(claim_id)
            continue
        try:
            reserve_queries(wh, backend, len(todo) * per_query, settings.search.daily_query_budget, per_query=per_query)
        except SearchBudgetExceeded as exc:
            plan.budget_error = str(exc)
            plan.deferred.append(claim_id)
            continue
        plan.to_send[claim_id] = todo
    for claim_id in plan.deferred:
        del plan.claims[claim_id]
    return plan


def claims_to_retrieve(wh: Warehouse, settings: Settings, claim_ids: list[str] | None,
                       redo: bool) -> Iterator[dict[str, Any]]:
    """The claims a run retrieves, oldest first: every one with ``redo``; else those not done and
    the done ones whose current query inputs (:func:`tasks.queries.query_inputs`) differ from those
    their documents were searched with: a reviewer's text, a corrected date, another window. So a
    scheduled plain run reaches them; a run with nothing changed plans none. The fingerprint is a
    Python hash, so it is compared here, over the claims the warehouse hands in batches.
    """
    months = settings.search.date_window_months
    for claim in retrieval_candidates(wh, claim_ids, include_done=redo, period=settings.period.bounds):
        if redo or taken_without_redo(claim, query_inputs(claim, months)):
            yield claim


def taken_without_redo(claim: Mapping[str, Any], inputs: str) -> bool:
    """Whether a run without ``redo`` takes this candidate (:func:`retrieval_candidates`): one not
    done, or done from queries built from other inputs than its current ``inputs``
    (:func:`tasks.queries.query_inputs`). A done claim with no recorded query set (queries stored
    before ``query_sets``, documents from a dataset) has nothing to compare: only ``redo`` takes it."""
    return claim["retrieval_status"] != "done" or claim["built_from"] not in (None, inputs)


def store_claim_search(wh: Warehouse, search_settings: SearchSettings, claim: dict[str, Any],
                       queries: list[QuerySpec], search: ClaimSearch, backend: str) -> dict[str, Any]:
    """Cache what came back; for a claim with every query answered, store hits and decisions.

    Requests reserved against the budget that were not billed (``search.unanswered``) are
    refunded in the same transaction as the cached answers. A claim left unfinished by an error
    that stopped the run (``search.stopped``) keeps its status: it is taken up again by the next run. The hits of all the claim's queries
    are merged (one candidate per canonical URL) and filtered by the method's rule (news sources
    first, TF-IDF rank, at most ``max_documents_per_claim``), and the claim's status is stored
    with them in one transaction.
    """
    claim_id = claim["claim_id"]
    num = search_settings.results_per_query
    by_key = {q.cache_key: q for q in queries}
    with wh.transaction():
        for key, results in search.results.items():
            q = by_key[key]
            remember(wh, backend, q.text, q.window, num, [SearchResult.from_json(r) for r in results], key=key)
        refund_queries(wh, backend, search.unanswered)  # reserved in the plan but never answered
    if search.stopped:
        return {"claim_id": claim_id, "status": "pending", "error": search.stopped}
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
        store_hits(wh, backend, [q.query_id for q in queries], hits)
        replace_decisions(wh, claim_id, decision_rows(claim_id, decisions, now))
        set_claim_status(wh, claim_id, backend=backend, status="searched", queries=len(queries), hits=len(hits), kept=kept)
    return {"claim_id": claim_id, "status": "searched", "hits": len(hits), "candidates": len(candidates), "kept": kept}


def pools(wh: Warehouse, search_settings: SearchSettings, claim_ids: Iterable[str]) -> dict[str, list[PoolDocument]]:
    """Each claim's ranked pool (news-filtered when needed) in fetch order, the search-time
    ranking, with what each document's fetch gave so far.

    Each fetched article carries its date window check (``search.date_window_scope``,
    :func:`tasks.date_window.date_verdicts`), so that one dated outside its window is replaced
    by the next candidate and never takes one of the top places of the ranking.
    """
    ids = list(claim_ids)
    found = {c: [PoolDocument(**d) for d in docs] for c, docs in pool_documents(wh, ids, POOL_REASONS).items()}
    fetched = [{"claim_id": d.claim_id, "canonical_url": d.canonical_url, "query_kinds": d.query_kinds,
                "article_date": d.article_date, "engine_date": d.engine_date}
               for docs in found.values() for d in docs if d.fetch_status == "ok"]
    checks = {(v.claim_id, v.canonical_url): v
              for v in date_verdicts(fetched, query_windows(wh, ids), search_settings.date_window_scope)}
    return {c: [replace(d, date_check=checks.get((d.claim_id, d.canonical_url))) for d in docs]
            for c, docs in found.items()}


@dataclass(frozen=True)
class FetchTarget:
    """One article to fetch: the URL as the search engine gave it, and the day its archive copy is
    sought around if the link is dead (the earliest date of the claims it is a candidate of: the
    archive's capture nearest the claim's period, not its newest, which is often a later page)."""

    url: str
    around: date | None


def next_fetch_wave(wh: Warehouse, search_settings: SearchSettings, claim_ids: Iterable[str],
                    attempted: set[str]) -> dict[str, FetchTarget]:
    """The next wave of article fetches of these claims, by canonical URL.

    The first wave holds each claim's first ``search.fetch_pool_per_claim`` candidates (0: every
    one; those stored before are not fetched again); each later wave the next candidate for every
    document that turned out unusable (failed, 404, not Arabic, empty), until a claim has
    ``search.max_documents_per_claim`` Arabic articles or no candidate is left. ``attempted``
    holds the canonical URLs already tried in this run (the caller adds the wave to it).
    The URL as the search engine gave it is fetched; its canonical form names the article.
    """
    limit, pool = search_settings.max_documents_per_claim, search_settings.fetch_pool_per_claim
    urls: dict[str, str] = {}
    days: dict[str, list[date]] = {}
    for docs in pools(wh, search_settings, claim_ids).values():
        for d in documents_to_fetch(docs, limit=limit, pool=pool, attempted=attempted):
            urls.setdefault(d.canonical_url, d.url)
            if d.claim_date is not None:
                days.setdefault(d.canonical_url, []).append(d.claim_date)
    return {key: FetchTarget(url, min(days[key]) if key in days else None) for key, url in urls.items()}


def rank_fetched_articles(wh: Warehouse, search_settings: SearchSettings, claims: Mapping[str, str]) -> int:
    """Rank each claim's fetched Arabic articles by TF-IDF of title and text to the claim (``claims``:
    claim id -> claim text) and store the decisions (top ``max_documents_per_claim`` kept, reasons
    ``article_text_top_k``, ``below_top_k``, ``outside_date_window``, ``duplicate_text``,
    ``fetch_failed``, ``not_fetched``) with each article's date check; the number of rows.

    The date window is checked before the top-k cut: an article dated outside it leaves its place
    to the next one in the window, instead of being dropped after the cut with nobody moving up.
    """
    now = utc_now()
    rows = [row for claim_id, docs in pools(wh, search_settings, claims).items()
            for row in rank_fetched(claims[claim_id], docs, limit=search_settings.max_documents_per_claim,
                                    decided_at=now)]
    with wh.transaction():
        update_decisions(wh, rows)
    return len(rows)


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


def create_pairs(wh: Warehouse, search_settings: SearchSettings, claim_ids: list[str]) -> list[dict[str, Any]]:
    """Pairs for the fetched Arabic articles of the kept documents inside their date window; the
    claims are then done, except those short of ``search.max_documents_per_claim`` usable documents
    with a candidate whose fetch failed for a passing reason: the next run fetches it again.

    First each kept document is checked against its date window (``search.date_window_scope``,
    :func:`tasks.date_window.enforce_date_window`): those dated outside it are dropped, with the reason
    stored. The ranking (:func:`rank_fetched_articles`) already left them out, so in a retrieval run
    this drops nothing; it keeps pairs inside the window whatever kept decisions it is given.
    The claims' pairs become those of their kept documents (:func:`warehouse.retrieval.store_pairs`):
    a claim ranked again loses the pairs of the documents it dropped, except those annotation
    has touched, which stay and are logged; the counts include them.
    """
    limit = search_settings.max_documents_per_claim
    enforce_date_window(wh, claim_ids, search_settings.date_window_scope)
    kept = kept_articles(wh, claim_ids)
    rows = pair_rows(kept, utc_now())
    retry = claims_with_failed_fetches(wh, claim_ids, limit=limit)
    with wh.transaction():
        annotated = store_pairs(wh, claim_ids, rows)
        pairs = {claim_id: 0 for claim_id in claim_ids}
        for row in [*rows, *annotated]:
            pairs[row["claim_id"]] += 1
        mark_claims_done(wh, {c: n for c, n in pairs.items() if c not in retry})
    for claim_id in dict.fromkeys(p["claim_id"] for p in annotated):
        log.warning("pairs of documents no longer kept stay: annotation has started on them", extra={
            "claim_id": claim_id, "pair_ids": [p["pair_id"] for p in annotated if p["claim_id"] == claim_id]})
    return [{"claim_id": c, "status": "searched" if c in retry else "done", "pairs": n} for c, n in pairs.items()]
