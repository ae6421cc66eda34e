"""Storing and reading the retrieval queries of claims (tables ``queries``, migration 030, and
``query_sets``, migration 075: which queries each version of a claim gave)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Protocol

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


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
    @property
    def inputs(self) -> str: ...


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
    """Store a batch of queries, each in the set of its claim's inputs, in one transaction; return
    how many queries are new.

    Idempotent: a query already stored (same claim, kind, text and window, hence the same
    ``query_id``) is kept as it is, with its first ``created_at``; it joins the set of these
    inputs if another set holds it already. The stored sets become their claims' current ones
    (the latest ``built_at``, which the date-window check reads: warehouse/sql/date_window_*.sql),
    also when a set stored before comes back (a claim's date corrected back). A query without
    ``inputs`` is refused: it would belong to no set, and retrieval would never send it.
    """
    if bad := [q.query_id for q in queries if not q.inputs]:
        raise ValueError(f"queries {', '.join(bad)} have no inputs fingerprint (tasks.queries.query_inputs); "
                         "build them with tasks.queries.build_queries")
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
    sets = [{"claim_id": q.claim_id, "inputs": q.inputs, "query_id": q.query_id, "built_at": stamp} for q in queries]
    with wh.transaction():
        wh.insert_rows("query_sets", sets, on_conflict="ignore")
        added = wh.insert_rows("queries", rows, on_conflict="ignore")
        _mark_current(wh, {q.claim_id: q.inputs for q in queries}, stamp)
        return added


def queries_of_claim(wh: Warehouse, claim_id: str, inputs: str) -> list[StoredQuery]:
    """The claim's current queries, those built from ``inputs`` (its current fingerprint,
    :func:`tasks.queries.query_inputs`), in the method's order of kinds."""
    return [
        StoredQuery(**{**row, "also_kinds": tuple(row["also_kinds"] or ())})
        for row in wh.query(load_sql("retrieval_queries_of_claim"), {"claim_id": claim_id, "inputs": inputs})
    ]


def claims_with_current_queries(wh: Warehouse, inputs_by_claim: Mapping[str, str]) -> set[str]:
    """Those of the claims (id -> current inputs fingerprint) whose queries were built from these
    inputs; the others (new, restated, redated, another window) need theirs built. The found sets
    are marked as their claims' current ones (a set of earlier inputs that are current again)."""
    claim_ids = list(inputs_by_claim)
    found = {row["claim_id"] for row in wh.query(load_sql("queries_current_sets"), {
        "claim_ids": claim_ids, "inputs": [inputs_by_claim[c] for c in claim_ids]})}
    _mark_current(wh, {c: inputs_by_claim[c] for c in claim_ids if c in found},
                  datetime.now(timezone.utc).replace(tzinfo=None))
    return found


def _mark_current(wh: Warehouse, inputs_by_claim: Mapping[str, str], stamp: datetime) -> None:
    """Make the set of each claim's given inputs its current one: the set with the latest
    ``built_at``. A set built before and current again (the claim's date corrected back) gets a
    new ``built_at``; one already the latest keeps its own. The date-window check reads a claim's
    current queries this way (it cannot compute the inputs fingerprint in SQL)."""
    if not inputs_by_claim:
        return
    claim_ids = list(inputs_by_claim)
    with wh.transaction() as con:
        con.execute(load_sql("date_window_mark_current_sets"), {
            "stamp": stamp, "claim_ids": claim_ids, "inputs": [inputs_by_claim[c] for c in claim_ids]})
