"""Assembling the dataset from gold labels: leave out all-unrelated claims, split by claim, count.

Each step is a plain function of the warehouse so the Prefect flow can run them as separate
tasks and the CLI can run them in one go.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from arastance.config.annotation import AnnotationSettings
from arastance.logging import get_logger
from tasks.dataset.splits import SplitCandidate, assign_splits
from warehouse import Warehouse
from warehouse import dataset as store
from warehouse.stats import left_out_claims, source_stats, split_label_counts

log = get_logger(__name__)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


@dataclass(frozen=True)
class FlagResult:
    flagged: int
    newly_flagged: int
    unflagged: int


def flag_unrelated_claims(wh: Warehouse, *, now: datetime | None = None) -> FlagResult:
    """Flag every claim whose gold-labelled documents are all unrelated; unflag those that no longer are.

    Flagged claims stay in the warehouse with all their labels; the dataset views leave them out.
    """
    when = now or _now()
    flags = [
        {"claim_id": p["claim_id"], "flag": "all_unrelated", "pairs": p["pairs"], "flagged_at": when}
        for p in store.claim_profiles(wh)
        if p["unrelated"] == p["pairs"]
    ]
    new, gone = store.replace_unrelated_flags(wh, flags)
    log.info("all-unrelated claims flagged", extra={"flagged": len(flags), "new": new, "unflagged": gone})
    return FlagResult(len(flags), new, gone)


@dataclass(frozen=True)
class SplitResult:
    assigned: int
    total: int


def assign_claim_splits(wh: Warehouse, cfg: AnnotationSettings, *, now: datetime | None = None) -> SplitResult:
    """Give every dataset claim without a split one; claims that have a split keep it."""
    flagged = {f["claim_id"] for f in store.flagged_claims(wh)}
    candidates = [
        SplitCandidate(p["claim_id"], p["group_id"], p["source_id"], p["agree"], p["disagree"], p["discuss"], p["unrelated"])
        for p in store.claim_profiles(wh)
        if p["claim_id"] not in flagged
    ]
    existing = store.existing_splits(wh)
    new = assign_splits(candidates, existing, cfg.split_ratios, cfg.split_seed)
    added = store.add_splits(wh, new, seed=cfg.split_seed, now=now or _now())
    log.info("claims split", extra={"new": added, "total": len(existing) + added})
    return SplitResult(added, len(existing) + added)


def dataset_statistics(wh: Warehouse) -> dict[str, list[dict[str, Any]]]:
    """The per-source table, the per-split label table and the claims left out, as rows."""
    return {
        "sources": source_stats(wh),
        "splits": split_label_counts(wh),
        "left_out": left_out_claims(wh),
    }
