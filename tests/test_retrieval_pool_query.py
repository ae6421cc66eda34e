"""The ranked pool reader (``warehouse.retrieval.pool_documents``): the rows it has always given, and
only the batch's articles read, so that its cost follows the batch and not all stored article text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_search import false_claim_row

from warehouse import open_warehouse
from warehouse.connection import Warehouse
from warehouse.retrieval import pool_documents

NOW = datetime(2024, 1, 2, 3, 4, 5)
CLAIMS = [f"c{i}" for i in range(6)]
BATCH = ["c1", "c4", "nope"]  # "nope" has no documents: an empty pool
POOL_COLUMNS = ["claim_id", "canonical_url", "url", "domain", "best_rank", "query_kinds", "fetch_status",
                "http_status", "title", "text", "claim_date", "article_date", "engine_date"]


def _url(claim: int, doc: int) -> str:
    return f"https://news{doc % 3}.example/{claim}/{doc}"


def _decision(claim: int, doc: int) -> dict[str, Any]:
    """Claim ``claim``'s document ``doc``: every third one dropped, similarities tied in pairs so
    that best rank and then URL break ties, one without a similarity (last)."""
    return {"claim_id": f"c{claim}", "canonical_url": _url(claim, doc), "url": _url(claim, doc) + "?ref=x",
            "domain": f"news{doc % 3}.example", "decision": "kept", "reason": "kept" if doc % 3 else "dropped",
            "best_rank": 5 - doc % 2, "similarity": None if doc == 7 else round(0.9 - doc // 2 * 0.1, 2),
            "query_kinds": "claim", "decided_at": NOW}


def _article(claim: int, doc: int) -> dict[str, Any]:
    """The stored article of a document: every document but the fourth of each claim (not fetched)."""
    url = _url(claim, doc)
    return {"article_id": f"a{claim}_{doc}", "url": url, "canonical_url": url, "domain": f"news{doc % 3}.example",
            "title": f"title {claim} {doc}", "published_date": date(2020, 1 + doc // 28, 1 + doc % 28), "text": f"text {claim} {doc} " * 50,
            "language": "ar", "fetch_status": "failed" if doc == 5 else "ok", "http_status": 500 if doc == 5 else 200,
            "fetched_at": NOW}


@pytest.fixture
def wh(tmp_path: Path) -> Iterator[Warehouse]:
    with open_warehouse(tmp_path / "wh.duckdb", publish=False) as wh:
        wh.insert_rows("claims", [false_claim_row(c, f"claim {c}", date(2019, 6, 1 + i)) for i, c in enumerate(CLAIMS)])
        wh.insert_rows("document_decisions", [_decision(c, d) for c in range(6) for d in range(9)])
        wh.insert_rows("articles", [_article(c, d) for c in range(6) for d in range(9) if d != 4])
        wh.insert_rows("articles", [_article(99, d) for d in range(40)])  # articles of no decision
        wh.insert_rows("queries", [{"query_id": "q1", "claim_id": "c1", "kind": "claim", "text": "x",
                                    "analyzer": "rules", "created_at": NOW}])
        wh.insert_rows("search_hits", [{"hit_id": "h1", "query_id": "q1", "backend": "local", "rank": 1,
                                        "url": _url(1, 2) + "?ref=x", "title": "t", "snippet": "s",
                                        "published_date": date(2019, 5, 30), "retrieved_at": NOW}])
        yield wh


def _expected(wh: Warehouse, claim_ids: list[str], reasons: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The pool computed from the tables in Python: each claim's decisions with one of ``reasons``
    in fetch order (similarity descending, NULL last, then best rank, then URL), with the article's
    columns or None when none is stored, the claim's date and the engine's date of the hit."""
    articles = {a["canonical_url"]: a for a in wh.query("SELECT * FROM articles")}
    claim_dates = {c["claim_id"]: c["published_date"] for c in wh.query("SELECT * FROM claims")}
    hit_dates = {(r["claim_id"], r["url"]): r["published_date"] for r in wh.query(
        "SELECT q.claim_id, h.url, h.published_date FROM search_hits h JOIN queries q USING (query_id)")}
    out: dict[str, list[dict[str, Any]]] = {c: [] for c in claim_ids}
    decisions = [d for d in wh.query("SELECT * FROM document_decisions") if d["claim_id"] in out and d["reason"] in reasons]
    decisions.sort(key=lambda d: (d["claim_id"], d["similarity"] is None, -(d["similarity"] or 0), d["best_rank"],
                                  d["canonical_url"]))
    for d in decisions:
        a = articles.get(d["canonical_url"], {})
        out[d["claim_id"]].append({
            **{k: d[k] for k in POOL_COLUMNS[:6]}, **{k: a.get(k) for k in POOL_COLUMNS[6:10]},
            "claim_date": claim_dates[d["claim_id"]], "article_date": a.get("published_date"),
            "engine_date": hit_dates.get((d["claim_id"], d["url"]))})
    return out


def test_pool_rows_are_the_decisions_with_their_articles_in_fetch_order(wh: Warehouse) -> None:
    got = pool_documents(wh, BATCH, ["kept"])
    assert got == _expected(wh, BATCH, ["kept"])
    assert all(list(r) == POOL_COLUMNS for rows in got.values() for r in rows)
    assert got["nope"] == [] and len(got["c1"]) == 6
    unfetched = [r for r in got["c1"] if r["canonical_url"] == _url(1, 4)]
    assert unfetched and all(unfetched[0][k] is None for k in POOL_COLUMNS[6:10] + ["article_date"])
    assert [r["engine_date"] for r in got["c1"] if r["canonical_url"] == _url(1, 2)] == [date(2019, 5, 30)]
    assert pool_documents(wh, BATCH, ["kept", "dropped"]) == _expected(wh, BATCH, ["kept", "dropped"])


def _scanned_articles(node: dict[str, Any]) -> int:
    """Rows the profiled query's scans of ``articles`` gave."""
    own = node.get("operator_cardinality", 0) if "articles" in str(node.get("extra_info", {}).get("Table", "")) else 0
    return own + sum(_scanned_articles(c) for c in node.get("children", []))


def test_pool_reads_only_the_batchs_articles(wh: Warehouse, tmp_path: Path) -> None:
    """Each query the reader runs is profiled; the articles read are the batch's (12), not all 88."""
    profile = tmp_path / "profile.json"
    wh.con.execute(f"PRAGMA enable_profiling='json'; PRAGMA profiling_output='{profile}'")
    seen: list[int] = []
    query = wh.query

    def profiled(sql: str, params: Any = None) -> list[dict[str, Any]]:
        rows = query(sql, params)
        seen.append(_scanned_articles(json.loads(profile.read_text())))
        return rows

    wh.query = profiled  # type: ignore[method-assign]  # observes the real queries, changes nothing
    try:
        pool = pool_documents(wh, BATCH, ["kept"])
    finally:
        wh.con.execute("PRAGMA disable_profiling")
        del wh.query
    fetched = sum(r["fetch_status"] is not None for rows in pool.values() for r in rows)
    assert fetched == 10
    assert sum(seen) == fetched, f"articles rows read per query: {seen}"
