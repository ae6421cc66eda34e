"""Experiments on corpora the tests write: cross-dataset transfer and class imbalance, through the
CLI (real Prefect flows), with their tables in the warehouse, heat maps and artifacts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers_stance import (
    arastance_records,
    khouja_rows,
    tiny_examples,
    write_arastance,
    write_baly,
    write_khouja,
)
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.stance.experiments.imbalance import resample
from tasks.stance.experiments.training import in_scheme
from warehouse import open_warehouse
from warehouse.experiments import experiment_cells

runner = CliRunner()


def _split(examples):
    return [e for e in examples if e.claim_id != "c4"], [e for e in examples if e.claim_id == "c4"]


def _write_corpora(root: Path) -> dict[str, Path]:
    """The tiny corpus in three formats: AraStance and Baly (4-way), Khouja (3-way)."""
    train, dev = _split(tiny_examples())
    write_arastance(root / "arastance", "train", arastance_records(train))
    write_arastance(root / "arastance", "dev", arastance_records(dev))
    records = {r["id"]: {"claim": r["claim"], "article": r["article"], "stance": r["stance"]}
               for r in arastance_records(tiny_examples())}
    write_baly(root / "baly", {1: ["c1"], 2: ["c2"], 3: ["c3"], 4: ["c4"]}, records)
    train3, dev3 = _split(tiny_examples("3way"))
    write_khouja(root / "khouja", "train", khouja_rows(train3))
    write_khouja(root / "khouja", "dev", khouja_rows(dev3))
    return {name: root / name for name in ("arastance", "baly", "khouja")}


@pytest.fixture
def fast_cpu_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU model without e5 or tuning: the experiments' logic, not the model, is under test."""
    monkeypatch.setenv("ARASTANCE_MODEL__CPU_VARIANT", "tfidf_sim")
    monkeypatch.setenv("ARASTANCE_MODEL__AUTO_TUNE", "false")


def test_resampling_balances_the_training_labels_only() -> None:
    examples = [e for e in tiny_examples() if e.label != "disagree" or e.claim_id == "c1"]
    up, down = resample(examples, "up", seed=1), resample(examples, "down", seed=1)
    assert set(Counter(e.label for e in up).values()) == {4}
    assert set(Counter(e.label for e in down).values()) == {1}
    assert set(up) == set(examples) and set(down) <= set(examples)
    assert resample(examples, "up", seed=1) == up  # seeded
    with pytest.raises(ValueError, match="'up' or 'down'"):
        resample(examples, "sideways")
    assert {e.label for e in in_scheme(examples, "3way")} == {"agree", "disagree", "other"}


@pytest.mark.slow
def test_cross_dataset_matrix_is_stored_plotted_and_published(tmp_path: Path, fast_cpu_model: None) -> None:
    paths = _write_corpora(tmp_path / "corpora")
    args = ["experiment", "cross-dataset", *[f"--path={n}={p}" for n, p in paths.items()]]
    with prefect_test_harness(server_startup_timeout=180):
        done = runner.invoke(app, args)
        assert done.exit_code == 0, done.output
        from prefect import get_client

        with get_client(sync_client=True) as client:
            described = {a.key: a.description for a in client.read_artifacts()}
    assert described["experiment-cross-dataset"] == "Cross-dataset transfer: macro-F1 on dev splits"
    assert described["experiment-cross-dataset-heatmap"] == "Cross-dataset transfer: macro-F1 on dev splits: heat map"
    assert "| trained on \\ evaluated on | arastance | baly | khouja |" in done.output

    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        (run,) = wh.query("SELECT experiment_id, experiment, config FROM experiment_runs")
        cells = {(c["row_key"], c["column_key"]): c for c in experiment_cells(wh, run["experiment_id"])}
        per_class = wh.query("SELECT DISTINCT label FROM experiment_results WHERE metric = 'f1' "
                             "AND row_key = 'arastance' AND column_key = 'baly'")
        intervals = wh.query("SELECT row_key, column_key, macro_f1_low, macro_f1, macro_f1_high FROM v_experiment_cells")
    assert run["experiment"] == "cross-dataset" and len(cells) == 9
    assert cells[("arastance", "baly")]["scheme"] == "4way"
    assert cells[("baly", "khouja")]["scheme"] == cells[("khouja", "arastance")]["scheme"] == "3way"
    assert {r["label"] for r in per_class} == {"agree", "disagree", "discuss", "unrelated"}
    # in-domain on the tiny corpus (labels visible to simple features): perfect
    assert cells[("khouja", "khouja")]["macro_f1"] == pytest.approx(1.0)
    assert all(0.0 <= c["macro_f1"] <= 1.0 and 0.0 <= c["accuracy"] <= 1.0 for c in cells.values())
    # every cell carries macro-F1's claim-bootstrap interval, in SQL and in the table
    assert len(intervals) == 9 and all(c["macro_f1_low"] <= c["macro_f1"] <= c["macro_f1_high"] for c in intervals)
    out = load_settings().data_dir / "experiments" / run["experiment_id"]
    assert (out / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (out / "table.md").read_text(encoding="utf-8")
    assert table.startswith("# Cross-dataset transfer: macro-F1 on dev splits") and "trained on" in table
    assert "1.000 [1.000–1.000] / 1.000 (3)" in table and "Cells: macro-F1 [its 95 % claim-bootstrap interval]" in table


@pytest.mark.slow
def test_imbalance_compares_every_strategy_in_the_chosen_scheme(tmp_path: Path, fast_cpu_model: None) -> None:
    paths = _write_corpora(tmp_path / "corpora")
    with prefect_test_harness(server_startup_timeout=180):
        done = runner.invoke(app, ["experiment", "imbalance", "--dataset", "arastance", "--path",
                                   str(paths["arastance"]), "--scheme", "3way"])
        assert done.exit_code == 0, done.output
        bad = runner.invoke(app, ["experiment", "imbalance", "--dataset", "arastance", "--path",
                                  str(paths["arastance"]), "--strategy", "smote"])
        assert bad.exit_code == 2 and "unknown imbalance strategies ['smote']" in bad.output
        gpu = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                                  "--kind", "transformer"])
        assert gpu.exit_code == 2 and "two_step strategy needs the CPU model" in gpu.output
        four = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                                   "--scheme", "4way", "--strategy", "none"])
        assert four.exit_code == 2 and "cannot be read as 4-way" in four.output
    for strategy in ("none", "class_weighted", "upsampled", "downsampled", "two_step"):
        assert f"| {strategy} |" in done.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        (run,) = wh.query("SELECT experiment_id FROM experiment_runs WHERE experiment = 'imbalance'")
        rows = wh.query("SELECT row_key, scheme, label, value FROM experiment_results "
                        "WHERE experiment_id = ? AND metric = 'train_pairs'", [run["experiment_id"]])
        labels = {r["label"] for r in wh.query("SELECT DISTINCT label FROM experiment_results WHERE metric = 'f1'")}
    pairs = {r["row_key"]: r["value"] for r in rows}
    assert {r["scheme"] for r in rows} == {"3way"} and labels == {"agree", "disagree", "other"}
    # 12 training pairs in 3-way: agree 3, disagree 3, other 6
    assert pairs == {"none": 12, "class_weighted": 12, "upsampled": 18, "downsampled": 9, "two_step": 12}


def test_cross_dataset_refuses_unknown_or_missing_corpora(tmp_path: Path) -> None:
    unknown = runner.invoke(app, ["experiment", "cross-dataset", "--corpus", "baly", "--corpus", "snopes"])
    assert unknown.exit_code == 2 and "unknown corpora ['snopes']" in unknown.output
    missing = runner.invoke(app, ["experiment", "cross-dataset", "--corpus", "baly", "--corpus", "khouja",
                                  "--path", f"baly={tmp_path / 'nowhere'}"])
    assert missing.exit_code == 2 and "nowhere not found" in missing.output
    malformed = runner.invoke(app, ["experiment", "cross-dataset", "--path", "baly"])
    assert malformed.exit_code == 2 and "expected NAME=PATH" in malformed.output
    for command in ("cross-dataset", "imbalance"):
        kind = runner.invoke(app, ["experiment", command, "--kind", "forest"])
        assert kind.exit_code == 2 and "--kind 'forest' is not one of cpu, transformer, ensemble" in kind.output
    scheme = runner.invoke(app, ["experiment", "imbalance", "--scheme", "5way"])
    assert scheme.exit_code == 2 and "--scheme '5way' is not one of 4way, 3way" in scheme.output
