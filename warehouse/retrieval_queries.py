"""Storing and reading the retrieval queries of claims (table ``queries``, migration 030)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Protocol

from warehouse.connection import Warehouse
from warehouse.sql import load_sql

_CLAIMS_WITH_QUERIES = "SELECT DISTINCT claim_id FROM queries"


class QueryRecord(Protocol):
    """What a query must offer to be stored (``tasks.queries.Query`` does)."""

    @property
    def query_id(self) -> str: ...
    @property
    def claim_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def window_start(self) -> date | None: ...
    @property
    def window_end(self) -> date | None: ...
    @property
    def analyzer(self) -> str: ...
    @property
    def also_kinds(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class StoredQuery:
    """A row of ``queries``."""

    query_id: str
    claim_id: str
    kind: str
    text: str
    window_start: date | None
    window_end: date | None
    analyzer: str
    also_kinds: tuple[str, ...]
    created_at: datetime


def store_queries(wh: Warehouse, queries: Sequence[QueryRecord], *, created_at: datetime | None = None) -> int:
    """Store a batch of queries in one transaction; return how many are new.

    Idempotent: a query already stored (same claim, kind, text and window, hence the same
    ``query_id``) is kept as it is, with its first ``created_at``.
    """
    stamp = created_at or datetime.now(timezone.utc).replace(tzinfo=None)
    rows = [
        {
            "query_id": q.query_id,
            "claim_id": q.claim_id,
            "kind": q.kind,
            "text": q.text,
            "window_start": q.window_start,
            "window_end": q.window_end,
            "analyzer": q.analyzer,
            "also_kinds": [str(k) for k in q.also_kinds],
            "created_at": stamp,
        }
        for q in queries
    ]
    with wh.transaction():
        return wh.insert_rows("queries", rows, on_conflict="ignore")


def queries_of_claim(wh: Warehouse, claim_id: str) -> list[StoredQuery]:
    """Every stored query of a claim, in the method's order of kinds."""
    return [
        StoredQuery(**{**row, "also_kinds": tuple(row["also_kinds"] or ())})
        for row in wh.query(load_sql("retrieval_queries_of_claim"), {"claim_id": claim_id})
    ]


def claims_with_queries(wh: Warehouse) -> set[str]:
    """Ids of the claims that already have stored queries (to build only the missing ones)."""
    return {row["claim_id"] for row in wh.query(_CLAIMS_WITH_QUERIES)}
