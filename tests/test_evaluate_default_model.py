"""The evaluation flow scores the newest warehouse model when no model directory is given."""

import json
from datetime import datetime

import pytest

from warehouse import Warehouse
from warehouse.model_runs import latest_model_dir


def _run(run_id: str, dataset: str, started: datetime, status: str, path: str | None) -> dict:
    return {"run_id": run_id, "model_name": "cpu-full", "model_kind": "cpu", "config": json.dumps({"dataset": dataset}),
            "started_at": started, "status": status, "artifact_path": path}


def test_latest_model_is_the_newest_succeeded_warehouse_run(warehouse: Warehouse) -> None:
    assert latest_model_dir(warehouse) is None
    warehouse.insert_rows("model_runs", [
        _run("r1", "warehouse", datetime(2026, 1, 1), "succeeded", "models/r1"),
        _run("r2", "warehouse", datetime(2026, 2, 1), "failed", "models/r2"),       # failed: never the default
        _run("r3", "khouja", datetime(2026, 3, 1), "succeeded", "models/r3"),       # another corpus
        _run("r4", "warehouse", datetime(2026, 1, 15), "succeeded", "models/r4"),
    ])
    assert latest_model_dir(warehouse) == "models/r4"
    assert latest_model_dir(warehouse, "khouja") == "models/r3"


def test_evaluating_with_no_model_anywhere_is_a_clear_error(warehouse: Warehouse) -> None:
    from flows.evaluate import evaluate_stance_model

    path = warehouse.path
    warehouse.close()
    with pytest.raises(ValueError, match="no model has been trained on the warehouse"):
        evaluate_stance_model.fn(warehouse_path=str(path))


def test_a_recorded_training_starts_when_fitting_began_so_labels_decided_meanwhile_count(
        warehouse: Warehouse, tmp_path) -> None:
    from datetime import timedelta

    from helpers_stance import tiny_examples
    from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
    from tasks.stance.runs import record_run, train_and_save
    from warehouse.retraining import new_gold_labels

    path = warehouse.path
    warehouse.close()
    trained = train_and_save(CpuStanceModel(CpuModelConfig(variant="tfidf")), tiny_examples(), tmp_path / "m", "warehouse")
    decided_meanwhile = trained.run.started_at + timedelta(milliseconds=1)  # while the model was fitting
    record_run(path, trained.run, [], artifact_path=trained.directory)
    from warehouse import open_warehouse

    with open_warehouse(path) as wh:
        assert wh.scalar("SELECT started_at FROM model_runs") == trained.run.started_at
        wh.insert_rows("gold_labels", [{"pair_id": "p1", "label": "agree", "method": "agreed",
                                        "decided_at": decided_meanwhile}])
        assert new_gold_labels(wh).new_labels == 1


def test_run_results_pivot_per_split_in_the_methods_layout(warehouse: Warehouse) -> None:
    from warehouse.model_runs import run_results

    warehouse.insert_rows("model_runs", [_run("r1", "warehouse", datetime(2026, 1, 1), "succeeded", "m/r1")])
    metrics = {("f1", "agree"): 0.5, ("f1", "disagree"): 0.25, ("f1", "discuss"): 0.125, ("f1", "unrelated"): 0.875,
               ("accuracy", ""): 0.8, ("macro_f1", ""): 0.4375, ("macro_f1_low", ""): 0.25,
               ("macro_f1_high", ""): 0.625, ("support", "agree"): 3.0}
    warehouse.insert_rows("evaluations", [
        {"run_id": "r1", "dataset": "warehouse", "split": split, "metric": m, "label": lab, "value": v}
        for split in ("test", "dev") for (m, lab), v in metrics.items()])
    rows = run_results(warehouse, "r1")
    assert [r["split"] for r in rows] == ["dev", "test"]
    assert rows[0] == {"model": "cpu-full", "dataset": "warehouse", "split": "dev", "agree_f1": 0.5,
                       "disagree_f1": 0.25, "discuss_f1": 0.125, "unrelated_f1": 0.875, "accuracy": 0.8,
                       "macro_f1": 0.438, "macro_f1_low": 0.25, "macro_f1_high": 0.625}
