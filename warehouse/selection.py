"""Reading selection inputs from the warehouse and storing selection runs (migrations 020-021).

Seeds are the active false claims; candidate headlines are the active true claims of the
configured sources (Reuters). Both are read with the reviewer's override text when present,
the same text that ``v_retrieval_claims`` later hands to retrieval.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


Period = tuple[date | None, date | None]


@dataclass(frozen=True)
class StoredSelection:
    """What a store call added: whether the run is new, and how many new match/exclusion rows."""

    run_id: str
    new_run: bool
    new_matches: int
    new_exclusions: int


def read_seed_claims(wh: Warehouse, period: Period = (None, None)) -> list[dict[str, Any]]:
    """Active false claims dated within ``period``: ``claim_id, text, published_date, is_multimedia``."""
    return wh.query(load_sql("selection_claims"), {"veracity": "false", "sources": None,
                                             "period_start": period[0], "period_end": period[1]})


def read_candidate_headlines(wh: Warehouse, sources: Sequence[str], period: Period = (None, None)) -> list[dict[str, Any]]:
    """Active true claims of ``sources`` dated within ``period`` (same columns as :func:`read_seed_claims`)."""
    return wh.query(load_sql("selection_claims"), {"veracity": "true", "sources": list(sources),
                                             "period_start": period[0], "period_end": period[1]})


def true_claims_by_source(wh: Warehouse) -> dict[str, int]:
    """Active true claims per ``source_id``: the sources ``selection.headline_sources`` can name."""
    rows = wh.query("SELECT source_id, count(*) AS n FROM claims WHERE veracity = 'true' AND status = 'active' "
                    "GROUP BY source_id")
    return {r["source_id"]: r["n"] for r in rows}


def store_selection(
    wh: Warehouse,
    run: dict[str, Any],
    matches: Sequence[dict[str, Any]],
    exclusions: Sequence[dict[str, Any]],
) -> StoredSelection:
    """Store a run, its matches and its exclusions in one transaction; existing rows are kept.

    ``run`` holds the ``selection_runs`` columns (``params`` and ``excluded`` as dictionaries).
    A run already stored (same ``run_id``) adds nothing: ``new_run`` is then ``False``.
    """
    row = {**run, "params": json.dumps(run["params"], sort_keys=True, ensure_ascii=False),
           "excluded": json.dumps(run["excluded"], sort_keys=True)}
    with wh.transaction():
        new_run = wh.insert_rows("selection_runs", [row]) == 1
        new_matches = wh.insert_rows("selection_matches", list(matches))
        new_exclusions = wh.insert_rows("selection_exclusions", list(exclusions))
    return StoredSelection(run["run_id"], new_run, new_matches, new_exclusions)


def selection_runs(wh: Warehouse, limit: int = 20) -> list[dict[str, Any]]:
    """The latest selection runs with their counts, newest first."""
    return wh.query(load_sql("selection_runs"), {"limit": limit})


def selected_true_claims(wh: Warehouse, limit: int = 50) -> list[dict[str, Any]]:
    """Chosen headlines (every run together), the most often chosen first."""
    return wh.query(load_sql("selection_chosen_headlines"), {"limit": limit})

