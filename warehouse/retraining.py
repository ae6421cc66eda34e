"""How much gold data arrived since the last model was trained: the input of the retraining trigger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from warehouse.connection import Warehouse

_LAST_TRAINING = """
SELECT max(started_at) FROM model_runs
WHERE status = 'succeeded' AND json_extract_string(config, '$.dataset') = 'warehouse'
"""

_GOLD_SINCE = "SELECT count(*) FROM gold_labels WHERE ? IS NULL OR decided_at > ?"


@dataclass(frozen=True)
class NewGoldLabels:
    """Gold labels decided after the last successful training on them (all when there was none)."""

    new_labels: int
    last_training: datetime | None


def new_gold_labels(wh: Warehouse) -> NewGoldLabels:
    """Count the gold labels decided after the latest successful training on the warehouse's data began.

    Only succeeded runs trained on ``dataset = 'warehouse'`` count: a failed run replaced no
    model, and one trained on a public corpus saw none of these labels. The run's start is the
    mark, not its end: labels decided while it trained were not in its data, and evaluating a
    stored model again moves ``finished_at`` without training anything.
    """
    last = wh.scalar(_LAST_TRAINING)
    return NewGoldLabels(int(wh.scalar(_GOLD_SINCE, [last, last])), last)
