"""Search backends compared on the same claims, from what each run stored.

A run with ``arastance retrieve --backend X`` stores its hits per backend (and caches every
query), so after runs with several backends each one's documents can be rebuilt with the
method's own merge and filter (:func:`tasks.documents.select_documents`) and compared, without
sending a query. Only claims every compared backend has searched (each of their current queries,
those of the claim's current query set, is in that backend's cache) count, with the hits of those
queries (a restated claim's earlier queries are no longer searched). Per backend: documents kept,
the share dated inside the claim's window (the extracted article date, else the engine's; undated
ones are counted apart), the share from news domains; per pair of backends: the overlap of their
documents (mean Jaccard per claim).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import combinations
from statistics import mean
from typing import Any

from tasks.date_window import hull
from tasks.documents import Candidate, Hit, is_news_domain, merge_hits, select_documents
from tasks.search.base import DateWindow, SearchResult
from tasks.search.cache import cache_key


@dataclass
class ClaimQueries:
    text: str
    queries: list[tuple[str, DateWindow | None]] = field(default_factory=list)

    @property
    def window(self) -> DateWindow | None:
        return hull(w for _, w in self.queries if w)


def claims_of(rows: Iterable[Mapping[str, Any]]) -> dict[str, ClaimQueries]:
    """Claims and their queries from ``claim_queries`` rows."""
    out: dict[str, ClaimQueries] = {}
    for r in rows:
        claim = out.setdefault(r["claim_id"], ClaimQueries(r["claim_text"]))
        claim.queries.append((r["text"], DateWindow.of(r["window_start"], r["window_end"])))
    return out


def answered(cache_rows: Iterable[Mapping[str, Any]]) -> set[str]:
    """The cache keys, under their backend's name, of the queries answered (``cache_keys`` rows):
    an answer of any build of the local index counts, as its hits do."""
    return {cache_key(r["backend"], r["query_text"], DateWindow.of(r["window_start"], r["window_end"]), r["num"])
            for r in cache_rows}


def searched_by(claims: Mapping[str, ClaimQueries], cached: set[str], backend: str, num: int) -> set[str]:
    """Claims whose every query this backend has answered (found nothing counts as answered)."""
    return {c for c, q in claims.items()
            if q.queries and all(cache_key(backend, text, w, num) in cached for text, w in q.queries)}


def kept_documents(hits: Iterable[Mapping[str, Any]], claims: Mapping[str, ClaimQueries], only: set[str],
                   *, news_domains: Sequence[str], limit: int) -> dict[str, list[Candidate]]:
    """One backend's kept documents per claim, rebuilt from its stored hits."""
    by_claim: dict[str, list[Hit]] = defaultdict(list)
    for h in hits:
        if h["claim_id"] in only:
            result = SearchResult(h["url"], h["title"], h["snippet"], h["published_date"], h["rank"])
            by_claim[h["claim_id"]] += [Hit(kind, result) for kind in h["kinds"]]
    return {claim_id: [d.candidate for d in select_documents(claims[claim_id].text, merge_hits(by_claim.get(claim_id, [])),
                                                             news_domains=news_domains, limit=limit) if d.kept]
            for claim_id in only}


def backend_rows(kept: Mapping[str, Mapping[str, list[Candidate]]], claims: Mapping[str, ClaimQueries],
                 dates: Mapping[str, date], news_domains: Sequence[str]) -> list[dict[str, Any]]:
    """Per backend: claims, documents kept, share inside the claim's window, undated, news."""
    rows = []
    for backend, per_claim in kept.items():
        docs = [(c, d) for c, ds in per_claim.items() for d in ds]
        inside = outside = undated = 0
        for claim_id, d in docs:
            day = dates.get(d.canonical_url) or d.published_date
            window = claims[claim_id].window
            if day is None:
                undated += 1
            elif window is None or window.contains(day):
                inside += 1
            else:
                outside += 1
        news = sum(is_news_domain(d.domain, news_domains) for _, d in docs)
        dated = inside + outside
        rows.append({
            "backend": backend, "claims": len(per_claim), "documents": len(docs),
            "per_claim": round(len(docs) / len(per_claim), 2) if per_claim else 0.0,
            "inside_window": round(inside / dated, 3) if dated else None,
            "undated": round(undated / len(docs), 3) if docs else None,
            "news_domains": round(news / len(docs), 3) if docs else None,
        })
    return rows


def overlap_rows(kept: Mapping[str, Mapping[str, list[Candidate]]]) -> list[dict[str, Any]]:
    """Per pair of backends: shared documents and the mean per-claim Jaccard overlap."""
    rows = []
    for a, b in combinations(sorted(kept), 2):
        shared = 0
        jaccards = []
        for claim_id in kept[a].keys() & kept[b].keys():
            ua = {d.canonical_url for d in kept[a][claim_id]}
            ub = {d.canonical_url for d in kept[b][claim_id]}
            shared += len(ua & ub)
            if ua or ub:
                jaccards.append(len(ua & ub) / len(ua | ub))
        rows.append({"backends": f"{a} & {b}", "shared_documents": shared,
                     "mean_jaccard": round(mean(jaccards), 3) if jaccards else None})
    return rows


def compare_backends(hits: Sequence[Mapping[str, Any]], query_rows: Iterable[Mapping[str, Any]],
                     cache_rows: Iterable[Mapping[str, Any]], dates: Mapping[str, date], backends: Sequence[str] | None,
                     *, num: int, news_domains: Sequence[str],
                     limit: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """``(per-backend rows, overlap rows, claims compared)`` over the claims all backends searched
    (``hits`` and ``query_rows`` of the claims' current queries, ``cache_rows`` as
    :func:`warehouse.backend_comparison.cache_keys` reads them)."""
    claims = claims_of(query_rows)
    cached = answered(cache_rows)
    backends = sorted(set(backends or {h["backend"] for h in hits}))
    common = set(claims)
    for backend in backends:
        common &= searched_by(claims, cached, backend, num)
    kept = {b: kept_documents((h for h in hits if h["backend"] == b), claims, common, news_domains=news_domains,
                              limit=limit) for b in backends}
    return backend_rows(kept, claims, dates, news_domains), overlap_rows(kept), len(common)
