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

_CLAIM_COLUMNS = """
    c.claim_id,
    coalesce(o.cleaned_text, c.cleaned_text) AS text,
    c.published_date,
    coalesce(c.is_multimedia, FALSE) AS is_multimedia
FROM claims c
LEFT JOIN claim_overrides o USING (claim_id)
"""

# The period (settings ``period``): open bounds are NULL; an undated claim is outside a set one.
_IN_PERIOD = """
  AND ($period_start::DATE IS NULL OR c.published_date >= $period_start::DATE)
  AND ($period_end::DATE IS NULL OR c.published_date <= $period_end::DATE)
"""

SEEDS_SQL = f"""
SELECT {_CLAIM_COLUMNS}
WHERE c.veracity = 'false' AND c.status = 'active' {_IN_PERIOD}
ORDER BY c.claim_id
"""

HEADLINES_SQL = f"""
SELECT {_CLAIM_COLUMNS}
WHERE c.veracity = 'true' AND c.status = 'active' AND list_contains($sources, c.source_id) {_IN_PERIOD}
ORDER BY c.claim_id
"""

Period = tuple[date | None, date | None]

RUNS_SQL = """
SELECT run_id, started_at, finished_at, seeds_used, seeds_matched, headlines_eligible,
       selected_headlines, matches, excluded, params
FROM selection_runs
ORDER BY started_at DESC, run_id
LIMIT $limit
"""

SELECTED_SQL = """
SELECT s.claim_id, c.published_date, s.seeds, s.best_score, s.best_rank,
       coalesce(o.cleaned_text, c.cleaned_text) AS text
FROM v_selected_true_claims s
JOIN claims c USING (claim_id)
LEFT JOIN claim_overrides o USING (claim_id)
ORDER BY s.seeds DESC, s.best_score DESC, s.claim_id
LIMIT $limit
"""


@dataclass(frozen=True)
class StoredSelection:
    """What a store call added: whether the run is new, and how many new match/exclusion rows."""

    run_id: str
    new_run: bool
    new_matches: int
    new_exclusions: int


def read_seed_claims(wh: Warehouse, period: Period = (None, None)) -> list[dict[str, Any]]:
    """Active false claims dated within ``period``: ``claim_id, text, published_date, is_multimedia``."""
    return wh.query(SEEDS_SQL, {"period_start": period[0], "period_end": period[1]})


def read_candidate_headlines(wh: Warehouse, sources: Sequence[str], period: Period = (None, None)) -> list[dict[str, Any]]:
    """Active true claims of ``sources`` dated within ``period`` (same columns as :func:`read_seed_claims`)."""
    return wh.query(HEADLINES_SQL, {"sources": list(sources), "period_start": period[0], "period_end": period[1]})


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
    return wh.query(RUNS_SQL, {"limit": limit})


def selected_true_claims(wh: Warehouse, limit: int = 50) -> list[dict[str, Any]]:
    """Chosen headlines (every run together), the most often chosen first."""
    return wh.query(SELECTED_SQL, {"limit": limit})

