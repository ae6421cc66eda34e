"""When to retrain: enough gold labels decided after those the last successful training read.

One rule for both places that ask: the pipeline's ``train`` stage in ``auto`` mode and the
``check_retraining_due`` flow that emits the event starting the train deployment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from warehouse import open_warehouse
from warehouse.retraining import new_gold_labels


@dataclass(frozen=True)
class RetrainingCheck:
    """The new gold labels counted against ``threshold``, and the training they are counted from."""

    new_labels: int
    threshold: int
    last_training: datetime | None

    @property
    def due(self) -> bool:
        return self.new_labels >= self.threshold


def check_retraining(warehouse_path: Path, threshold: int) -> RetrainingCheck:
    """Count the gold labels new to the last successful training (:func:`warehouse.retraining.new_gold_labels`;
    read-only, so it may run beside the writer that decided them); a threshold below 1 would retrain
    on nothing new."""
    if threshold < 1:
        raise ValueError(f"threshold must be at least 1, not {threshold}")
    with open_warehouse(warehouse_path, read_only=True) as wh:
        counts = new_gold_labels(wh)
    return RetrainingCheck(counts.new_labels, threshold, counts.last_training)
