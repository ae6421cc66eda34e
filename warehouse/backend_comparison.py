"""Reads for comparing search backends on the same claims (stored hits, queries, cache keys)."""

from __future__ import annotations

from datetime import date
from typing import Any

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


_QUERIES = """
SELECT q.claim_id, q.text, q.window_start, q.window_end, c.claim_text
FROM queries q JOIN v_retrieval_claims c USING (claim_id)
"""

_CACHE = "SELECT cache_key FROM search_cache"

_ARTICLE_DATES = "SELECT canonical_url, published_date FROM articles WHERE published_date IS NOT NULL"


def stored_hits(wh: Warehouse) -> list[dict[str, Any]]:
    """Every stored hit with its backend, claim and the query kinds it stands for."""
    return wh.query(load_sql("backend_comparison_hits"))


def claim_queries(wh: Warehouse) -> list[dict[str, Any]]:
    """Every query of a claim still up for retrieval, with the claim's text."""
    return wh.query(_QUERIES)


def cache_keys(wh: Warehouse) -> set[str]:
    return {r["cache_key"] for r in wh.query(_CACHE)}


def article_dates(wh: Warehouse) -> dict[str, date]:
    """Extracted publication dates of fetched articles, by canonical URL."""
    return {r["canonical_url"]: r["published_date"] for r in wh.query(_ARTICLE_DATES)}
