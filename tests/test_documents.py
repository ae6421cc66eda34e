"""Merging a claim's hits and the method's document filter, with stored reasons."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from tasks.date_window import verdict
from arastance.config.search import SearchSettings
from tasks.documents import (
    MIN_DUPLICATE_TEXT_CHARS,
    Hit,
    PoolDocument,
    documents_to_fetch,
    is_news_domain,
    merge_hits,
    rank_fetched,
    select_documents,
    text_key,
)
from tasks.search.base import DateWindow, SearchResult

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
             _hit("vp_date", "not a url", 31, "إغلاق"),
             _hit("vp_date", "https://www.youm7.com/s/9\nhttps://b.example/octet", 32, "إغلاق")]
    decisions = select_documents(CLAIM, merge_hits(hits), news_domains=NEWS, limit=3)
    kept = [d for d in decisions if d.kept]
    assert [d.candidate.domain for d in kept] == ["sub.aljazeera.net", "youm7.com", "youm7.com"]
    assert [d.rank for d in kept] == [1, 2, 3] and {d.reason for d in kept} == {"news_domain_top_k"}
    assert kept[1].similarity >= kept[2].similarity
    reasons = {d.candidate.url: d.reason for d in decisions if not d.kept}
    assert [u for u, r in reasons.items() if r == "not_news_domain"] == [f"https://forum{i}.example.com/t/{i}" for i in range(1, 5)]
    assert list(reasons.values()).count("below_top_k") == 1
    assert reasons["not a url"] == reasons["https://www.youm7.com/s/9\nhttps://b.example/octet"] == "invalid_url"
    assert len(decisions) == 10


def test_news_domain_matching_includes_subdomains_only() -> None:
    assert is_news_domain("arabic.cnn.com", ["cnn.com"]) and is_news_domain("CNN.com", ["cnn.com"])
    assert not is_news_domain("notcnn.com", ["cnn.com"]) and not is_news_domain(None, ["cnn.com"])


def test_a_news_domain_written_with_www_matches_the_site() -> None:
    # candidate domains have no www. (domain_of): a "www.youm7.com" entry matched none of them
    assert is_news_domain("youm7.com", ["www.youm7.com"]) and is_news_domain("arabic.cnn.com", ["WWW.CNN.com."])
    hits = [_hit("claim", f"https://www.youm7.com/story/{i}", i) for i in range(1, 4)]
    hits += [_hit("claim", f"https://blog{i}.example.org/p", 10 + i) for i in range(3)]
    decisions = select_documents(CLAIM, merge_hits(hits), news_domains=["www.youm7.com"], limit=3)
    assert sorted(d.candidate.domain for d in decisions if d.kept) == ["youm7.com"] * 3


def _doc(n: int, status: str | None = None, http: int | None = None, text: str = "") -> PoolDocument:
    url = f"https://youm7.com/{n}"
    return PoolDocument("c", url, url, "youm7.com", n, "claim", status, http, f"t{n}" if status == "ok" else None,
                        text or None)


def test_the_first_pool_is_fetched_and_each_unusable_document_is_replaced_by_the_next() -> None:
    docs = [_doc(i) for i in range(1, 31)]
    first = documents_to_fetch(docs, limit=10, pool=20, attempted=set())
    assert [d.best_rank for d in first] == list(range(1, 21))  # a pool to rank on article text
    # after the first wave: 3 not Arabic, 1 gone for good, 1 timed out, the rest fine
    bad = {2: ("not_arabic", 200), 5: ("failed", 404), 7: ("empty", 200), 9: ("failed", None), 11: ("not_arabic", 200)}
    fetched = [_doc(i, *bad.get(i, ("ok", 200))) for i in range(1, 21)] + docs[20:]
    attempted = {d.canonical_url for d in first}
    # 15 usable of 20: at least 10, nothing more to fetch (the timeout was tried in this run)
    assert documents_to_fetch(fetched, limit=10, pool=20, attempted=attempted) == []
    # with only the first 12 candidates fetched and 5 of them unusable, the next 3 replace them
    few = fetched[:12] + docs[12:]
    nxt = documents_to_fetch(few, limit=10, pool=10, attempted={d.canonical_url for d in few[:12]})
    assert [d.best_rank for d in nxt] == [13, 14, 15]
    # pool 0 = every candidate, as the method; a timeout from an earlier run is tried again
    assert len(documents_to_fetch(docs, limit=10, pool=0, attempted=set())) == 30
    assert documents_to_fetch([_doc(1, "failed", 503), _doc(2, "failed", 404)], limit=10, pool=20,
                              attempted=set()) == [_doc(1, "failed", 503)]


def test_fetched_articles_are_ranked_on_their_text_not_their_snippet() -> None:
    claim = "وزارة الصحة تعلن إغلاق المدارس بسبب الإنفلونزا"
    docs = [
        _doc(1, "ok", text="مباراة كرة القدم انتهت بالتعادل في الملعب"),           # best search rank, off topic
        _doc(2, "ok", text="وزارة الصحة تنفي إغلاق المدارس بسبب الإنفلونزا وتؤكد استمرار الدراسة"),
        _doc(3, "not_arabic", 200),
        _doc(4, "ok", text="الإنفلونزا تنتشر والمدارس مفتوحة"),
        _doc(5),                                                                # never fetched
    ]
    rows = {r["canonical_url"][-1]: r for r in rank_fetched(claim, docs, limit=2, decided_at=datetime(2021, 1, 1))}
    assert (rows["2"]["decision"], rows["2"]["rank"], rows["2"]["reason"]) == ("kept", 1, "article_text_top_k")
    assert (rows["4"]["decision"], rows["4"]["rank"]) == ("kept", 2)
    assert (rows["1"]["decision"], rows["1"]["reason"]) == ("dropped", "below_top_k")
    assert rows["2"]["similarity"] > rows["4"]["similarity"] > rows["1"]["similarity"]
    assert (rows["3"]["reason"], rows["5"]["reason"]) == ("fetch_failed", "not_fetched")


WINDOW = DateWindow(date(2016, 3, 1), date(2016, 7, 1))


def _dated(doc: PoolDocument, day: date) -> PoolDocument:
    """``doc`` with its date window check (a date-restricted query found it)."""
    return replace(doc, article_date=day, date_check=verdict("c", doc.canonical_url, WINDOW, day, None))


def test_articles_dated_outside_the_window_leave_their_top_places_to_the_next_ones() -> None:
    # 12 fetched articles, the 3 most similar dated 2019: it was 7 documents kept (3 dropped after the
    # top-10 cut) while the 11th and 12th, inside the window, stayed below_top_k
    claim = "وزارة الصحة تنفي انتشار الوباء في المدارس"
    docs = [_dated(_doc(i, "ok", 200, text=" ".join([claim] * (12 - i) + [f"كلمة{i}"] * (i + 1))),
                   date(2019, 1, 1) if i < 3 else date(2016, 5, 1)) for i in range(12)]
    rows = {r["canonical_url"]: r for r in rank_fetched(claim, docs, limit=10, decided_at=datetime(2026, 1, 1))}
    kept = sorted((r["rank"], r["canonical_url"]) for r in rows.values() if r["decision"] == "kept")
    assert kept == [(n - 2, f"https://youm7.com/{n}") for n in range(3, 12)]  # all 9 in the window, ranked 1..9
    out = rows["https://youm7.com/0"]
    assert (out["decision"], out["reason"], out["rank"], out["date_check"]) == ("dropped", "outside_date_window", None,
                                                                                "outside")
    assert (out["published_date"], out["date_source"], out["window_start"], out["window_end"]) == (
        date(2019, 1, 1), "article", WINDOW.start, WINDOW.end)
    assert {r["reason"] for r in rows.values()} == {"article_text_top_k", "outside_date_window"}
    assert rows["https://youm7.com/5"]["date_check"] == "inside"


def test_a_second_copy_of_an_article_is_dropped_and_the_next_article_moves_up() -> None:
    # the same story under http:// and https:// has two canonical URLs: it was kept twice, at ranks 1 and 2
    claim = "وزارة الصحة تنفي انتشار الوباء في المدارس"
    story = "وزارة الصحة تنفي انتشار الوباء في المدارس وتؤكد استمرار الدراسة"
    docs = [PoolDocument("c", url, url, "youm7.com", n, "claim", "ok", 200, "الصحة تنفي", text)
            for n, (url, text) in enumerate([("http://youm7.com/story/1", story),
                                             ("https://youm7.com/story/1", f"  {story}\u200f "),  # the same, normalised
                                             ("https://youm7.com/story/2", "الوباء في المدارس: الوزارة تنفي")], 1)]
    rows = {r["canonical_url"]: r for r in rank_fetched(claim, docs, limit=2, decided_at=datetime(2026, 1, 1))}
    assert (rows["http://youm7.com/story/1"]["decision"], rows["http://youm7.com/story/1"]["rank"]) == ("kept", 1)
    copy = rows["https://youm7.com/story/1"]
    assert (copy["decision"], copy["reason"], copy["rank"]) == ("dropped", "duplicate_text", None)
    assert (rows["https://youm7.com/story/2"]["decision"], rows["https://youm7.com/story/2"]["rank"]) == ("kept", 2)


BOILERPLATE = ("جميع الحقوق محفوظة لموقع الأخبار العربية. يمنع نسخ أو إعادة نشر أي محتوى من هذا الموقع "
               "دون إذن مسبق من إدارة التحرير.")


def test_articles_sharing_only_boilerplate_text_are_not_copies() -> None:
    # the extraction fell back to the site's footer for two different stories: both were ranked on
    # their titles, and the second was dropped as duplicate_text
    docs = [PoolDocument("c", url, url, "site.com", n, "claim", "ok", 200, title, BOILERPLATE)
            for n, (url, title) in enumerate([("https://site.com/news/1", "وزارة الصحة تغلق المدارس في دبي"),
                                              ("https://site.com/news/2", "الحكومة تنفي إغلاق المدارس في دبي")], 1)]
    assert text_key(docs[0]) != text_key(docs[1])
    rows = rank_fetched("إغلاق المدارس في دبي", docs, limit=10, decided_at=datetime(2026, 1, 1))
    assert sorted((r["decision"], r["reason"]) for r in rows) == [("kept", "article_text_top_k")] * 2
    assert documents_to_fetch(docs + [_doc(3)], limit=2, pool=2, attempted=set()) == []  # two usable in hand


def test_a_short_or_empty_text_makes_no_copy() -> None:
    # under MIN_DUPLICATE_TEXT_CHARS (a caption, an empty extraction) the text says too little: even
    # under one title, two such documents are two articles; a long shared text under one title is one
    short = [PoolDocument("c", f"https://site.com/{n}", f"https://site.com/{n}", "site.com", n, "claim", "ok", 200,
                          "أخبار اليوم", text) for n, text in ((1, "صورة"), (2, "صورة"), (3, None), (4, ""))]
    assert len({text_key(d) for d in short}) == 4
    rows = rank_fetched("أخبار اليوم", short, limit=10, decided_at=datetime(2026, 1, 1))
    assert {r["reason"] for r in rows} == {"article_text_top_k"}
    assert MIN_DUPLICATE_TEXT_CHARS <= SearchSettings().min_text_chars  # every default non-empty article has a key
    long = [replace(d, text=BOILERPLATE) for d in short[:2]]
    assert text_key(long[0]) == text_key(long[1])

def test_an_article_outside_its_window_or_a_copy_is_replaced_by_the_next_candidate() -> None:
    # of the first 4 fetched, one is dated outside its window and one repeats another's text: two
    # usable articles, so the next two candidates are fetched (it was: none, 4 counted usable)
    third = "خبر ثالث عن إغلاق المدارس في القاهرة بسبب انتشار الإنفلونزا هذا الأسبوع"
    fetched = [_dated(_doc(1, "ok", 200, text="خبر أول"), date(2019, 1, 1)), _doc(2, "ok", 200, text="خبر ثان"),
               _doc(3, "ok", 200, text=third), replace(_doc(4, "ok", 200, text=third), title="t3")]
    docs = fetched + [_doc(i) for i in range(5, 9)]
    todo = documents_to_fetch(docs, limit=4, pool=4, attempted={d.canonical_url for d in fetched})
    assert [d.best_rank for d in todo] == [5, 6]
