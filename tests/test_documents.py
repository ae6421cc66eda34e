"""Merging a claim's hits and the method's document filter, with stored reasons."""

from __future__ import annotations

from datetime import date

from tasks.documents import Hit, is_news_domain, merge_hits, select_documents
from tasks.search.base import SearchResult

CLAIM = "وزارة الصحة تعلن إغلاق المدارس بسبب انتشار الإنفلونزا"
NEWS = ["youm7.com", "aljazeera.net"]


def _hit(kind: str, url: str, rank: int, title: str = "", snippet: str | None = None) -> Hit:
    return Hit(kind, SearchResult(url, title or None, snippet, date(2016, 5, 1), rank))


def test_same_url_from_several_queries_is_one_candidate_with_its_best_rank_and_kinds() -> None:
    hits = [
        _hit("claim", "https://www.youm7.com/story/1?utm_source=fb", 4, "إغلاق المدارس"),
        _hit("entities_date", "https://youm7.com/story/1/", 2, snippet="مقتطف"),
        _hit("vp_date", "https://m.youm7.com/story/1#top", 7),
        _hit("claim", "https://aljazeera.net/news/2", 1),
    ]
    merged = merge_hits(hits)
    assert [c.canonical_url for c in merged] == ["https://aljazeera.net/news/2", "https://youm7.com/story/1"]
    story = merged[1]
    assert story.best_rank == 2 and story.query_kinds == ["claim", "entities_date", "vp_date"]
    assert story.title == "إغلاق المدارس" and story.snippet == "مقتطف" and story.domain == "youm7.com"
    assert story.url == "https://www.youm7.com/story/1?utm_source=fb"


def test_empty_hits_give_no_documents() -> None:
    assert merge_hits([]) == []
    assert select_documents(CLAIM, [], news_domains=NEWS, limit=10) == []


def test_few_documents_are_all_kept_ranked_by_similarity() -> None:
    merged = merge_hits([
        _hit("claim", "https://blog.example.com/a", 1, "وصفة كعك العيد"),
        _hit("claim", "https://youm7.com/b", 2, "الصحة تنفي إغلاق المدارس بسبب الإنفلونزا"),
    ])
    decisions = select_documents(CLAIM, merged, news_domains=NEWS, limit=10)
    assert [(d.candidate.url, d.kept, d.reason, d.rank) for d in decisions] == [
        ("https://youm7.com/b", True, "within_limit", 1),
        ("https://blog.example.com/a", True, "within_limit", 2),
    ]
    assert decisions[0].similarity > 0.3 and decisions[1].similarity == 0.0


def test_over_the_limit_only_news_domains_stay_and_the_most_similar_are_kept() -> None:
    hits = [_hit("claim", f"https://forum{i}.example.com/t/{i}", i, "إغلاق المدارس بسبب الإنفلونزا") for i in range(1, 5)]
    hits += [_hit("claim_date", f"https://www.youm7.com/s/{i}", 10 + i, "خبر" + " الإنفلونزا" * (i % 3)) for i in range(1, 4)]
    hits += [_hit("vp_date", "https://sub.aljazeera.net/x", 30, "الصحة تعلن إغلاق المدارس بسبب الإنفلونزا"),
             _hit("vp_date", "not a url", 31, "إغلاق")]
    decisions = select_documents(CLAIM, merge_hits(hits), news_domains=NEWS, limit=3)
    kept = [d for d in decisions if d.kept]
    assert [d.candidate.domain for d in kept] == ["sub.aljazeera.net", "youm7.com", "youm7.com"]
    assert [d.rank for d in kept] == [1, 2, 3] and {d.reason for d in kept} == {"news_domain_top_k"}
    assert kept[1].similarity >= kept[2].similarity
    reasons = {d.candidate.url: d.reason for d in decisions if not d.kept}
    assert [u for u, r in reasons.items() if r == "not_news_domain"] == [f"https://forum{i}.example.com/t/{i}" for i in range(1, 5)]
    assert list(reasons.values()).count("below_top_k") == 1
    assert reasons["not a url"] == "invalid_url"
    assert len(decisions) == 9


def test_news_domain_matching_includes_subdomains_only() -> None:
    assert is_news_domain("arabic.cnn.com", ["cnn.com"]) and is_news_domain("CNN.com", ["cnn.com"])
    assert not is_news_domain("notcnn.com", ["cnn.com"]) and not is_news_domain(None, ["cnn.com"])
