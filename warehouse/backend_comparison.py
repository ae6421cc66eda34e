"""Reads for comparing search backends on the same claims (stored hits, queries, cache keys)."""

from __future__ import annotations

from datetime import date
from typing import Any

from warehouse.connection import Warehouse
from warehouse.retrieval import with_current_queries
from warehouse.sql import load_sql


_QUERIES = """
SELECT q.claim_id, q.text, q.window_start, q.window_end, c.claim_text
FROM current_queries q JOIN v_retrieval_claims c USING (claim_id)
"""

_CACHE = "SELECT DISTINCT backend, query_text, window_start, window_end, num FROM search_cache"

_ARTICLE_DATES = "SELECT canonical_url, published_date FROM articles WHERE published_date IS NOT NULL"


def stored_hits(wh: Warehouse) -> list[dict[str, Any]]:
    """Every stored hit of a claim's current query with its backend, claim and the query kinds it stands for."""
    return wh.query(with_current_queries(load_sql("backend_comparison_hits")))


def claim_queries(wh: Warehouse) -> list[dict[str, Any]]:
    """The current queries (those searched now, not a restated claim's earlier ones) of every claim
    still up for retrieval, with the claim's text."""
    return wh.query(with_current_queries(_QUERIES))


def cache_keys(wh: Warehouse) -> list[dict[str, Any]]:
    """What each cached answer's key is made of, with the backend by its name (backend, query_text,
    window_start, window_end, num): a local index's key names its build too
    (:func:`tasks.search.cache.cache_name`), so the key alone does not say which backend answered."""
    return wh.query(_CACHE)


def article_dates(wh: Warehouse) -> dict[str, date]:
    """Extracted publication dates of fetched articles, by canonical URL."""
    return {r["canonical_url"]: r["published_date"] for r in wh.query(_ARTICLE_DATES)}
