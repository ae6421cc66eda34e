"""A claim whose kept document failed to fetch for a passing reason is not done: a re-run retries it,
and the claim's pairs are then those of the documents the new ranking keeps."""

import logging
from datetime import datetime

import pytest

from arastance.base.ids import stable_id
from arastance.config.search import SearchSettings
from tasks.retrieval import create_pairs, rank_fetched_articles
from warehouse import Warehouse
from warehouse.retrieval import claims_with_failed_fetches

T = datetime(2016, 5, 1)


def test_only_passing_fetch_failures_keep_a_claim_open(warehouse: Warehouse) -> None:
    docs = {  # claim -> (canonical url, fetch status, http status, fetch error)
        "c-ok": ("https://youm7.com/1", "ok", 200, None),
        "c-503": ("https://youm7.com/2", "failed", 503, "http_503: HTTP 503"),
        "c-timeout": ("https://youm7.com/3", "failed", None, "timeout: TimeoutError"),
        "c-404": ("https://youm7.com/4", "failed", 404, "http_404: HTTP 404"),
        # final without a status: they were fetched again on every run
        "c-large": ("https://youm7.com/5", "failed", None, "too_large: the page passed 4,194,304 bytes"),
        "c-robots": ("https://youm7.com/6", "failed", None, "robots_disallowed: Forbidden by robots.txt"),
    }
    warehouse.insert_rows("document_decisions", [
        {"claim_id": c, "canonical_url": u, "url": u, "decision": "kept", "reason": "within_limit", "rank": 1,
         "best_rank": 1, "query_kinds": "claim", "decided_at": T} for c, (u, _, _, _) in docs.items()
    ] + [{"claim_id": "c-dropped", "canonical_url": "https://youm7.com/2", "url": "https://youm7.com/2",
          "decision": "dropped", "reason": "below_top_k", "rank": None, "best_rank": 9, "query_kinds": "claim",
          "decided_at": T}])
    warehouse.insert_rows("articles", [
        {"article_id": u[-1], "url": u, "canonical_url": u, "fetch_status": status, "http_status": http,
         "fetch_error": error}
        for u, status, http, error in docs.values()
    ])
    asked = [*docs, "c-dropped"]
    assert claims_with_failed_fetches(warehouse, asked) == {"c-503", "c-timeout"}
    assert claims_with_failed_fetches(warehouse, ["c-ok", "c-404", "c-large", "c-robots"]) == set()


def _decide(warehouse: Warehouse, claim_id: str, kept: list[str], dropped: list[str]) -> None:
    """The claim's document decisions: ``kept`` in rank order, ``dropped`` below the top k."""
    warehouse.con.execute("DELETE FROM document_decisions WHERE claim_id = ?", [claim_id])
    warehouse.insert_rows("document_decisions", [
        {"claim_id": claim_id, "canonical_url": f"https://youm7.com/{a}", "url": f"https://youm7.com/{a}",
         "decision": "kept" if a in kept else "dropped", "reason": "article_text_top_k" if a in kept else "below_top_k",
         "rank": kept.index(a) + 1 if a in kept else None, "similarity": 0.9 - kept.index(a) / 10 if a in kept else 0.01,
         "best_rank": i + 1, "query_kinds": "claim", "decided_at": T}
        for i, a in enumerate(kept + dropped)])


def _pairs(warehouse: Warehouse, claim_id: str) -> dict[str, tuple[int, float]]:
    return {r["article_id"]: (r["rank"], r["similarity"]) for r in warehouse.query(
        "SELECT article_id, rank, similarity FROM claim_article_pairs WHERE claim_id = ?", [claim_id])}


_ANNOTATION_WORK = {  # every table that holds a pair_id, with a row of annotation work on the pair
    "annotations": lambda p: {"annotation_id": f"x-{p}", "pair_id": p, "annotator_id": "ann1", "label": "agree",
                              "round": "pilot-1", "round_kind": "pilot", "annotated_at": T},
    "annotation_assignments": lambda p: {"round": "pilot-1", "pair_id": p, "annotator_id": "ann1", "assigned_at": T},
    "gold_labels": lambda p: {"pair_id": p, "label": "agree", "method": "single", "decided_at": T},
    "pilot_discussions": lambda p: {"pair_id": p, "round": "pilot-1", "label": "agree", "reason": "the text says so",
                                    "decided_at": T, "source_file": "pilot-1.csv"},
}


@pytest.mark.parametrize("table", sorted(_ANNOTATION_WORK))
def test_a_claim_ranked_again_keeps_only_its_kept_documents_pairs_unless_annotation_touched_them(
        warehouse: Warehouse, table: str, caplog: pytest.LogCaptureFixture) -> None:
    articles = ["a1", "a2", "a3", "a4", "a5"]
    warehouse.insert_rows("articles", [
        {"article_id": a, "url": f"https://youm7.com/{a}", "canonical_url": f"https://youm7.com/{a}",
         "fetch_status": "ok", "http_status": 200} for a in articles])
    settings = SearchSettings(max_documents_per_claim=3)
    _decide(warehouse, "c1", ["a1", "a2", "a3"], ["a4", "a5"])
    create_pairs(warehouse, settings, ["c1"])
    assert _pairs(warehouse, "c1") == {"a1": (1, 0.9), "a2": (2, 0.8), "a3": (3, 0.7)}
    touched = stable_id("c1", "a2")
    warehouse.insert_rows(table, [_ANNOTATION_WORK[table](touched)])

    _decide(warehouse, "c1", ["a4", "a1", "a5"], ["a2", "a3"])  # ranked again: a2 and a3 dropped
    with caplog.at_level(logging.WARNING, logger="tasks.retrieval"):
        outcome = create_pairs(warehouse, settings, ["c1"])

    # it was: a3 stayed (4 pairs for 3 documents) and a1 kept its old rank
    assert _pairs(warehouse, "c1") == {"a4": (1, 0.9), "a1": (2, 0.8), "a5": (3, 0.7), "a2": (2, 0.8)}
    assert outcome == [{"claim_id": "c1", "status": "done", "pairs": 4}]
    said = [r for r in caplog.records if "annotation has started" in r.getMessage()]
    assert [(r.claim_id, r.pair_ids) for r in said] == [("c1", [touched])]


def test_a_page_fetched_on_the_next_run_never_leaves_more_pairs_than_kept_documents(warehouse: Warehouse) -> None:
    # run 1: two of eleven candidates answer 503, so nine are kept; run 2 fetches them and ranks
    # the pool again: one of the nine drops below the top ten
    claim = "الحكومة تقرر رفع أسعار الوقود"
    urls = [f"https://youm7.com/n/{i}" for i in range(11)]
    warehouse.insert_rows("document_decisions", [
        {"claim_id": "c1", "canonical_url": u, "url": u, "domain": "youm7.com",
         "decision": "kept" if i < 10 else "dropped", "reason": "news_domain_top_k" if i < 10 else "below_top_k",
         "rank": i + 1 if i < 10 else None, "similarity": 0.5 - i / 100, "best_rank": i + 1, "query_kinds": "claim",
         "decided_at": T} for i, u in enumerate(urls)])
    warehouse.insert_rows("claim_retrieval", [{"claim_id": "c1", "backend": "brave", "status": "searched",
                                               "queries": 2, "hits": 11, "kept": 10, "updated_at": T}])
    settings = SearchSettings()

    def run(fetched_all: bool) -> list[dict]:
        warehouse.insert_rows("articles", [
            {"article_id": f"a{i}", "url": u, "canonical_url": u, "domain": "youm7.com",
             "text": None if failed else (claim + " اليوم" if i >= 9 else f"خبر رياضي عن مباراة رقم {i} الحكومة"),
             "fetch_status": "failed" if failed else "ok", "http_status": 503 if failed else 200}
            for i, u in enumerate(urls) for failed in [i >= 9 and not fetched_all]], on_conflict="update")
        rank_fetched_articles(warehouse, settings, {"c1": claim})
        return create_pairs(warehouse, settings, ["c1"])

    assert run(False) == [{"claim_id": "c1", "status": "searched", "pairs": 9}]
    assert run(True) == [{"claim_id": "c1", "status": "done", "pairs": 10}]
    kept = warehouse.query("SELECT a.article_id, d.rank FROM document_decisions d JOIN articles a USING (canonical_url) "
                           "WHERE d.claim_id = 'c1' AND d.decision = 'kept' ORDER BY a.article_id")
    # it was: 11 pairs, one of a document dropped below the top ten, with its old rank
    assert warehouse.query("SELECT article_id, rank FROM claim_article_pairs WHERE claim_id = 'c1' "
                           "ORDER BY article_id") == kept
    assert warehouse.scalar("SELECT pairs FROM claim_retrieval WHERE claim_id = 'c1'") == 10
