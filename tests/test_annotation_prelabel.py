"""Model-assisted annotation: predictions in the Label Studio tasks, uncertain pairs first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers_annotation import add_claims
from helpers_stance import tiny_examples
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.annotation.prelabel import margin_uncertainty, most_uncertain, predict_pairs
from tasks.annotation.workflow import export_round
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.labels import FOUR_WAY
from warehouse import annotation as store
from warehouse import open_warehouse

runner = CliRunner()


def _model(tmp_path: Path, scheme: str = "4way") -> Path:
    config = CpuModelConfig(variant="tfidf_sim", auto_tune=False, scheme=scheme)
    return CpuStanceModel(config).fit(tiny_examples(scheme)).save(tmp_path / f"model-{scheme}")


def test_margin_uncertainty_is_one_for_a_tie_and_zero_for_certainty() -> None:
    proba = np.array([[0.5, 0.5, 0, 0], [1.0, 0, 0, 0], [0.6, 0.3, 0.1, 0]])
    np.testing.assert_allclose(margin_uncertainty(proba), [1.0, 0.0, 0.7])


def test_production_round_takes_the_most_uncertain_pairs_with_predictions(tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        add_claims(wh, 6, 3)
        model = CpuStanceModel.load(_model(tmp_path))
        guesses = predict_pairs(model, store.pair_tasks(wh, store.unassigned_pair_ids(wh)), "run-7")
        assert len(guesses) == 18 and len({g.uncertainty for g in guesses.values()}) > 1
        done = export_round(wh, "production", load_settings().annotation, tmp_path / "tasks", size=5,
                            predictions=guesses)
        with pytest.raises(ValueError, match="a pilot measures agreement on a random sample"):
            export_round(wh, "pilot", load_settings().annotation, tmp_path / "tasks", size=2, predictions=guesses)
    expected = set(most_uncertain(sorted(guesses), guesses, 5))
    assert done.pairs == 5
    for annotator_file in sorted(done.directory.glob("*.json")):
        tasks = json.loads(annotator_file.read_text(encoding="utf-8"))
        ids = [t["data"]["pair_id"] for t in tasks]
        assert set(ids) <= expected
        unsure = [guesses[p].uncertainty for p in ids]
        assert unsure == sorted(unsure, reverse=True)  # most uncertain first
        for t in tasks:
            (prediction,) = t["predictions"]
            guess = guesses[t["data"]["pair_id"]]
            assert prediction["model_version"] == "run-7" and prediction["score"] == guess.score
            assert 0.25 <= prediction["score"] <= 1.0
            assert prediction["result"] == [{"from_name": "stance", "to_name": "article", "type": "choices",
                                             "value": {"choices": [guess.label]}}]
            assert guess.label in FOUR_WAY


def test_export_command_attaches_a_models_predictions_or_says_why_not(tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        add_claims(wh, 4, 2)
    newest = runner.invoke(app, ["annotate", "export", "production", "--predictions"])
    assert newest.exit_code == 2 and "no model has been trained on the warehouse yet" in newest.output
    three = runner.invoke(app, ["annotate", "export", "production", "--model", str(_model(tmp_path, "3way"))])
    assert three.exit_code == 2 and "annotation needs a 4-way model" in three.output
    pilot = runner.invoke(app, ["annotate", "export", "pilot", "--model", str(_model(tmp_path))])
    assert pilot.exit_code == 2 and "without model suggestions" in pilot.output
    done = runner.invoke(app, ["annotate", "export", "production", "--size", "3", "--model", str(_model(tmp_path))])
    assert done.exit_code == 0, done.output
    [version] = re.findall(r"predictions of model (imported-model-4way-[0-9a-f]{8}) attached", done.output)
    tasks = json.loads((load_settings().data_dir / "annotation" / "prod-1" / "ann-1.json").read_text(encoding="utf-8"))
    assert tasks and all(t["predictions"][0]["model_version"] == version for t in tasks)


def test_export_command_refuses_an_empty_round_size_and_a_damaged_model(tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        add_claims(wh, 4, 2)
    for size in ("0", "-3"):
        refused = runner.invoke(app, ["annotate", "export", "pilot", "--size", size])
        assert refused.exit_code == 2 and "--size" in refused.output
    damaged = _model(tmp_path)
    pickled = damaged / "model.joblib"
    pickled.write_bytes(pickled.read_bytes()[:200])  # cut short, as by a full disk
    broken = runner.invoke(app, ["annotate", "export", "production", "--model", str(damaged)])
    assert broken.exit_code == 2, broken.output
    assert f"{pickled}: damaged, cannot be unpickled" in broken.output.replace("\n", "")
    pickled.unlink()
    missing = runner.invoke(app, ["annotate", "export", "production", "--model", str(damaged)])
    assert missing.exit_code == 2 and f"{pickled} does not exist, so the model directory is incomplete" in \
        missing.output.replace("\n", "")
    with open_warehouse(load_settings().warehouse) as wh:
        assert store.round_kinds(wh) == {}  # nothing refused left a round behind
