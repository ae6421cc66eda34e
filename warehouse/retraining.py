"""How much gold data arrived since the last model was trained: the input of the retraining trigger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from warehouse.connection import Warehouse

_LAST_TRAINING = """
SELECT coalesce(TRY_CAST(json_extract_string(config, '$.gold_decided_through') AS TIMESTAMP), started_at)
FROM model_runs
WHERE status = 'succeeded' AND json_extract_string(config, '$.dataset') = 'warehouse'
ORDER BY started_at DESC NULLS LAST LIMIT 1
"""

_GOLD_SINCE = "SELECT count(*) FROM gold_labels WHERE ? IS NULL OR decided_at > ?"


@dataclass(frozen=True)
class NewGoldLabels:
    """Gold labels decided after the last successful training's data (all when there was none)."""

    new_labels: int
    #: the mark they are counted from: the newest gold label the last training read, or its start
    last_training: datetime | None


def new_gold_labels(wh: Warehouse) -> NewGoldLabels:
    """Count the gold labels decided after the newest one the latest successful training on the
    warehouse's data read (``gold_decided_through`` in its config), or, for a run recorded without
    that mark, after it began.

    Only succeeded runs trained on ``dataset = 'warehouse'`` count: a failed run replaced no
    model, and one trained on a public corpus saw none of these labels. Neither the run's end nor
    its start is the mark: a label's ``decided_at`` is when its last counting annotation was made,
    so a build that ends after training read its data (or while it waits to start) decides labels
    dated before the start that the run never saw, and the start lost them for good.
    """
    last = wh.scalar(_LAST_TRAINING)
    return NewGoldLabels(int(wh.scalar(_GOLD_SINCE, [last, last])), last)
