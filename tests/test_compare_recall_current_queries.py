"""`retrieve compare` and `retrieve recall` read a claim's current queries only (``query_sets``,
migration 075): a restated claim's earlier queries stay stored with their hits but are no longer
searched, so no backend is required to have answered them and their hits are no backend's
documents; recall reads the hits of the backend that gave the claim its documents."""

from __future__ import annotations

from datetime import date, datetime

from helpers_search import false_claim_row

from arastance.base.urls import canonicalize_url
from tasks.search.base import DateWindow
from tasks.search.cache import cache_key
from tasks.search.compare import compare_backends
from tasks.search.recall import ALL, recall_table, retrieved_by_kind
from warehouse import Warehouse
from warehouse.backend_comparison import article_dates, cache_keys, claim_queries, stored_hits
from warehouse.retrieval import hits_by_kind, searched_query_kinds

NUM = 10
BEFORE, AFTER = datetime(2024, 1, 1), datetime(2024, 2, 1)
T_OLD = "وزارة الصحة تغلق المدارس"  # the claim's first version
T_NEW = "وزارة الصحة تعلن إغلاق المدارس بسبب الإنفلونزا"  # after `claims review --set`
T_LEGACY = "سيول في جدة"  # a claim whose queries were stored before query sets
OLD_ONLY = "https://www.youm7.com/story/old-only"
FLU = "https://www.youm7.com/story/flu"
FLOOD = "https://www.youm7.com/story/flood"


def _query(query_id: str, claim_id: str, kind: str, text: str, at: datetime) -> dict[str, object]:
    return {"query_id": query_id, "claim_id": claim_id, "kind": kind, "text": text, "window_start": None,
            "window_end": None, "analyzer": "rules", "created_at": at, "also_kinds": []}


def _hit(query_id: str, backend: str, url: str) -> dict[str, object]:
    return {"hit_id": f"{query_id}-{backend}-{url}", "query_id": query_id, "backend": backend, "rank": 1, "url": url,
            "title": "الصحة تنفي إغلاق المدارس", "snippet": "نفت وزارة الصحة إغلاق المدارس بسبب الإنفلونزا",
            "published_date": date(2016, 5, 12), "retrieved_at": BEFORE}


def _cached(backend: str, text: str, name: str | None = None) -> dict[str, object]:
    return {"cache_key": cache_key(name or backend, text, None, NUM), "backend": backend, "query_text": text,
            "window_start": None, "window_end": None, "num": NUM, "results": "[]", "result_count": 0,
            "searched_at": BEFORE}


def _store(wh: Warehouse) -> None:
    """Claim flu searched by local in both versions (its first query a claim_date one), by serpapi
    only after it was restated; claim flood, from before query sets, searched by both."""
    wh.insert_rows("claims", [false_claim_row("flu", T_NEW, date(2016, 5, 10)),
                              false_claim_row("flood", T_LEGACY, date(2017, 11, 21))])
    wh.insert_rows("queries", [_query("q_old", "flu", "claim_date", T_OLD, BEFORE),
                               _query("q_new", "flu", "claim", T_NEW, AFTER),
                               _query("q_flood", "flood", "claim", T_LEGACY, BEFORE)])
    wh.insert_rows("query_sets", [{"claim_id": "flu", "inputs": "v1", "query_id": "q_old", "built_at": BEFORE},
                                  {"claim_id": "flu", "inputs": "v2", "query_id": "q_new", "built_at": AFTER}])
    # local's answers cached under its build's name, as `index search` and a rebuilt index store them
    wh.insert_rows("search_cache", [_cached("local", T_OLD, "local@b1"), _cached("local", T_NEW, "local@b2"),
                                    _cached("serpapi", T_NEW), _cached("local", T_LEGACY), _cached("serpapi", T_LEGACY)])
    wh.insert_rows("search_hits", [_hit("q_old", "local", OLD_ONLY), _hit("q_new", "local", FLU),
                                   _hit("q_new", "serpapi", FLU), _hit("q_flood", "local", FLOOD),
                                   _hit("q_flood", "serpapi", FLOOD)])
    wh.insert_rows("claim_retrieval", [{"claim_id": c, "backend": "serpapi", "status": "done", "updated_at": AFTER}
                                       for c in ("flu", "flood")])


def test_compare_reads_only_the_claims_current_queries_and_their_hits(warehouse: Warehouse) -> None:
    # it was: serpapi had "not searched" flu (its superseded query was never sent to serpapi), and
    # local's documents included the superseded query's article
    _store(warehouse)
    assert sorted(r["text"] for r in claim_queries(warehouse)) == sorted([T_NEW, T_LEGACY])
    hits = stored_hits(warehouse)
    assert OLD_ONLY not in {h["url"] for h in hits}
    rows, overlap, claims = compare_backends(hits, claim_queries(warehouse), cache_keys(warehouse),
                                             article_dates(warehouse), ["local", "serpapi"], num=NUM,
                                             news_domains=["youm7.com"], limit=5)
    assert claims == 2
    assert {r["backend"]: (r["claims"], r["documents"]) for r in rows} == {"local": (2, 2), "serpapi": (2, 2)}
    assert overlap == [{"backends": "local & serpapi", "shared_documents": 2, "mean_jaccard": 1.0}]


def test_recall_reads_the_current_queries_hits_of_the_backend_that_gave_the_documents(warehouse: Warehouse) -> None:
    # it was: the superseded query's kind counted as searched and its hit (local's, while serpapi
    # gave the claim its documents) as found
    _store(warehouse)
    kinds = searched_query_kinds(warehouse)
    assert sorted((r["claim_id"], r["kind"]) for r in kinds) == [("flood", "claim"), ("flu", "claim")]
    hits = hits_by_kind(warehouse)
    assert sorted((h["claim_id"], h["kind"], h["url"]) for h in hits) == [("flood", "claim", FLOOD),
                                                                          ("flu", "claim", FLU)]
    relevant = {"flu": {canonicalize_url(OLD_ONLY)}}
    retrieved = retrieved_by_kind(kinds, hits, {"flu": [canonicalize_url(FLU)]}, k=10)
    assert [(r["kind"], r["found"]) for r in recall_table(relevant, retrieved)] == [("claim", 0), (ALL, 0)]


def test_a_query_answered_counts_under_its_backends_name_whatever_build_keyed_it(warehouse: Warehouse) -> None:
    from tasks.search.compare import answered  # new with build-named keys: imported here, the other tests run without

    window = DateWindow(date(2016, 4, 10), date(2016, 6, 10))
    warehouse.insert_rows("search_cache", [
        {**_cached(backend, T_NEW), "cache_key": cache_key(name, T_NEW, window, NUM), "window_start": window.start,
         "window_end": window.end} for backend, name in (("brave", "brave"), ("local", "local@b3"))])
    assert answered(cache_keys(warehouse)) == {cache_key("brave", T_NEW, window, NUM),
                                               cache_key("local", T_NEW, window, NUM)}
