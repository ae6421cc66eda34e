"""Assembling the dataset from gold labels: leave out all-unrelated claims, split by claim, leave
out near-duplicates that hold another split than their cluster, count.

Each step is a plain function of the warehouse so the Prefect flow can run them as separate
tasks and the CLI can run them in one go.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from arastance.config.annotation import AnnotationSettings
from arastance.logging import get_logger
from tasks.dataset.splits import SplitCandidate, assign_splits, split_conflicts
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
    conflicts: int  # claims left out: a near-duplicate holds another split (see leave_out_split_conflicts)


def _candidates(wh: Warehouse) -> list[SplitCandidate]:
    """The claims the dataset holds: gold-labelled, not excluded, not flagged all-unrelated."""
    flagged = {f["claim_id"] for f in store.flagged_claims(wh)}
    return [
        SplitCandidate(p["claim_id"], p["group_id"], p["source_id"], p["agree"], p["disagree"], p["discuss"], p["unrelated"])
        for p in store.claim_profiles(wh)
        if p["claim_id"] not in flagged
    ]


def assign_claim_splits(wh: Warehouse, cfg: AnnotationSettings, *, now: datetime | None = None) -> SplitResult:
    """Give every dataset claim without a split one; claims that have a split keep it.

    Then leave out the claims whose near-duplicate cluster keeps another split
    (:func:`leave_out_split_conflicts`).
    """
    when = now or _now()
    candidates = _candidates(wh)
    existing = store.existing_splits(wh)  # every claim ever split: none of them moves
    new = assign_splits(candidates, existing, cfg.split_ratios, cfg.split_seed)
    added = store.add_splits(wh, new, seed=cfg.split_seed, now=when)
    log.info("claims split", extra={"new": added, "total": len(existing) + added})
    conflicts = leave_out_split_conflicts(wh, now=when)
    return SplitResult(added, len(existing) + added, conflicts)


def leave_out_split_conflicts(wh: Warehouse, *, now: datetime | None = None) -> int:
    """Leave out of the dataset every claim whose near-duplicate cluster keeps another split; returns how many.

    Clusters merge after their members were split (a bridging claim, a re-cluster, a loaded
    dataset), and a stored split never moves, so the cluster keeps the split most of its members
    hold and the others leave the dataset's views and export (``dataset_split_conflicts``). That
    keeps test free of a claim whose duplicate is in train. Recomputed from scratch every time: a
    claim whose conflict went away comes back. Each such cluster is logged as a warning.
    """
    candidates = _candidates(wh)
    pairs = {c.claim_id: c.pairs for c in candidates}
    when = now or _now()
    conflicts = split_conflicts(candidates, store.existing_splits(wh))
    for group_id in sorted({c.group_id for c in conflicts}):
        members = [c for c in conflicts if c.group_id == group_id]
        left = ", ".join(f"{c.claim_id} ({c.split})" for c in members)
        log.warning(f"near-duplicate cluster {group_id} holds more than one split: it keeps {members[0].kept_split}, "
                    f"left out of the dataset: {left}", extra={"cluster": group_id, "kept_split": members[0].kept_split})
    new, gone = store.replace_split_conflicts(wh, [
        {"claim_id": c.claim_id, "group_id": c.group_id, "split": c.split, "kept_split": c.kept_split,
         "pairs": pairs[c.claim_id], "flagged_at": when}
        for c in conflicts
    ])
    if new or gone:
        log.info("split conflicts updated", extra={"left_out": len(conflicts), "new": new, "back": gone})
    return len(conflicts)


def dataset_statistics(wh: Warehouse) -> dict[str, list[dict[str, Any]]]:
    """The per-source table, the per-split label table and the claims left out, as rows."""
    return {
        "sources": source_stats(wh),
        "splits": split_label_counts(wh),
        "left_out": left_out_claims(wh),
    }
