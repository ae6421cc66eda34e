"""Reads and writes of the date-window check on kept documents (``document_decisions``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


_CHECK_COUNTS = """
SELECT coalesce(date_check, 'not checked') AS date_check, decision, count(*) AS documents
FROM document_decisions WHERE decision = 'kept' OR reason = 'outside_date_window'
GROUP BY ALL ORDER BY ALL
"""


def kept_documents_with_dates(wh: Warehouse, claim_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Kept documents of the claims with their query kinds, article date and engine date."""
    return wh.query(load_sql("date_window_kept_with_dates"), {"claim_ids": list(claim_ids)})


def query_windows(wh: Warehouse, claim_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The current queries of the claims (those of each claim's current set, not of an earlier
    version of the claim): the kinds each stands for and its window (None when undated)."""
    return wh.query(load_sql("date_window_query_windows"), {"claim_ids": list(claim_ids)})


def store_date_checks(wh: Warehouse, rows: Sequence[Mapping[str, Any]]) -> None:
    """Record each check on its decision; an ``outside`` document becomes dropped with its reason."""
    if not rows:
        return
    table = pa.Table.from_pylist([dict(r) for r in rows], schema=pa.schema([
        ("claim_id", pa.string()), ("canonical_url", pa.string()), ("date_check", pa.string()),
        ("published_date", pa.date32()), ("date_source", pa.string()), ("window_start", pa.date32()),
        ("window_end", pa.date32())]))
    with wh.transaction() as con:
        con.register("__date_checks", table)
        try:
            con.execute(load_sql("date_window_apply_checks"))
        finally:
            con.unregister("__date_checks")


def date_check_counts(wh: Warehouse) -> list[dict[str, Any]]:
    """Kept and date-dropped documents per check result."""
    return wh.query(_CHECK_COUNTS)
