"""Dataset assembly: all-unrelated claim flags, claim-level splits and the rows to export."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from warehouse.connection import Warehouse
from warehouse.sql import load_sql


_FLAGGED = """
SELECT f.claim_id, c.source_id, c.veracity, f.pairs, f.flagged_at
FROM dataset_claim_flags f JOIN claims c USING (claim_id)
ORDER BY c.source_id, f.claim_id
"""


def claim_profiles(wh: Warehouse) -> list[dict[str, Any]]:
    """Every non-excluded claim with gold labels: group, source, veracity and label counts."""
    return wh.query(load_sql("dataset_claim_profiles"))


def replace_unrelated_flags(wh: Warehouse, flags: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Make the all-unrelated flags exactly ``flags``; earlier flag times are kept.

    Returns (newly flagged, unflagged). Only the flag rows change; claims and labels stay.
    """
    keep = sorted(f["claim_id"] for f in flags)
    with wh.transaction():
        gone = int(wh.scalar(
            "SELECT count(*) FROM dataset_claim_flags WHERE flag = 'all_unrelated' "
            "AND claim_id NOT IN (SELECT unnest(?::VARCHAR[]))", [keep]
        ))
        wh.con.execute(
            "DELETE FROM dataset_claim_flags WHERE flag = 'all_unrelated' "
            "AND claim_id NOT IN (SELECT unnest(?::VARCHAR[]))", [keep]
        )
        new = wh.insert_rows("dataset_claim_flags", list(flags), on_conflict="ignore")
    return new, gone


def flagged_claims(wh: Warehouse) -> list[dict[str, Any]]:
    """Claims left out of the dataset, with their source."""
    return wh.query(_FLAGGED)


def existing_splits(wh: Warehouse) -> dict[str, str]:
    """claim_id -> split for every claim assigned so far."""
    return {r["claim_id"]: r["split"] for r in wh.query("SELECT claim_id, split FROM splits")}


def add_splits(wh: Warehouse, assignments: dict[str, str], *, seed: int, now: datetime) -> int:
    """Store new claims' splits; a claim already assigned keeps its split (never moves)."""
    rows = [{"claim_id": c, "split": s, "assigned_at": now, "seed": seed} for c, s in sorted(assignments.items())]
    with wh.transaction():
        return wh.insert_rows("splits", rows, on_conflict="ignore")


def dataset_rows(wh: Warehouse, split: str | None = None) -> list[dict[str, Any]]:
    """Gold pairs of the dataset (one split or all), in export order: split, claim, article rank."""
    return wh.query(load_sql("dataset_rows"), {"split": split})


def load_dataset_rows(
    wh: Warehouse,
    claims: Sequence[dict[str, Any]],
    articles: Sequence[dict[str, Any]],
    pairs: Sequence[dict[str, Any]],
    gold: Sequence[dict[str, Any]],
    splits: Sequence[dict[str, Any]],
) -> tuple[int, int, int, int, int]:
    """Store a loaded dataset in one transaction, keeping rows already present; new rows per table.

    The claims arrive with their documents, so their retrieval is recorded as done: the next
    retrieval run must not search the web (and spend quota) for them.
    """
    now = max((c["first_seen"] for c in claims), default=None)
    retrieval = [{"claim_id": c["claim_id"], "backend": "dataset", "status": "done", "updated_at": now}
                 for c in claims]
    with wh.transaction():
        counts = (
            wh.insert_rows("claims", claims),
            wh.insert_rows("articles", articles),
            wh.insert_rows("claim_article_pairs", pairs),
            wh.insert_rows("gold_labels", gold),
            wh.insert_rows("splits", splits),
        )
        wh.insert_rows("claim_retrieval", retrieval)
        return counts
