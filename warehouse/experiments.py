"""Experiment records: each run of ``arastance experiment ...`` and its table, in long form."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from warehouse.connection import Warehouse, WarehouseError
from warehouse.sql import load_sql


def store_experiment(wh: Warehouse, *, experiment_id: str, experiment: str, config: Mapping[str, Any],
                     code_version: str, started_at: datetime, rows: Sequence[Mapping[str, Any]]) -> int:
    """Store one finished experiment run and its result rows in one transaction; returns the rows
    written. A repeated experiment id is an error: runs are never overwritten."""
    if wh.scalar("SELECT count(*) FROM experiment_runs WHERE experiment_id = ?", [experiment_id]):
        raise WarehouseError(f"experiment run {experiment_id!r} is already recorded")
    with wh.transaction():
        wh.insert_rows("experiment_runs", [{
            "experiment_id": experiment_id, "experiment": experiment, "config": json.dumps(config, default=str),
            "code_version": code_version, "started_at": started_at,
            "finished_at": datetime.now(timezone.utc).replace(tzinfo=None),
        }], on_conflict="error")
        wh.insert_rows("experiment_results", list(rows), on_conflict="error")
    return len(rows)


def experiment_cells(wh: Warehouse, experiment_id: str) -> list[dict[str, Any]]:
    """Macro-F1 and accuracy of every cell of one run."""
    return wh.query(load_sql("experiment_cells"), [experiment_id])
