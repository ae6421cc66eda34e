"""Which of a claim's search hits become its documents (the method's filter, with reasons).

A claim's queries return overlapping hits. Their union (one candidate per canonical URL) is
kept whole when it has at most ``limit`` documents. Otherwise only documents from news
sources stay. At search time they are ordered by TF-IDF cosine similarity of title and snippet
to the claim (:func:`select_documents`), which is the order they are fetched in. Once fetched,
the method's ranking is done on the article text itself (:func:`rank_fetched`): the top
``limit`` fetched Arabic articles are kept, leaving out those dated outside their date window and
second copies of one text; a document whose fetch failed, dated outside its window or a copy is
replaced by the next candidate (:func:`documents_to_fetch`), so a claim reaches ``limit``
documents whenever enough candidates exist. Every candidate gets a stored decision and reason,
so the dataset's coverage can be audited.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import linear_kernel

from arastance.base.arabic import normalize, tokenize
from arastance.base.ids import content_hash, stable_id
from arastance.base.urls import UrlError, canonicalize_url, domain_of
from arastance.config.search import news_domain
from tasks.search.base import SearchResult

if TYPE_CHECKING:  # tasks.date_window reads the warehouse; the ranking here reads only its verdicts
    from tasks.date_window import DateVerdict

Reason = Literal["within_limit", "news_domain_top_k", "not_news_domain", "below_top_k", "invalid_url",
                 "article_text_top_k", "fetch_failed", "not_fetched", "outside_date_window", "duplicate_text"]
# Decisions of documents in the ranked pool (news-filtered when needed); the others never compete.
# Every ranking on article text decides each of them again, those it left out included.
POOL_REASONS: tuple[str, ...] = ("within_limit", "news_domain_top_k", "below_top_k", "article_text_top_k",
                                 "fetch_failed", "not_fetched", "outside_date_window", "duplicate_text")


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
    """True when ``domain`` is one of ``news_domains`` or a sub-domain of one.

    Each entry is read as candidate domains are written (:func:`arastance.config.search.news_domain`):
    a ``www.youm7.com`` entry matched no candidate, whose domain is ``youm7.com``.
    """
    if not domain:
        return False
    domain = domain.lower()
    return any(domain == d or domain.endswith("." + d) for d in map(news_domain, news_domains))


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
        news = {c.canonical_url for c in valid if is_news_domain(c.domain, news_domains)}
        pool, reason = [c for c in valid if c.canonical_url in news], "news_domain_top_k"
        decisions += [Decision(c, False, "not_news_domain", None, sims[c.canonical_url])
                      for c in valid if c.canonical_url not in news]
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


@dataclass(frozen=True, slots=True)
class PoolDocument:
    """A candidate of a claim's ranked pool with what its fetch gave (``fetch_status`` None: not yet)."""

    claim_id: str
    canonical_url: str
    url: str
    domain: str | None
    best_rank: int
    query_kinds: str
    fetch_status: str | None = None
    http_status: int | None = None
    title: str | None = None
    text: str | None = None
    claim_date: date | None = None
    article_date: date | None = None  # the fetched article's extracted publication date
    engine_date: date | None = None  # the earliest date a search engine showed for the URL
    date_check: DateVerdict | None = None  # the fetched article against its date window (None: not checked)

    @property
    def outside_window(self) -> bool:
        """Dated outside its date window: dropped, whatever its similarity."""
        return self.date_check is not None and self.date_check.date_check == "outside"

    @property
    def usable(self) -> bool:
        """Fetched, Arabic, and not dated outside its window: an article that can be kept."""
        return self.fetch_status == "ok" and not self.outside_window


def is_passing_failure(doc: PoolDocument) -> bool:
    """A failed fetch that may succeed later (5xx, timeout, no answer); a 404 is final."""
    return doc.fetch_status == "failed" and (doc.http_status is None or doc.http_status >= 500)


# The shortest normalised text that can make two documents copies of each other. Shorter (or no)
# text says too little to tell two articles apart (a teaser, a caption, an extraction that found
# next to nothing): such a document is a copy of none. About one sentence, below the default
# search.min_text_chars (80), so that every article fetched as non-empty by default has a key.
MIN_DUPLICATE_TEXT_CHARS = 50


def text_key(doc: PoolDocument) -> str:
    """The key two copies of one article share: the hash of its normalised title and extracted
    text together (its canonical URL when the text is shorter than ``MIN_DUPLICATE_TEXT_CHARS``).
    The same story under ``http://`` and ``https://``, or under two paths of one site, has two
    canonical URLs but one title and text; two articles whose extraction fell back to the same
    boilerplate (a site footer, a cookie notice) keep their own titles, so neither is a copy."""
    text = normalize(doc.text)
    if len(text) < MIN_DUPLICATE_TEXT_CHARS:
        return doc.canonical_url
    return content_hash(f"{normalize(doc.title)}\n{text}")


def documents_to_fetch(docs: Sequence[PoolDocument], *, limit: int, pool: int, attempted: set[str]) -> list[PoolDocument]:
    """The next documents of one claim to fetch, ``docs`` in fetch order.

    The first ``pool`` candidates (every one when ``pool`` is 0, at least ``limit``) are fetched
    so that the ranking on article text has something to choose from; beyond them, each document
    that is not usable (fetch failed, not Arabic, empty, dated outside its window, the text of
    another one) is replaced by the next candidate until ``limit`` usable articles are in hand or
    the candidates run out. A document already tried in this run (``attempted``) is not tried
    again; one that failed for a passing reason in an earlier run is.
    """
    reach = len(docs) if pool == 0 else max(pool, limit)
    todo: list[PoolDocument] = []
    usable = 0  # articles in hand, or being fetched now
    texts: set[str] = set()  # the text keys in hand: a second copy of one text adds no document
    for position, doc in enumerate(docs):
        if position >= reach and usable >= limit:
            break
        if doc.usable:
            if (key := text_key(doc)) not in texts:
                usable += 1
                texts.add(key)
        elif doc.canonical_url not in attempted and (doc.fetch_status is None or is_passing_failure(doc)):
            todo.append(doc)
            usable += 1
    return todo


# The date check's columns of document_decisions, as DateVerdict names them.
_DATE_CHECK_COLUMNS = ("date_check", "published_date", "date_source", "window_start", "window_end")


def rank_fetched(claim_text: str, docs: Sequence[PoolDocument], *, limit: int, decided_at: datetime) -> list[dict[str, Any]]:
    """``document_decisions`` rows of one claim's pool after fetching: the fetched Arabic articles
    ranked by TF-IDF similarity of their title and text to the claim, the top ``limit`` kept.

    Articles dated outside their window (``date_check``, see :mod:`tasks.date_window`) and copies
    of an article ranked higher (same :func:`text_key`) do not compete: they are dropped with the
    reason ``outside_date_window`` or ``duplicate_text`` and the next articles move up, so a claim
    keeps ``limit`` documents whenever as many eligible ones were fetched. Each row carries the
    document's date check (date, its source, the window), NULL when it was not checked.
    """
    fetched = [d for d in docs if d.fetch_status == "ok"]
    sims = similarities(claim_text, [" ".join(t for t in (d.title, d.text) if t) for d in fetched])
    ranked = sorted(zip(fetched, sims), key=lambda ds: (-ds[1], ds[0].best_rank, ds[0].canonical_url))
    rows: list[dict[str, Any]] = []

    def row(doc: PoolDocument, decision: str, reason: Reason, rank: int | None, similarity: float | None) -> None:
        check = doc.date_check
        rows.append({"claim_id": doc.claim_id, "canonical_url": doc.canonical_url, "url": doc.url, "domain": doc.domain,
                     "decision": decision, "reason": reason, "rank": rank, "similarity": similarity,
                     "best_rank": doc.best_rank, "query_kinds": doc.query_kinds, "decided_at": decided_at,
                     **{c: getattr(check, c) if check else None for c in _DATE_CHECK_COLUMNS}})

    texts: set[str] = set()  # the text keys of the articles ranked so far
    position = 0
    for doc, sim in ranked:
        if doc.outside_window:
            row(doc, "dropped", "outside_date_window", None, sim)
        elif (key := text_key(doc)) in texts:
            row(doc, "dropped", "duplicate_text", None, sim)
        else:
            texts.add(key)
            position += 1
            if position <= limit:
                row(doc, "kept", "article_text_top_k", position, sim)
            else:
                row(doc, "dropped", "below_top_k", None, sim)
    for doc in docs:
        if doc.fetch_status is None:
            row(doc, "dropped", "not_fetched", None, None)
        elif doc.fetch_status != "ok":
            row(doc, "dropped", "fetch_failed", None, None)
    return rows
