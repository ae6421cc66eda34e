"""Which of a claim's search hits become its documents (the method's filter, with reasons).

A claim's queries return overlapping hits. Their union (one candidate per canonical URL) is
kept whole when it has at most ``limit`` documents. Otherwise only documents from news
sources stay, ranked by TF-IDF cosine similarity to the claim, and the top ``limit`` are kept.
Every candidate gets a stored decision and reason, so the dataset's coverage can be audited.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from arastance.base.arabic import tokenize
from arastance.base.ids import stable_id
from arastance.base.urls import UrlError, canonicalize_url, domain_of
from tasks.search.base import SearchResult

Reason = Literal["within_limit", "news_domain_top_k", "not_news_domain", "below_top_k", "invalid_url"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result found by one of the claim's queries."""

    query_kind: str
    result: SearchResult


@dataclass(slots=True)
class Candidate:
    """A distinct document (by canonical URL) among a claim's hits."""

    url: str
    canonical_url: str
    domain: str | None
    title: str | None
    snippet: str | None
    published_date: date | None
    best_rank: int
    query_kinds: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(t for t in (self.title, self.snippet) if t)


@dataclass(frozen=True, slots=True)
class Decision:
    candidate: Candidate
    kept: bool
    reason: Reason
    rank: int | None
    similarity: float | None


def merge_hits(hits: Iterable[Hit]) -> list[Candidate]:
    """One candidate per canonical URL, with the best rank and every query kind that found it."""
    merged: dict[str, Candidate] = {}
    for hit in hits:
        res = hit.result
        try:
            canonical, domain = canonicalize_url(res.url), domain_of(res.url)
        except UrlError:
            canonical, domain = res.url, None
        cand = merged.get(canonical)
        if cand is None:
            merged[canonical] = Candidate(res.url, canonical, domain, res.title, res.snippet, res.published_date,
                                          res.rank, [hit.query_kind])
            continue
        if hit.query_kind not in cand.query_kinds:
            cand.query_kinds.append(hit.query_kind)
        if res.rank < cand.best_rank:
            cand.best_rank = res.rank
        cand.title = cand.title or res.title
        cand.snippet = cand.snippet or res.snippet
        cand.published_date = cand.published_date or res.published_date
    return sorted(merged.values(), key=lambda c: c.best_rank)


def is_news_domain(domain: str | None, news_domains: Iterable[str]) -> bool:
    """True when ``domain`` is one of ``news_domains`` or a sub-domain of one."""
    if not domain:
        return False
    domain = domain.lower()
    return any(domain == d or domain.endswith("." + d) for d in (n.lower().strip(".") for n in news_domains))


def similarities(claim_text: str, texts: Sequence[str]) -> list[float]:
    """TF-IDF cosine similarity of each text to the claim, over normalised Arabic tokens."""
    if not texts:
        return []
    vectorizer = TfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None)
    try:
        matrix = vectorizer.fit_transform([claim_text, *texts])
    except ValueError:  # no token anywhere: nothing is similar
        return [0.0] * len(texts)
    return [float(x) for x in linear_kernel(matrix[0], matrix[1:]).ravel()]


def select_documents(claim_text: str, candidates: Sequence[Candidate], *, news_domains: Iterable[str],
                     limit: int) -> list[Decision]:
    """Keep at most ``limit`` candidates by the method's rule; a decision for every candidate."""
    news_domains = list(news_domains)
    decisions: list[Decision] = []
    valid = []
    for cand in candidates:
        if cand.domain is None:
            decisions.append(Decision(cand, False, "invalid_url", None, None))
        else:
            valid.append(cand)
    sims = dict(zip((c.canonical_url for c in valid), similarities(claim_text, [c.text for c in valid])))
    if len(valid) <= limit:
        pool, reason = valid, "within_limit"
    else:
        pool, reason = [c for c in valid if is_news_domain(c.domain, news_domains)], "news_domain_top_k"
        decisions += [Decision(c, False, "not_news_domain", None, sims[c.canonical_url])
                      for c in valid if not is_news_domain(c.domain, news_domains)]
    ranked = sorted(pool, key=lambda c: (-sims[c.canonical_url], c.best_rank))
    for position, cand in enumerate(ranked, 1):
        if position <= limit:
            decisions.append(Decision(cand, True, reason, position, sims[cand.canonical_url]))
        else:
            decisions.append(Decision(cand, False, "below_top_k", None, sims[cand.canonical_url]))
    return decisions


def hits_of(queries: Sequence[Any], results: Mapping[str, Sequence[SearchResult]]) -> list[Hit]:
    """Every result of every query, once per query kind the query stands for."""
    return [Hit(kind, r) for q in queries for r in results.get(q.cache_key, []) for kind in q.kinds]


def hit_rows(queries: Sequence[Any], results: Mapping[str, Sequence[SearchResult]], backend: str,
             retrieved_at: datetime) -> list[dict[str, Any]]:
    """``search_hits`` rows: one per (query, URL)."""
    return [
        {"hit_id": stable_id(q.query_id, backend, r.url), "query_id": q.query_id, "backend": backend, "rank": r.rank,
         "url": r.url, "title": r.title, "snippet": r.snippet, "published_date": r.published_date,
         "retrieved_at": retrieved_at}
        for q in queries for r in results.get(q.cache_key, [])
    ]


def decision_rows(claim_id: str, decisions: Sequence[Decision], decided_at: datetime) -> list[dict[str, Any]]:
    """``document_decisions`` rows: why each candidate was kept or dropped."""
    return [
        {"claim_id": claim_id, "canonical_url": d.candidate.canonical_url, "url": d.candidate.url,
         "domain": d.candidate.domain, "decision": "kept" if d.kept else "dropped", "reason": d.reason,
         "rank": d.rank, "similarity": d.similarity, "best_rank": d.candidate.best_rank,
         "query_kinds": ",".join(d.candidate.query_kinds), "decided_at": decided_at}
        for d in decisions
    ]


def pair_rows(kept: Sequence[Mapping[str, Any]], created_at: datetime) -> list[dict[str, Any]]:
    """``claim_article_pairs`` rows for kept documents whose article was fetched and is Arabic."""
    return [
        {"pair_id": stable_id(k["claim_id"], k["article_id"]), "claim_id": k["claim_id"], "article_id": k["article_id"],
         "rank": k["rank"], "similarity": k["similarity"], "reason": k["reason"], "created_at": created_at}
        for k in kept if k["fetch_status"] == "ok"
    ]
