"""How much gold data arrived since the last model was trained: the input of the retraining trigger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from warehouse.connection import Warehouse
from warehouse.sql import load_sql

#: ``{written}``: when a label was written; labels stored before ``stored_at`` existed have only their decision time.
_GOLD_SINCE = "SELECT count(*) FROM gold_labels WHERE ? IS NULL OR {written} > ?"


@dataclass(frozen=True)
class NewGoldLabels:
    """Gold labels written after the last successful training's data (all when there was none)."""

    new_labels: int
    #: the mark they are counted from: the newest gold label the last training read, or its start
    last_training: datetime | None


def new_gold_labels(wh: Warehouse) -> NewGoldLabels:
    """Count the gold labels written after the newest one the latest successful training on the
    warehouse's data read (``gold_stored_through`` in its config), or, for a run recorded without
    that mark, after it began.

    Only succeeded runs trained on ``dataset = 'warehouse'`` count: a failed run replaced no
    model, and one trained on a public corpus saw none of these labels. A label counts by when it
    was written (``stored_at``), not by ``decided_at``, the time of its last counting annotation on
    the annotators' clock: a label annotated before a training began but written by a later build
    (an annotation file imported after it, a build running while it trained) was never counted.
    """
    last = wh.scalar(load_sql("retraining_last_training"))
    written = "coalesce(stored_at, decided_at)" if "stored_at" in wh.columns("gold_labels") else "decided_at"
    return NewGoldLabels(int(wh.scalar(_GOLD_SINCE.format(written=written), [last, last])), last)
