"""Experiments on corpora the tests write: cross-dataset transfer and class imbalance, through the
CLI (real Prefect flows), with their tables in the warehouse, heat maps and artifacts."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

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
from flows.experiments import imbalance_experiment
from tasks.stance.experiments.cross_dataset import locate_corpora
from tasks.stance.experiments.imbalance import check_strategies, imbalance, resample
from tasks.stance.experiments.training import in_scheme, model_factory
from warehouse import Warehouse, open_warehouse
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
    # each row its own headline: the tiny corpus's one unrelated article, shared by every claim, would make
    # its Khouja train one group of pairs linked by a sentence, from which no claims can be held out
    write_khouja(root / "khouja", "train", [{**row, "s1": f"{row['s1']} ({i})"} for i, row in enumerate(khouja_rows(train3))])
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


class _Answering:
    """A trained model's stand-in that answers every pair right: what imbalance asks for is under test."""

    labels = ("agree", "disagree", "discuss", "unrelated")

    def fit(self, examples, dev=None):  # noqa: ANN001, ANN201, ARG002
        return self

    def predict(self, examples):  # noqa: ANN001, ANN201
        return [e.label for e in examples]


class _Recording:
    """A model factory of ``kind`` that builds the real model (when given ``real``), keeps it and the
    overrides it was asked for, and hands back a stand-in that trains in no time."""

    def __init__(self, kind: str, real: Any = None) -> None:
        self.kind, self.real, self.asked, self.built = kind, real, [], []

    def __call__(self, scheme, **overrides):  # noqa: ANN001, ANN003, ANN204
        self.asked.append(overrides)
        if self.real is not None:
            self.built.append(self.real(scheme, **overrides))
        return _Answering()


def test_only_the_two_step_row_is_two_stage_whatever_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """With model.two_stage on, every row was two-stage: the others never said two_stage=False."""
    monkeypatch.setenv("ARASTANCE_MODEL__TWO_STAGE", "true")
    cpu = _Recording("cpu", model_factory(load_settings(), "cpu"))
    imbalance("tiny", tiny_examples(), tiny_examples(), "4way", cpu)
    assert [m.config.two_stage for m in cpu.built] == [False, False, False, False, True]
    ensemble = _Recording("ensemble", model_factory(load_settings(), "ensemble"))
    imbalance("tiny", tiny_examples(), tiny_examples(), "4way", ensemble, ["none", "two_step"])
    assert [m.cpu.config.two_stage for m in ensemble.built] == [False, True]
    # a model without a CPU part has no stages: nothing is passed (its config would refuse it)
    transformer = _Recording("transformer")
    imbalance("tiny", tiny_examples(), tiny_examples(), "4way", transformer, ["none", "class_weighted"])
    assert transformer.asked == [{"class_weighted": False}, {"class_weighted": True}]


def test_the_default_strategies_are_those_the_model_kind_runs() -> None:
    # it was: every strategy, so the README's `--kind transformer` run stopped on two_step before training
    assert check_strategies(None, "transformer") == ["none", "class_weighted", "upsampled", "downsampled"]
    assert check_strategies([], "cpu") == check_strategies(None, "ensemble") == [
        "none", "class_weighted", "upsampled", "downsampled", "two_step"]


def test_a_repeated_strategy_is_refused_before_any_training(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"imbalance strategies \['none'\] given more than once"):
        check_strategies(["none", "class_weighted", "none"], "cpu")
    paths = _write_corpora(tmp_path / "corpora")
    done = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                               "--strategy", "upsampled", "--strategy", "none", "--strategy", "upsampled"])
    assert done.exit_code == 2 and "imbalance strategies ['upsampled'] given more than once" in done.output
    assert not (load_settings().data_dir / "experiments").exists()  # nothing ran


def _add_gold_training_pair(wh: Warehouse) -> None:
    now = datetime(2024, 1, 1)
    wh.insert_rows("claims", [{"claim_id": "k1", "source_id": "araanews", "url": "https://a/k1",
                               "canonical_url": "https://a/k1", "cleaned_text": "ادعاء", "veracity": "false",
                               "first_seen": now, "last_seen": now, "status": "active"}])
    wh.insert_rows("articles", [{"article_id": "a1", "url": "https://n/a1", "canonical_url": "https://n/a1",
                                 "title": "عنوان", "text": "نص المقال", "fetch_status": "ok"}])
    wh.insert_rows("claim_article_pairs", [{"pair_id": "p1", "claim_id": "k1", "article_id": "a1", "created_at": now}])
    wh.insert_rows("gold_labels", [{"pair_id": "p1", "label": "agree", "method": "agreed", "decided_at": now}])
    wh.insert_rows("splits", [{"claim_id": "k1", "split": "train", "assigned_at": now}])


def test_cross_dataset_takes_the_warehouse_only_once_it_has_gold_training_pairs(tmp_path: Path) -> None:
    """Any run creates the warehouse (this experiment's first run too, storing its table): by its file
    alone a second run took it as a corpus, and failed on its empty train split."""
    paths = _write_corpora(tmp_path / "corpora")
    settings = load_settings()
    with open_warehouse(settings.warehouse):
        pass  # a migrated warehouse with no gold pairs, where the settings put it
    assert list(locate_corpora(settings, None, paths)) == ["arastance", "baly", "khouja"]
    # named, it is used as it is (its loader then says which split has no examples)
    assert list(locate_corpora(settings, ["warehouse", "baly"], paths)) == ["warehouse", "baly"]
    with open_warehouse(settings.warehouse) as wh:
        _add_gold_training_pair(wh)
    assert list(locate_corpora(settings, None, paths)) == ["warehouse", "arastance", "baly", "khouja"]


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
                                  "--kind", "transformer", "--strategy", "none", "--strategy", "two_step"])
        assert gpu.exit_code == 2 and "two_step strategy needs the CPU model" in gpu.output
        four = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                                   "--scheme", "4way", "--strategy", "none"])
        assert four.exit_code == 2 and "cannot be read as 4-way" in four.output
        # a file as the output directory: refused before training (it failed once the run was stored)
        notes = tmp_path / "notes.txt"
        notes.write_text("x", encoding="utf-8")
        to_file = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                                      "--strategy", "none", "--out", str(notes)])
        assert to_file.exit_code == 2 and f"--out {notes} is a file, not a directory" in to_file.output.replace("\n", "")
        with pytest.raises(NotADirectoryError, match=re.escape(f"out_dir {notes} is a file, not a directory")):
            imbalance_experiment(dataset="khouja", path=str(paths["khouja"]), strategies=["none"], out_dir=str(notes))
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


@pytest.mark.slow
def test_a_run_records_the_model_its_settings_resolved_and_its_corpora(tmp_path: Path, fast_cpu_model: None,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The config held only the kind, the split and an encoder given with --encoder: runs of two CPU
    variants, or of two encoders set in the settings, could not be told apart (the README's SQL read
    NULL for config->>'encoder')."""
    from helpers_transformer import build_tiny_encoder, single_torch_thread

    paths = _write_corpora(tmp_path / "corpora")
    encoder = str(build_tiny_encoder(tmp_path / "tiny-bert"))
    for name, value in (("TRANSFORMER", encoder), ("MAX_LENGTH", "64"), ("EPOCHS", "1")):
        monkeypatch.setenv(f"ARASTANCE_MODEL__{name}", value)
    with single_torch_thread(), prefect_test_harness(server_startup_timeout=180):
        cpu = runner.invoke(app, ["experiment", "cross-dataset", f"--path=baly={paths['baly']}",
                                  f"--path=khouja={paths['khouja']}"])
        assert cpu.exit_code == 0, cpu.output
        tuned = runner.invoke(app, ["experiment", "imbalance", "--dataset", "khouja", "--path", str(paths["khouja"]),
                                    "--kind", "transformer", "--strategy", "none"])
        assert tuned.exit_code == 0, tuned.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        configs = {r["experiment"]: json.loads(r["config"]) for r in wh.query(
            "SELECT experiment, config FROM experiment_runs")}
        encoders = wh.query("SELECT DISTINCT r.experiment, r.config->>'encoder' AS encoder "
                            "FROM v_experiment_run_cells c JOIN experiment_runs r USING (experiment_id) ORDER BY 1")
    crossed, imbalanced = configs["cross-dataset"], configs["imbalance"]
    assert (crossed["kind"], crossed["split"], crossed["corpora"]) == ("cpu", "dev", ["baly", "khouja"])
    assert crossed["paths"] == {"baly": str(paths["baly"]), "khouja": str(paths["khouja"])}
    assert (crossed["model"]["variant"], crossed["model"]["auto_tune"]) == ("tfidf_sim", False)
    # each cell has its own scheme; a CPU model has no encoder
    assert "scheme" not in crossed["model"] and "encoder" not in crossed
    assert (imbalanced["kind"], imbalanced["encoder"], imbalanced["paths"]) == (
        "transformer", encoder, {"khouja": str(paths["khouja"])})
    assert (imbalanced["model"]["encoder"], imbalanced["model"]["epochs"], imbalanced["model"]["max_length"]) == (
        encoder, 1, 64)
    assert [(r["experiment"], r["encoder"]) for r in encoders] == [("cross-dataset", None), ("imbalance", encoder)]


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
