"""Between warehouse rows and selection records: claims in, a run with its matches out.

The run id is derived from the parameters and the input fingerprint, so that running the
selection again on unchanged claims with unchanged settings names the same run and stores
nothing new.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from arastance.base.ids import stable_id
from tasks.true_claims.select import ClaimRecord, SelectionResult


def claim_records(rows: Sequence[Mapping[str, Any]], *, origin: str = "warehouse") -> list[ClaimRecord]:
    """Turn ``claim_id, text, published_date, is_multimedia`` rows into records.

    A row without a ``claim_id`` or with a date that is not a date is an error naming the row.
    """
    records: list[ClaimRecord] = []
    for i, row in enumerate(rows):
        claim_id = row.get("claim_id")
        if not claim_id:
            raise ValueError(f"{origin} row {i}: field 'claim_id' is empty")
        published = row.get("published_date")
        if published is not None and not isinstance(published, date):
            raise ValueError(f"{origin} row {i} ({claim_id}): field 'published_date' is not a date: {published!r}")
        if isinstance(published, datetime):
            published = published.date()
        records.append(ClaimRecord(str(claim_id), row.get("text"), published, bool(row.get("is_multimedia"))))
    return records


def selection_run_id(params: Mapping[str, Any], fingerprint: str) -> str:
    """Same settings and same input claims give the same run id."""
    return stable_id("selection", json.dumps(params, sort_keys=True), fingerprint)


def run_row(
    result: SelectionResult, run_id: str, fingerprint: str, started_at: datetime, finished_at: datetime
) -> dict[str, Any]:
    """The ``selection_runs`` row of a result."""
    summary = result.summary()
    return {
        "run_id": run_id,
        "started_at": started_at,
        "finished_at": finished_at,
        "params": result.params,
        "input_fingerprint": fingerprint,
        **{k: summary[k] for k in (
            "seeds_total", "seeds_eligible", "seeds_used", "seeds_matched",
            "headlines_total", "headlines_eligible", "selected_headlines", "matches",
        )},
        "excluded": summary["excluded"],
    }


def match_rows(result: SelectionResult, run_id: str) -> list[dict[str, Any]]:
    """The ``selection_matches`` rows of a result."""
    return [
        {"run_id": run_id, "seed_claim_id": m.seed_claim_id, "headline_claim_id": m.headline_claim_id,
         "score": m.score, "rank": m.rank}
        for m in result.matches
    ]


def exclusion_rows(result: SelectionResult, run_id: str) -> list[dict[str, Any]]:
    """The ``selection_exclusions`` rows of a result."""
    return [
        {"run_id": run_id, "claim_id": e.claim_id, "role": e.role, "reason": e.reason, "detail": e.detail}
        for e in result.exclusions
    ]
