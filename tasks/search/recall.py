"""Retrieval recall: how many of a claim's known related articles its documents include.

Measured at ``k`` documents per claim for each query kind alone (its top ``k`` hits) and for
the method's final choice ("all": the merged, filtered documents). A kind's hits are those of the
claim's current queries from the backend whose search gave its documents
(:func:`warehouse.retrieval.hits_by_kind`), so that each row measures one search. Recall is
micro-averaged (found / relevant over all claims) and macro-averaged (mean per-claim recall). On
the demo world the related articles are those with the claim's ``topic_id``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from arastance.base.urls import UrlError, canonicalize_url

ALL = "all"


class TopicWorld(Protocol):
    """What recall needs of the snapshot world (``snapshots.world.World`` offers it)."""

    articles: Any

    def topic_of_post(self, site: str, path: str) -> str | None: ...
    def topic_of_headline(self, path: str) -> str | None: ...


def _canonical(url: str) -> str:
    try:
        return canonicalize_url(url)
    except UrlError:
        return url


def relevant_by_claim(claims: Iterable[Mapping[str, Any]], world: TopicWorld) -> dict[str, set[str]]:
    """Canonical URLs of the related articles of each claim whose topic the world knows."""
    by_topic: dict[str, set[str]] = defaultdict(set)
    for article in world.articles:
        if article.topic_id:
            by_topic[article.topic_id].add(_canonical(article.url))
    out = {}
    for claim in claims:
        if claim["source_id"] == "reuters":
            topic = world.topic_of_headline(claim["url"])
        else:
            topic = world.topic_of_post(claim["source_id"], claim["url"])
        if topic and by_topic.get(topic):
            out[claim["claim_id"]] = by_topic[topic]
    return out


def retrieved_by_kind(queried: Iterable[Mapping[str, Any]], hits: Iterable[Mapping[str, Any]],
                      kept: Mapping[str, list[str]], k: int) -> dict[str, dict[str, list[str]]]:
    """kind -> claim -> its top ``k`` canonical URLs; ``all`` holds the kept documents.

    ``queried`` lists every (claim_id, kind) searched, so a query that found nothing counts as
    a miss rather than disappearing from the table.
    """
    ranked: dict[str, dict[str, list[tuple[int, str]]]] = defaultdict(lambda: defaultdict(list))
    searched: set[str] = set()
    for row in queried:
        ranked[row["kind"]].setdefault(row["claim_id"], [])
        searched.add(row["claim_id"])
    for hit in hits:
        ranked[hit["kind"]][hit["claim_id"]].append((hit["rank"], _canonical(hit["url"])))
    out: dict[str, dict[str, list[str]]] = {}
    for kind, claims in ranked.items():
        out[kind] = {}
        for claim_id, pairs in claims.items():
            urls: list[str] = []
            for _, url in sorted(pairs):
                if url not in urls:
                    urls.append(url)
            out[kind][claim_id] = urls[:k]
    out[ALL] = {claim_id: list(kept.get(claim_id, []))[:k] for claim_id in searched}
    return out


def recall_table(relevant: Mapping[str, set[str]], retrieved: Mapping[str, Mapping[str, list[str]]]) -> list[dict[str, Any]]:
    """One row per query kind (and ``all``): claims, relevant, found, micro and macro recall.

    Only claims that were searched count (a kind a claim never had, e.g. entity queries of a
    true claim, is not held against it); claims with no relevant article are left out.
    """
    rows = []
    for kind, by_claim in sorted(retrieved.items(), key=lambda kv: (kv[0] == ALL, kv[0])):
        claims = [c for c in by_claim if relevant.get(c)]
        if not claims:
            continue
        found = [len(relevant[c] & set(by_claim[c])) for c in claims]
        total = sum(len(relevant[c]) for c in claims)
        rows.append({
            "kind": kind, "claims": len(claims), "relevant": total, "found": sum(found),
            "recall_micro": round(sum(found) / total, 3),
            "recall_macro": round(sum(f / len(relevant[c]) for f, c in zip(found, claims)) / len(claims), 3),
        })
    return rows
