"""Stance-model records in the warehouse: gold examples in, model runs and their metrics out."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import duckdb

from warehouse.connection import Warehouse, WarehouseError
from warehouse.sql import load_sql


_START_RUN = """
INSERT INTO model_runs (run_id, model_name, model_kind, config, data_fingerprint, code_version, started_at, status)
VALUES (?, ?, ?, ?, ?, ?, ?, 'running')
"""

_FINISH_RUN = """
UPDATE model_runs SET finished_at = ?, status = ?, artifact_path = coalesce(?, artifact_path) WHERE run_id = ?
"""

_RUN_EXISTS = "SELECT count(*) FROM model_runs WHERE run_id = ?"

_DELETE_EVALUATION = "DELETE FROM evaluations WHERE run_id = ? AND dataset = ? AND split = ?"

_RUNS = """
SELECT run_id, model_name, model_kind, data_fingerprint, code_version, started_at, finished_at, artifact_path, status
FROM model_runs ORDER BY started_at DESC
"""

_LATEST_MODEL = """
SELECT artifact_path FROM model_runs
WHERE status = 'succeeded' AND artifact_path IS NOT NULL AND json_extract_string(config, '$.dataset') = ?
ORDER BY started_at DESC LIMIT 1
"""


@dataclass(frozen=True)
class ModelRun:
    """One training run: what was trained, on which data, by which code."""

    run_id: str
    model_name: str
    model_kind: str
    config: dict[str, Any]
    data_fingerprint: str
    code_version: str
    #: when training began (UTC); a gold label decided after it counts as new for retraining
    started_at: datetime | None = None


def gold_examples(wh: Warehouse, split: str) -> list[dict[str, Any]]:
    """The gold-labelled pairs of one split (rows of ``v_stance_examples``)."""
    try:
        return wh.query(load_sql("model_gold_examples"), [split])
    except duckdb.CatalogException as exc:
        raise _no_stance_view(wh, exc) from None


def gold_pair_count(wh: Warehouse, split: str) -> int:
    """How many pairs :func:`gold_examples` would return for ``split``, without reading them."""
    try:
        return int(wh.scalar(load_sql("model_gold_pair_count"), [split]))
    except duckdb.CatalogException as exc:
        raise _no_stance_view(wh, exc) from None


def gold_written_through(wh: Warehouse) -> datetime | None:
    """When the newest gold label was written (``stored_at``; None while none was, and on a schema
    older than that column, which a read-only open does not migrate: the trigger then counts from
    the run's start)."""
    try:
        if "stored_at" not in wh.columns("gold_labels"):
            return None
        return wh.scalar("SELECT max(stored_at) FROM gold_labels")
    except WarehouseError as exc:  # no gold_labels table: said as the split reads say it
        raise _no_stance_view(wh, exc) from None


def _no_stance_view(wh: Warehouse, exc: duckdb.CatalogException | WarehouseError) -> WarehouseError:
    """What to do about a warehouse older than the stance view (read-only opens do not migrate)."""
    return WarehouseError(f"warehouse {wh.path} lacks the stance view (run `arastance warehouse migrate`): {exc}")


def start_run(wh: Warehouse, run: ModelRun) -> None:
    """Record a run as started; a repeated run id is an error (runs are never overwritten). The check
    and the write are one transaction: on a DuckLake, under the catalog's write lock."""
    with wh.transaction():
        if wh.scalar(_RUN_EXISTS, [run.run_id]):
            raise WarehouseError(f"model run {run.run_id!r} is already recorded")
        wh.execute(
            _START_RUN,
            [run.run_id, run.model_name, run.model_kind, json.dumps(run.config, default=str),
             run.data_fingerprint, run.code_version, run.started_at or datetime.now(timezone.utc).replace(tzinfo=None)],
        )


def run_exists(wh: Warehouse, run_id: str) -> bool:
    return bool(wh.scalar(_RUN_EXISTS, [run_id]))


def finish_run(wh: Warehouse, run_id: str, *, succeeded: bool, artifact_path: str | None = None) -> None:
    """Mark a run finished, successfully or not, with where its model was saved (the check and the
    write in one transaction, as :func:`start_run`)."""
    with wh.transaction():
        if not wh.scalar(_RUN_EXISTS, [run_id]):
            raise WarehouseError(f"no model run {run_id!r} to finish")
        wh.execute(
            _FINISH_RUN,
            [datetime.now(timezone.utc).replace(tzinfo=None), "succeeded" if succeeded else "failed", artifact_path,
             run_id],
        )


def store_evaluation(wh: Warehouse, run_id: str, dataset: str, split: str, metrics: dict[str, Any]) -> int:
    """Replace the metrics of (run, dataset, split) in one transaction; returns the rows written.

    ``metrics`` holds ``accuracy``, ``macro_f1`` and per-label dictionaries ``f1``, ``precision``,
    ``recall``, ``support`` (label -> value). A NaN figure (a class on neither side of the split) gets no
    row: stored, it made a SQL ``avg`` or ``max`` over the classes NaN.
    """
    if not wh.scalar(_RUN_EXISTS, [run_id]):
        raise WarehouseError(f"no model run {run_id!r}; start the run before storing its evaluation")
    rows: list[dict[str, Any]] = []
    for metric, value in metrics.items():
        if isinstance(value, dict):
            rows.extend({"run_id": run_id, "dataset": dataset, "split": split, "metric": metric,
                         "label": label, "value": float(v)} for label, v in value.items() if not math.isnan(v))
        elif isinstance(value, (int, float)):
            rows.append({"run_id": run_id, "dataset": dataset, "split": split, "metric": metric,
                         "label": "", "value": float(value)})
    with wh.transaction():
        wh.con.execute(_DELETE_EVALUATION, [run_id, dataset, split])
        wh.insert_rows("evaluations", rows, on_conflict="error")
    return len(rows)


def model_runs(wh: Warehouse) -> list[dict[str, Any]]:
    """Every recorded run, newest first."""
    return wh.query(_RUNS)


def run_results(wh: Warehouse, run_id: str) -> list[dict[str, Any]]:
    """One row per (dataset, split) of a run: per-class F1, accuracy and macro-F1, rounded to 3 places."""
    rows = wh.query(load_sql("model_run_results"), [run_id])
    return [{k: round(v, 3) if isinstance(v, float) else v for k, v in row.items() if v is not None} for row in rows]


def latest_model_dir(wh: Warehouse, dataset: str = "warehouse") -> str | None:
    """Where the newest successfully trained model on ``dataset`` was saved, if any."""
    return wh.scalar(_LATEST_MODEL, [dataset])


def evaluations(wh: Warehouse, run_id: str | None = None) -> list[dict[str, Any]]:
    """Stored metrics, of one run or of all."""
    return wh.query(load_sql("model_evaluations"), [run_id, run_id])
