"""Typed reads and writes of the retrieval stage: search cache, query budget, hits, document
decisions, articles, claim-article pairs and per-claim progress.

Only the retrieval flow's own process calls the writers (the single writer); search tasks and
the article spider work without the warehouse and hand their results back. Each writer is one
transaction, its own or its caller's: on a DuckLake, runs on other hosts write it too, and only a
transaction holds the catalog's write lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime, timezone
from typing import Any

from warehouse.connection import Warehouse
from warehouse.keyed_reads import rows_by_keys
from warehouse.sql import load_sql


_CACHED = "SELECT cache_key, results FROM search_cache WHERE cache_key IN (SELECT unnest($keys::VARCHAR[]))"

_USAGE = "SELECT coalesce(sum(queries), 0) FROM search_usage WHERE day = $day AND backend = $backend"

# An increment, so not an insert_rows upsert; in two statements rather than ON CONFLICT, which a
# DuckLake warehouse (no keys) cannot run. Inside a transaction, so writers do not interleave.
_ADD_USAGE = (
    "UPDATE search_usage SET queries = queries + $n WHERE day = $day AND backend = $backend",
    "INSERT INTO search_usage (day, backend, queries) SELECT $day, $backend, $n "
    "WHERE NOT EXISTS (SELECT 1 FROM search_usage WHERE day = $day AND backend = $backend)",
)

_DELETE_DECISIONS = "DELETE FROM document_decisions WHERE claim_id = $claim_id"
_DELETE_HITS_NOT_IN = ("DELETE FROM search_hits WHERE backend = $backend AND list_contains($query_ids, query_id) "
                       "AND NOT list_contains($hit_ids, hit_id)")

_POOL_ARTICLE_COLUMNS = ("fetch_status", "http_status", "title", "text")

_ARTICLE_STATUS = """
SELECT canonical_url, article_id, fetch_status FROM articles WHERE canonical_url IN (SELECT unnest($urls::VARCHAR[]))
"""


_KEPT_URLS = """
SELECT claim_id, list(canonical_url ORDER BY rank) AS canonical_urls, list(url ORDER BY rank) AS urls
FROM document_decisions WHERE decision = 'kept' GROUP BY claim_id
"""


_MARK_DONE = """
UPDATE claim_retrieval SET status = 'done', pairs = $pairs, error = NULL, updated_at = $now
WHERE claim_id = $claim_id
"""

_CLAIM_URLS = "SELECT claim_id, source_id, url, veracity FROM claims"

# Both read the claims' current queries only (with_current_queries): a superseded query is no longer searched.
_SEARCHED_KINDS = """
SELECT DISTINCT q.claim_id, unnest(list_prepend(q.kind, coalesce(q.also_kinds, []))) AS kind
FROM current_queries q JOIN claim_retrieval r USING (claim_id)
WHERE r.status IN ('searched', 'done')
"""

# Only the hits of the backend whose search gave the claim's documents (claim_retrieval.backend), which the
# recall's "all" row measures: another backend's hits would mix two searches in one row.
_HITS_BY_KIND = """
SELECT q.claim_id, unnest(list_prepend(q.kind, coalesce(q.also_kinds, []))) AS kind, h.url, h.rank
FROM search_hits h JOIN current_queries q USING (query_id) JOIN claim_retrieval r USING (claim_id, backend)
ORDER BY q.claim_id, kind, h.rank
"""

_DECISION_COUNTS = """
SELECT decision, reason, count(*) AS documents FROM document_decisions GROUP BY ALL ORDER BY decision DESC, reason
"""



def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def with_current_queries(sql: str) -> str:
    """``sql`` with ``current_queries`` to read: each claim's current queries, those of its current
    query set (``warehouse/sql/current_queries.sql``)."""
    return f"WITH current_queries AS ({load_sql('current_queries')})\n{sql}"


# -- claims ----------------------------------------------------------------------------------
def retrieval_candidates(wh: Warehouse, claim_ids: Sequence[str] | None = None, *, include_done: bool = False,
                         period: tuple[date | None, date | None] = (None, None),
                         batch_size: int = 5000) -> Iterator[dict[str, Any]]:
    """Claims of ``v_retrieval_claims`` dated within ``period``, oldest first: every one with
    ``include_done`` (``retrieve --redo``); else the pending claims and the done ones whose queries
    ``query_sets`` records, each with ``built_from``: the inputs its documents were searched with
    (None for a claim not done, and for every claim with ``include_done``: nothing is compared).

    The inputs fingerprint is computed in Python (``tasks.queries.query_inputs``), so the planner
    compares it and keeps the done claims whose text, date or window changed since; read in
    batches, as a warehouse may hold every claim done.
    """
    params = {"include_done": include_done, "done_built": not include_done, "all_claims": claim_ids is None,
              "claim_ids": list(claim_ids or []), "period_start": period[0], "period_end": period[1]}
    return wh.iter_rows(load_sql("retrieval_pending_claims"), params, batch_size)


def unknown_claim_ids(wh: Warehouse, claim_ids: Sequence[str]) -> list[str]:
    """Those of ``claim_ids`` that no stored claim has (a typo in ``--claim``), in the order given."""
    known = {r["claim_id"] for r in wh.query("SELECT claim_id FROM claims WHERE list_contains(?, claim_id)",
                                             [list(claim_ids)])}
    return [c for c in claim_ids if c not in known]


def set_claim_status(wh: Warehouse, claim_id: str, *, backend: str, status: str, queries: int = 0, hits: int = 0,
                     kept: int = 0, pairs: int = 0, error: str | None = None) -> None:
    """Record a claim's retrieval progress; ``done`` claims are skipped by the next run."""
    wh.insert_rows("claim_retrieval", [{
        "claim_id": claim_id, "backend": backend, "status": status, "queries": queries, "hits": hits,
        "kept": kept, "pairs": pairs, "error": error, "updated_at": _now(),
    }], on_conflict="update")


def retrieval_progress(wh: Warehouse, period: tuple[date | None, date | None] = (None, None)) -> list[dict[str, Any]]:
    """Claims per retrieval status, every row counting the claims a run takes within ``period``,
    those not searched yet included (``retrieval_progress.sql``). The count's column names the
    period (``claims dated from 2012-01-01 to 2018-12-31``; ``claims`` when open), so a table of
    these rows says which claims it counts: a set bound leaves out those dated outside it and the
    undated ones."""
    start, end = period
    dated = " ".join(bound for bound in (start and f"from {start}", end and f"to {end}") if bound)
    column = f"claims dated {dated}" if dated else "claims"
    rows = wh.query(load_sql("retrieval_progress"), {"period_start": start, "period_end": end})
    return [{"status": r["status"], column: r["claims"]} for r in rows]


# -- search cache and budget -------------------------------------------------------------------
def cached_results(wh: Warehouse, keys: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Stored result lists by cache key, for the keys that were searched before."""
    rows = wh.query(_CACHED, {"keys": sorted(set(keys))})
    return {r["cache_key"]: json.loads(r["results"]) for r in rows}


def store_results(wh: Warehouse, *, cache_key: str, backend: str, query_text: str, window_start: date | None,
                  window_end: date | None, num: int, results: Sequence[Mapping[str, Any]]) -> None:
    wh.insert_rows("search_cache", [{
        "cache_key": cache_key, "backend": backend, "query_text": query_text, "window_start": window_start,
        "window_end": window_end, "num": num, "results": json.dumps(list(results), ensure_ascii=False),
        "result_count": len(results), "searched_at": _now(),
    }], on_conflict="update")


def queries_used(wh: Warehouse, backend: str, day: date) -> int:
    """Queries sent to ``backend`` on ``day`` (UTC)."""
    return int(wh.scalar(_USAGE, {"day": day, "backend": backend}))


def add_queries_used(wh: Warehouse, backend: str, day: date, n: int) -> None:
    if n > 0:
        with wh.transaction() as con:
            for sql in _ADD_USAGE:
                con.execute(sql, {"day": day, "backend": backend, "n": n})


def release_queries_used(wh: Warehouse, backend: str, day: date, n: int) -> None:
    """Give back ``n`` reserved queries of ``day`` that were never answered (never below zero)."""
    if n > 0:
        wh.execute(
            "UPDATE search_usage SET queries = greatest(queries - $n, 0) WHERE day = $day AND backend = $backend",
            {"day": day, "backend": backend, "n": n},
        )


# -- hits and decisions ------------------------------------------------------------------------
def store_hits(wh: Warehouse, backend: str, query_ids: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> int:
    """``search_hits`` rows (``hit_id`` = stable_id(query_id, backend, url)) of the answers ``backend``
    gave ``query_ids`` now, in one transaction (the caller's, or its own); returns the new ones.

    The hits of an earlier answer that this one no longer holds are removed, and those it holds
    again take its rank and text (their first ``retrieved_at`` stays): a local index rebuilt and
    searched again answers otherwise, and the two builds' hits mixed made recall and
    ``retrieve compare`` measure neither. The earlier answer stays in ``search_cache``.
    """
    with wh.transaction():
        wh.execute(_DELETE_HITS_NOT_IN, {"backend": backend, "query_ids": list(query_ids),
                                        "hit_ids": [r["hit_id"] for r in rows]})
        return wh.insert_rows("search_hits", rows, on_conflict="update",
                              update_columns=["rank", "title", "snippet", "published_date"])


def replace_decisions(wh: Warehouse, claim_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """The claim's document decisions, replacing an earlier run's, in one transaction (the caller's, or its own)."""
    with wh.transaction():
        wh.execute(_DELETE_DECISIONS, {"claim_id": claim_id})
        wh.insert_rows("document_decisions", rows, on_conflict="error")


def decision_counts(wh: Warehouse) -> list[dict[str, Any]]:
    return wh.query(_DECISION_COUNTS)


def kept_urls_by_claim(wh: Warehouse) -> dict[str, list[tuple[str, str]]]:
    """Each claim's kept documents as (canonical URL, URL as found), best first."""
    return {r["claim_id"]: list(zip(r["canonical_urls"], r["urls"])) for r in wh.query(_KEPT_URLS)}


def claims_with_failed_fetches(wh: Warehouse, claim_ids: Sequence[str], *, limit: int = 2**31 - 1) -> set[str]:
    """Claims short of ``limit`` usable documents with a candidate whose fetch failed for a passing
    reason (5xx, timeout, no answer): not done yet, so a re-run fetches it again; a 404 is final."""
    return {r["claim_id"] for r in wh.query(load_sql("retrieval_failed_fetches"), {"claim_ids": list(claim_ids), "limit": limit})}


def pool_documents(wh: Warehouse, claim_ids: Sequence[str], reasons: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each claim's documents whose decision reason is one of ``reasons`` (the ranked pool), in fetch
    order, with their article's fetch status, title and text when fetched, and the dates its date
    window is checked on (the article's, the search engine's)."""
    out: dict[str, list[dict[str, Any]]] = {c: [] for c in claim_ids}
    docs = wh.query(load_sql("retrieval_pool_documents"), {"claim_ids": list(claim_ids), "reasons": list(reasons)})
    # by URL, a chunk at a time: only these articles' text is read, not every stored article's
    articles = {a["canonical_url"]: a for a in rows_by_keys(wh, load_sql("retrieval_pool_articles"),
                                                             (d["canonical_url"] for d in docs))}
    for d in docs:
        out[d["claim_id"]].append(_with_article(d, articles.get(d["canonical_url"], {})))
    return out


def _with_article(doc: Mapping[str, Any], article: Mapping[str, Any]) -> dict[str, Any]:
    """A pool document with its article's columns (None when not fetched), in the order the pool's
    rows have always had: the document's, the article's, the claim's date, then the two dates."""
    head = {k: doc[k] for k in ("claim_id", "canonical_url", "url", "domain", "best_rank", "query_kinds")}
    return {**head, **{k: article.get(k) for k in _POOL_ARTICLE_COLUMNS}, "claim_date": doc["claim_date"],
            "article_date": article.get("article_date"), "engine_date": doc["engine_date"]}


def update_decisions(wh: Warehouse, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace the decisions of these (claim, document) pairs; the claim's other decisions stay."""
    wh.insert_rows("document_decisions", rows, on_conflict="update")


def mark_claims_done(wh: Warehouse, pairs_by_claim: Mapping[str, int]) -> None:
    """Retrieval of these claims is finished, with this many claim-article pairs each."""
    now = _now()
    with wh.transaction():
        for claim_id, pairs in pairs_by_claim.items():
            wh.execute(_MARK_DONE, {"claim_id": claim_id, "pairs": pairs, "now": now})


def claim_urls(wh: Warehouse) -> list[dict[str, Any]]:
    """Every claim's id, source, URL and veracity."""
    return wh.query(_CLAIM_URLS)


def searched_query_kinds(wh: Warehouse) -> list[dict[str, Any]]:
    """(claim_id, kind) of every kind of the current queries of the claims whose search is complete."""
    return wh.query(with_current_queries(_SEARCHED_KINDS))


def hits_by_kind(wh: Warehouse) -> list[dict[str, Any]]:
    """Search hits with each query kind their query stands for (claim_id, kind, url, rank): those of
    the claims' current queries, from the backend whose search gave each claim its documents."""
    return wh.query(with_current_queries(_HITS_BY_KIND))


# -- articles and pairs --------------------------------------------------------------------------
def article_status(wh: Warehouse, canonical_urls: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Stored articles by canonical URL (``article_id``, ``fetch_status``)."""
    rows = wh.query(_ARTICLE_STATUS, {"urls": sorted(set(canonical_urls))})
    return {r["canonical_url"]: r for r in rows}


def store_articles(wh: Warehouse, pages: Sequence[Mapping[str, Any]], articles: Sequence[Mapping[str, Any]]) -> int:
    """Raw pages (kept once per body) and articles, together; returns the new articles.

    A stored article is replaced only by a fetch of the same URL (the caller re-fetches failed
    ones only), so a good article is never overwritten by a later failure.
    """
    domains = sorted({a["domain"] for a in articles if a.get("domain")})
    sources = [{"source_id": d, "name": d, "country": None, "kind": "news", "base_url": f"https://{d}/",
                "default_veracity": None} for d in domains]
    with wh.transaction():
        wh.insert_rows("sources", sources, on_conflict="ignore")  # each news site, once
        wh.insert_rows("raw_pages", pages, on_conflict="ignore")
        if not articles:
            return 0
        updated = [c for c in articles[0] if c != "article_id"]
        return wh.insert_rows("articles", articles, on_conflict="update", update_columns=updated)


def kept_articles(wh: Warehouse, claim_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The claims' kept documents that have an article row, with its fetch status."""
    return wh.query(load_sql("retrieval_kept_with_articles"), {"claim_ids": list(claim_ids)})


def store_pairs(wh: Warehouse, claim_ids: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Make ``rows`` the claim-article pairs of ``claim_ids`` in one transaction (the caller's, or its
    own); returns the pairs of documents no longer kept that stay because annotation has touched them.

    A claim ranked again (a page that failed for a passing reason fetched on the next run, or
    ``retrieve --redo``) keeps other documents: the pairs of those it dropped are deleted, or
    annotation would draw them and a claim would end up with more than its
    ``max_documents_per_claim`` pairs. A pair annotation has touched is never deleted (its labels
    would point at nothing). A pair stored before keeps its ``created_at``; its rank, similarity
    and reason are those of the new ranking.
    """
    params = {"claim_ids": list(claim_ids), "pair_ids": [r["pair_id"] for r in rows]}
    with wh.transaction():
        wh.execute(load_sql("retrieval_delete_unannotated_pairs"), params)
        wh.insert_rows("claim_article_pairs", rows, on_conflict="update", update_columns=["rank", "similarity", "reason"])
        return wh.query(load_sql("retrieval_pairs_not_kept"), params)
