"""Recall of the known related articles, per query kind and for the final documents."""

from __future__ import annotations

from dataclasses import dataclass

from tasks.search.recall import ALL, recall_table, relevant_by_claim, retrieved_by_kind


@dataclass
class Art:
    url: str
    topic_id: str | None


class FakeWorld:
    articles = [Art("https://www.a.com/1/", "rum-1"), Art("https://b.com/2", "rum-1"), Art("https://c.com/3", "rum-2"),
                Art("https://d.com/4", "reu-1"), Art("https://e.com/5", None)]

    def topic_of_post(self, site: str, path: str) -> str | None:
        return {("dabegad", "https://dabegad.example/p1/"): "rum-1", ("norumors", "https://n.example/p2/"): "rum-2"}.get((site, path))

    def topic_of_headline(self, path: str) -> str | None:
        return "reu-1" if path.endswith("/h1/") else None


CLAIMS = [
    {"claim_id": "c1", "source_id": "dabegad", "url": "https://dabegad.example/p1/", "veracity": "false"},
    {"claim_id": "c2", "source_id": "norumors", "url": "https://n.example/p2/", "veracity": "false"},
    {"claim_id": "t1", "source_id": "reuters", "url": "https://reuters.example/h1/", "veracity": "true"},
    {"claim_id": "x", "source_id": "dabegad", "url": "https://dabegad.example/unknown/", "veracity": "false"},
]


def test_relevant_articles_follow_the_claims_topic_with_canonical_urls() -> None:
    relevant = relevant_by_claim(CLAIMS, FakeWorld())
    assert relevant == {"c1": {"https://a.com/1", "https://b.com/2"}, "c2": {"https://c.com/3"}, "t1": {"https://d.com/4"}}


def test_recall_per_kind_counts_claims_whose_query_found_nothing() -> None:
    relevant = relevant_by_claim(CLAIMS, FakeWorld())
    queried = [{"claim_id": c, "kind": k} for c in ("c1", "c2") for k in ("claim", "claim_date")] + \
              [{"claim_id": "t1", "kind": "claim"}]
    hits = [
        {"claim_id": "c1", "kind": "claim", "url": "https://a.com/1", "rank": 2},
        {"claim_id": "c1", "kind": "claim", "url": "https://x.com/9", "rank": 1},
        {"claim_id": "c1", "kind": "claim_date", "url": "https://b.com/2/", "rank": 1},
        {"claim_id": "c1", "kind": "claim_date", "url": "https://a.com/1?utm_source=x", "rank": 2},
        {"claim_id": "t1", "kind": "claim", "url": "https://d.com/4", "rank": 1},
    ]
    kept = {"c1": ["https://a.com/1"], "t1": ["https://d.com/4"]}
    retrieved = retrieved_by_kind(queried, hits, kept, k=1)
    assert retrieved["claim"] == {"c1": ["https://x.com/9"], "c2": [], "t1": ["https://d.com/4"]}
    assert retrieved[ALL] == {"c1": ["https://a.com/1"], "c2": [], "t1": ["https://d.com/4"]}
    table = {row["kind"]: row for row in recall_table(relevant, retrieved)}
    assert list(table) == ["claim", "claim_date", ALL]
    assert table["claim"] == {"kind": "claim", "claims": 3, "relevant": 4, "found": 1, "recall_micro": 0.25,
                              "recall_macro": 0.333}
    assert (table["claim_date"]["claims"], table["claim_date"]["found"]) == (2, 1)
    assert (table[ALL]["found"], table[ALL]["recall_micro"], table[ALL]["recall_macro"]) == (2, 0.5, 0.5)
    at_two = {row["kind"]: row for row in recall_table(relevant, retrieved_by_kind(queried, hits, kept, k=2))}
    assert at_two["claim_date"]["found"] == 2
