"""The date window enforced on kept documents: rules, storage, and a real retrieval run against a
SearXNG server that ignores dates (it has no date range) over an offline mirror."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pytest
from helpers_search import ApiServer, Reply, SiteServer, article_page, false_claim_row, write_mirror_page
from prefect.testing.utilities import prefect_test_harness

from arastance.config import load_settings
from arastance.config.search import SearchSettings
from tasks.date_window import date_verdicts, document_window, enforce_date_window
from tasks.queries import QueryClaim, build_queries_for, query_inputs
from tasks.retrieval import create_pairs, rank_fetched_articles
from tasks.search.base import DateWindow
from warehouse import Warehouse, open_warehouse
from warehouse.date_window import kept_documents_with_dates, query_windows
from warehouse.retrieval_queries import claims_with_current_queries, store_queries

W = DateWindow(date(2016, 3, 10), date(2016, 7, 10))
QUERIES = [{"claim_id": "c", "kinds": ["claim"], "window_start": None, "window_end": None},
           {"claim_id": "c", "kinds": ["claim_date", "vp_date"], "window_start": W.start, "window_end": W.end}]


def _doc(url: str, kinds: str, article: date | None, engine: date | None = None) -> dict:
    return {"claim_id": "c", "canonical_url": url, "query_kinds": kinds, "article_date": article, "engine_date": engine}


def test_documents_of_dated_queries_are_checked_on_the_article_date_first() -> None:
    kept = [_doc("in", "claim_date", date(2016, 5, 1), date(2019, 1, 1)),   # article date wins over the engine's
            _doc("out", "claim,claim_date", date(2018, 1, 1)),           # a dated query returned it: checked
            _doc("engine", "vp_date", None, date(2016, 4, 1)),           # no article date: the engine's stands in
            _doc("none", "claim_date", None),                            # no date anywhere: kept, flagged
            _doc("bare", "claim", date(2010, 1, 1))]                     # only the undated query found it
    got = {v.canonical_url: v for v in date_verdicts(kept, QUERIES, "dated_queries")}
    assert {u: v.date_check for u, v in got.items()} == {
        "in": "inside", "out": "outside", "engine": "inside", "none": "undated", "bare": "unrestricted"}
    assert got["in"].date_source == "article" and got["engine"].date_source == "search_engine"
    assert (got["out"].window_start, got["out"].window_end) == (W.start, W.end)
    assert got["bare"].window_start is None
    every = {v.canonical_url: v.date_check for v in date_verdicts(kept, QUERIES, "all")}
    assert every["bare"] == "outside"
    assert {v.date_check for v in date_verdicts(kept, QUERIES, "off")} == {"unrestricted"}


def test_a_document_found_by_several_windows_is_checked_against_their_hull() -> None:
    windows = {"a": DateWindow(date(2016, 1, 1), date(2016, 2, 1)), "b": DateWindow(date(2016, 3, 1), date(2016, 4, 1)),
               "claim": None}
    assert document_window(["a", "b"], windows, "dated_queries") == DateWindow(date(2016, 1, 1), date(2016, 4, 1))
    assert document_window(["claim"], windows, "dated_queries") is None
    assert document_window([], windows, "all") == DateWindow(date(2016, 1, 1), date(2016, 4, 1))


def _decision(url: str, rank: int, kinds: str = "claim_date") -> dict:
    return {"claim_id": "c", "canonical_url": url, "url": url, "domain": "x.com", "decision": "kept",
            "reason": "within_limit", "rank": rank, "similarity": 0.5, "best_rank": rank, "query_kinds": kinds,
            "decided_at": datetime(2024, 1, 1)}


def test_enforcing_stores_the_reason_and_drops_only_outside_documents(warehouse: Warehouse) -> None:
    warehouse.insert_rows("claims", [false_claim_row("c", "ادعاء", date(2016, 5, 10))])
    warehouse.insert_rows("queries", [
        {"query_id": "q1", "claim_id": "c", "kind": "claim", "text": "ادعاء", "window_start": None,
         "window_end": None, "analyzer": "rules", "created_at": datetime(2024, 1, 1)},
        {"query_id": "q2", "claim_id": "c", "kind": "claim_date", "text": "ادعاء", "window_start": W.start,
         "window_end": W.end, "analyzer": "rules", "created_at": datetime(2024, 1, 1)}])
    warehouse.insert_rows("document_decisions", [_decision("https://x.com/in", 1), _decision("https://x.com/out", 2),
                                                 _decision("https://x.com/undated", 3)])
    warehouse.insert_rows("articles", [
        {"article_id": u, "url": u, "canonical_url": u, "domain": "x.com", "published_date": d, "fetch_status": "ok",
         "fetched_at": datetime(2024, 1, 1)}
        for u, d in (("https://x.com/in", date(2016, 6, 1)), ("https://x.com/out", date(2012, 6, 1)),
                     ("https://x.com/undated", None))])
    verdicts = enforce_date_window(warehouse, ["c"], "dated_queries")
    assert sorted(v.date_check for v in verdicts) == ["inside", "outside", "undated"]
    rows = {r["canonical_url"]: r for r in warehouse.query(
        "SELECT canonical_url, decision, reason, rank, date_check, published_date, date_source, window_start, window_end "
        "FROM document_decisions")}
    out = rows["https://x.com/out"]
    assert (out["decision"], out["reason"], out["rank"]) == ("dropped", "outside_date_window", None)
    assert (out["published_date"], out["window_start"], out["window_end"]) == (date(2012, 6, 1), W.start, W.end)
    assert rows["https://x.com/undated"]["decision"] == "kept" and rows["https://x.com/undated"]["date_check"] == "undated"
    assert rows["https://x.com/in"]["decision"] == "kept" and rows["https://x.com/in"]["date_source"] == "article"
    assert enforce_date_window(warehouse, ["c"], "dated_queries")[0].date_check in {"inside", "undated"}  # idempotent


def test_the_window_is_checked_before_the_top_k_cut_so_in_window_articles_move_up(warehouse: Warehouse) -> None:
    # 12 fetched articles, the 3 most similar dated outside the window: it was 7 pairs (those 3 were
    # kept by the ranking, then dropped), the 11th and 12th left below_top_k although in the window
    claim = "وزارة الصحة تنفي انتشار الوباء في المدارس"
    warehouse.insert_rows("claims", [false_claim_row("c", claim, date(2016, 5, 10))])
    warehouse.insert_rows("queries", [
        {"query_id": "q2", "claim_id": "c", "kind": "claim_date", "text": claim, "window_start": W.start,
         "window_end": W.end, "analyzer": "rules", "created_at": datetime(2024, 1, 1)}])
    urls = [f"https://youm7.com/n/{i}" for i in range(12)]
    warehouse.insert_rows("document_decisions", [
        {**_decision(u, i + 1), "decision": "kept" if i < 10 else "dropped",
         "reason": "news_domain_top_k" if i < 10 else "below_top_k", "rank": i + 1 if i < 10 else None}
        for i, u in enumerate(urls)])
    warehouse.insert_rows("articles", [
        {"article_id": f"a{i}", "url": u, "canonical_url": u, "domain": "youm7.com", "title": "الصحة تنفي",
         "text": " ".join([claim] * (12 - i) + [f"كلمة{i}"] * (i + 1)), "fetch_status": "ok", "http_status": 200,
         "published_date": date(2019, 1, 1) if i < 3 else date(2016, 5, 1), "fetched_at": datetime(2024, 1, 1)}
        for i, u in enumerate(urls)])
    settings = SearchSettings(max_documents_per_claim=10)

    rank_fetched_articles(warehouse, settings, {"c": claim})
    assert create_pairs(warehouse, settings, ["c"]) == [{"claim_id": "c", "status": "done", "pairs": 9}]
    rows = {r["canonical_url"]: r for r in warehouse.query(
        "SELECT canonical_url, decision, reason, rank, date_check, published_date, window_start, window_end "
        "FROM document_decisions WHERE claim_id = 'c'")}
    assert sorted(r["rank"] for r in rows.values() if r["decision"] == "kept") == list(range(1, 10))
    for u in urls[:3]:  # every decision and its reason stays stored, with the date and window
        assert (rows[u]["decision"], rows[u]["reason"], rows[u]["date_check"]) == ("dropped", "outside_date_window",
                                                                                   "outside")
        assert (rows[u]["published_date"], rows[u]["window_start"], rows[u]["window_end"]) == (
            date(2019, 1, 1), W.start, W.end)
    assert {rows[u]["date_check"] for u in urls[3:]} == {"inside"}
    paired = {r["article_id"] for r in warehouse.query("SELECT article_id FROM claim_article_pairs")}
    assert paired == {f"a{i}" for i in range(3, 12)}
    rank_fetched_articles(warehouse, settings, {"c": claim})  # ranked again: the same decisions
    assert warehouse.scalar("SELECT count(*) FROM document_decisions WHERE decision = 'kept'") == 9



def test_only_the_claims_current_query_set_gives_its_window_and_engine_dates(warehouse: Warehouse,
                                                                             tmp_path: Path) -> None:
    # a redated claim keeps its earlier queries (and their hits) stored: only the set of its current
    # inputs gives its window and engine dates, also when an earlier date comes back
    settings = load_settings(nlp={"analyzer": "rules", "stanza_dir": str(tmp_path / "no-models")})
    text = "أعلنت وزارة الصحة إغلاق المدارس في دبي، وقررت تأجيل الامتحانات"
    claims = {day: QueryClaim("c", text, "false", day) for day in (date(2017, 7, 10), date(2018, 7, 10))}
    sets = {day: build_queries_for([c], settings, progress=False) for day, c in claims.items()}
    inputs = {day: query_inputs(c, settings.search.date_window_months) for day, c in claims.items()}
    warehouse.insert_rows("claims", [false_claim_row("c", text, date(2017, 7, 10))])
    warehouse.insert_rows("document_decisions", [_decision("https://x.com/a", 1)])
    warehouse.insert_rows("search_hits", [
        {"hit_id": f"h{day.year}", "query_id": next(q.query_id for q in set_ if q.kind == "claim_date"),
         "backend": "b", "rank": 1, "url": "https://x.com/a", "published_date": day.replace(day=1),
         "retrieved_at": datetime(2024, 1, 1)} for day, set_ in sets.items()])
    article = _doc("https://x.com/a", "claim_date", None, None)

    def window_and_engine_date(article_date: date) -> tuple:
        [doc] = kept_documents_with_dates(warehouse, ["c"])
        [v] = date_verdicts([{**article, "article_date": article_date}], query_windows(warehouse, ["c"]), "all")
        return v.date_check, (v.window_start, v.window_end), doc["engine_date"]

    first, second = (date(2017, 7, 10), date(2018, 7, 10))
    store_queries(warehouse, sets[first])
    assert window_and_engine_date(date(2017, 7, 1)) == (
        "inside", (date(2017, 5, 10), date(2017, 9, 10)), date(2017, 7, 1))
    store_queries(warehouse, sets[second])  # the date corrected: the new set is the current one
    assert window_and_engine_date(date(2018, 7, 1)) == (
        "inside", (date(2018, 5, 10), date(2018, 9, 10)), date(2018, 7, 1))
    # corrected back: retrieval finds the first set current again and builds nothing
    assert claims_with_current_queries(warehouse, {"c": inputs[first]}) == {"c"}
    assert window_and_engine_date(date(2017, 7, 1)) == (
        "inside", (date(2017, 5, 10), date(2017, 9, 10)), date(2017, 7, 1))
    store_queries(warehouse, sets[second])  # stored again: current again
    assert window_and_engine_date(date(2017, 7, 1))[:2] == ("outside", (date(2018, 5, 10), date(2018, 9, 10)))
    store_queries(warehouse, sets[first])
    assert window_and_engine_date(date(2017, 7, 1))[0] == "inside"
    assert warehouse.scalar("SELECT count(*) FROM queries WHERE claim_id = 'c' AND kind = 'claim_date'") == 2


def test_queries_stored_before_query_sets_still_give_the_window(warehouse: Warehouse) -> None:
    warehouse.insert_rows("queries", [
        {"query_id": "q2", "claim_id": "c", "kind": "claim_date", "text": "ادعاء", "window_start": W.start,
         "window_end": W.end, "analyzer": "rules", "created_at": datetime(2024, 1, 1)}])
    assert query_windows(warehouse, ["c"]) == [
        {"claim_id": "c", "kinds": ["claim_date"], "window_start": W.start, "window_end": W.end}]

# -- end to end: SearXNG (no date range) + offline mirror + real Prefect run -----------------------

CLAIM = "وزارة الصحة تعلن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة"
TEXT = ["نفت وزارة الصحة ما تردد عن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة هذا الأسبوع.",
        "وقال المتحدث إن الدراسة مستمرة بشكل طبيعي وإن الحالات المسجلة محدودة للغاية."]
PAGES = {"https://www.youm7.com/story/flu-inside": "2016-05-12",
         "https://aljazeera.net/news/flu-years-later": "2021-03-02",
         "https://alarabiya.net/news/flu-no-date": None}


@pytest.fixture
def searxng_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ApiServer]:
    root = tmp_path / "web"
    for n, (url, day) in enumerate(PAGES.items()):  # three articles, not three copies of one (kept once)
        html = article_page("الصحة تنفي إغلاق المدارس", [*TEXT, f"وهذا التقرير رقم {n + 1} عن الموضوع."], day or "x")
        if day is None:
            html = html.replace('<meta property="article:published_time" content="xT08:00:00Z">', "")
        write_mirror_page(root, url, html)
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n", encoding="utf-8")
    results = [{"url": u, "title": "الصحة تنفي إغلاق المدارس", "content": TEXT[0], "engine": "bing"} for u in PAGES]
    engine = ApiServer(lambda r: Reply(body={"query": r.params["q"], "results": results if r.params["pageno"] == "1" else [],
                                             "unresponsive_engines": []}))
    site = SiteServer(root)
    for key, value in {"ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0", "ARASTANCE_CRAWL__AUTOTHROTTLE": "false",
                       "ARASTANCE_CRAWL__RETRY_TIMES": "0", "ARASTANCE_CRAWL__RESUMABLE": "false",
                       "ARASTANCE_SEARCH__BACKEND": "searxng"}.items():
        monkeypatch.setenv(key, value)
    with site.running(), engine.running(), prefect_test_harness(server_startup_timeout=180):
        monkeypatch.setenv("ARASTANCE_SEARCH__MIRROR_BASE", site.base_url)
        monkeypatch.setenv("ARASTANCE_SEARCH__SEARXNG_URL", engine.url + "/search")
        with open_warehouse(load_settings().warehouse) as wh:
            wh.insert_rows("claims", [false_claim_row("flu", CLAIM, date(2016, 5, 10))])
        yield engine


@pytest.mark.slow
def test_searxng_retrieval_drops_articles_dated_outside_the_window(searxng_world: ApiServer) -> None:
    from flows.retrieve_documents import retrieve_documents

    rows = retrieve_documents()
    assert rows[0]["status"] == "done"
    assert all(r.params["format"] == "json" and "time_range" not in r.params for r in searxng_world.requests)
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        decisions = {r["url"]: r for r in wh.query(
            "SELECT url, decision, reason, date_check, published_date FROM document_decisions")}
        paired = {r["url"] for r in wh.query(
            "SELECT a.url FROM claim_article_pairs JOIN articles a USING (article_id)")}
        usage = wh.scalar("SELECT sum(queries) FROM search_usage WHERE backend = 'searxng'")
    late = decisions["https://aljazeera.net/news/flu-years-later"]
    assert (late["decision"], late["reason"], late["published_date"]) == ("dropped", "outside_date_window", date(2021, 3, 2))
    assert decisions["https://www.youm7.com/story/flu-inside"]["date_check"] == "inside"
    assert decisions["https://alarabiya.net/news/flu-no-date"]["date_check"] == "undated"
    assert paired == {"https://www.youm7.com/story/flu-inside", "https://alarabiya.net/news/flu-no-date"}
    assert usage == len(searxng_world.requests)  # each page answered counted once (the budget counts billed pages)
