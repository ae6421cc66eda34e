"""End-to-end fine-tuning of a tiny random BERT on a toy Arabic stance task (no downloads)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_transformer import build_tiny_encoder, single_torch_thread, toy_examples

from arastance.config.model import ModelSettings
from tasks.stance.examples import StanceExample
from tasks.stance.metrics import evaluate
from tasks.stance.model import StanceModel, create_model, load_model
from tasks.stance.persistence import MANIFEST, ModelFormatError
from tasks.stance.runs import evaluate_split, train_and_save
from tasks.stance.transformer import TransformerConfig, TransformerStanceModel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    with single_torch_thread():
        yield


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="module")
def tiny_config(encoder: Path) -> TransformerConfig:
    # A random 2-layer BERT needs a far larger step than a pre-trained one (2e-5).
    return TransformerConfig(encoder=str(encoder), max_length=64, batch_size=16, learning_rate=1e-2,
                             epochs=12, patience=4, seed=1)


@pytest.fixture(scope="module")
def trained(tiny_config: TransformerConfig) -> TransformerStanceModel:
    return TransformerStanceModel(tiny_config).fit(toy_examples(160, seed=1, prefix="t"),
                                                   dev=toy_examples(40, seed=2, prefix="d"))


def test_fine_tuning_learns_the_toy_task_well_above_chance(trained: TransformerStanceModel) -> None:
    test = toy_examples(80, seed=3, prefix="x")
    scores = evaluate([ex.label for ex in test], trained.predict(test), trained.labels)
    assert scores.macro_f1 >= 0.8  # chance is 0.25 on four balanced classes
    outcome = trained.outcome
    assert outcome is not None and outcome.best_dev_macro_f1 is not None
    assert outcome.best_dev_macro_f1 > outcome.dev_macro_f1[0]
    assert outcome.dev_macro_f1[outcome.best_epoch - 1] == outcome.best_dev_macro_f1
    assert (outcome.device, outcome.precision, outcome.train_pairs, outcome.dev_pairs) == ("cpu", "fp32", 160, 40)
    proba = trained.predict_proba(test)
    assert proba.shape == (80, 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)


def test_save_then_load_gives_identical_predictions(trained: TransformerStanceModel, tmp_path: Path) -> None:
    test = toy_examples(40, seed=4, prefix="y")
    directory = trained.save(tmp_path / "model", data_fingerprint="abc")
    assert {"config.json", "model.safetensors", "tokenizer.json", MANIFEST} <= {p.name for p in directory.iterdir()}
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["kind"] == "transformer" and manifest["labels"] == list(trained.labels)
    assert manifest["data_fingerprint"] == "abc"
    assert manifest["training"]["best_epoch"] == trained.outcome.best_epoch
    assert manifest["epoch_chosen_on"] == "dev"  # the model card marks the dev score as the one that chose
    assert json.loads((directory / "config.json").read_text())["id2label"] == {str(i): lab for i, lab in enumerate(trained.labels)}

    loaded = load_model(directory)
    assert isinstance(loaded, TransformerStanceModel) and isinstance(loaded, StanceModel)
    assert loaded.config == trained.config and loaded.outcome == trained.outcome
    assert loaded.epoch_chosen_on == "dev"
    assert loaded.predict(test) == trained.predict(test)
    np.testing.assert_array_equal(loaded.predict_proba(test), trained.predict_proba(test))


def test_load_refuses_weights_that_disagree_with_the_manifest(trained: TransformerStanceModel, tmp_path: Path) -> None:
    directory = trained.save(tmp_path / "model")
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    manifest["config"]["scheme"] = "3way"
    manifest["labels"] = ["agree", "disagree", "other"]
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFormatError, match="classify into"):
        load_model(directory)
    (directory / "model.safetensors").unlink()
    manifest["config"]["scheme"], manifest["labels"] = "4way", list(trained.labels)
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFormatError, match="weights or tokenizer"):
        load_model(directory)


def test_load_refuses_a_tokenizer_that_lost_a_file_or_differs_from_its_record(
    trained: TransformerStanceModel, tmp_path: Path
) -> None:
    # it was: without tokenizer.json a 5-token tokenizer was rebuilt from tokenizer_config.json (every word
    # [UNK]), without tokenizer_config.json a default one folding أ into ا; both loaded and predicted, wrongly
    test = toy_examples(16, seed=4, prefix="y")
    directory = trained.save(tmp_path / "model")
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    assert {"tokenizer.json", "tokenizer_config.json"} <= set(manifest["tokenizer"]["files"])
    assert manifest["tokenizer"]["vocabulary"] == len(trained.tokenizer)
    for lost in ("tokenizer.json", "tokenizer_config.json"):
        trained.save(directory)
        (directory / lost).unlink()
        with pytest.raises(ModelFormatError, match=f"{directory} lacks its tokenizer's {lost}"):
            load_model(directory)
    trained.save(directory)
    record = manifest["tokenizer"]
    for damaged, message in (({**record, "vocabulary": record["vocabulary"] + 1},
                               f"has {record['vocabulary']} tokens, the manifest says {record['vocabulary'] + 1}"),
                              ({**record, "files": [*record["files"], "vocab.txt"]}, "lacks its tokenizer's vocab.txt"),
                              ("bert", "its tokenizer is not an object"),
                              ({**record, "vocabulary": "many"}, "its tokenizer cannot be read")):
        (directory / MANIFEST).write_text(json.dumps({**manifest, "tokenizer": damaged}), encoding="utf-8")
        with pytest.raises(ModelFormatError, match=message):
            load_model(directory)
    # a model saved before the record existed loads as before; the files every save wrote are still required
    (directory / MANIFEST).write_text(json.dumps({k: v for k, v in manifest.items() if k != "tokenizer"}), encoding="utf-8")
    np.testing.assert_array_equal(load_model(directory).predict_proba(test), trained.predict_proba(test))
    (directory / "tokenizer.json").unlink()
    with pytest.raises(ModelFormatError, match=f"{directory} lacks its tokenizer's tokenizer.json"):
        load_model(directory)


def test_a_model_trained_on_a_gpu_runs_where_it_is_loaded(trained: TransformerStanceModel, tmp_path: Path) -> None:
    # it was: the saved device and precision bound the model, so one trained on cuda in bf16 failed on a CPU
    # ("device 'cuda' was requested but torch ... sees no CUDA GPU"), whatever the settings said
    test = toy_examples(16, seed=4, prefix="y")
    directory = trained.save(tmp_path / "model")
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    manifest["config"].update(device="cuda", precision="bf16")
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    loaded = load_model(directory)  # without settings: what this machine has
    assert (loaded.config.device, loaded.config.precision) == ("auto", "auto")
    np.testing.assert_array_equal(loaded.predict_proba(test), trained.predict_proba(test))
    here = load_model(directory, settings=ModelSettings(transformer_device="cpu", transformer_precision="fp32"))
    assert (here.config.device, here.config.precision) == ("cpu", "fp32")
    assert here.runtime().device == "cpu"
    np.testing.assert_array_equal(here.predict_proba(test), trained.predict_proba(test))
    saved = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))["config"]
    assert (saved["device"], saved["precision"]) == ("cuda", "bf16")  # kept as a record of the training


def test_load_names_settings_saved_by_a_newer_version(trained: TransformerStanceModel, tmp_path: Path) -> None:
    directory = trained.save(tmp_path / "model")
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    for section in ("config", "training"):  # it was: TypeError: ... got an unexpected keyword argument
        edited = {**manifest, section: {**manifest[section], "future_knob": 1}}
        (directory / MANIFEST).write_text(json.dumps(edited), encoding="utf-8")
        with pytest.raises(ModelFormatError, match=f"its {section} holds 'future_knob', which this installation does not know"):
            load_model(directory)


def test_a_saved_max_length_beyond_what_the_encoder_reads_is_cut_to_it_at_load(
        trained: TransformerStanceModel, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # it was: loaded as saved, then the first input longer than the encoder's 128 positions failed with a
    # tensor-size message (a model trained on short pairs before training checked the setting)
    directory = trained.save(tmp_path / "model")
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    manifest["config"]["max_length"] = 1000
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tasks.stance.transformer"):
        loaded = load_model(directory)
    assert loaded.config.max_length == 128
    assert any("more than the encoder reads" in r.getMessage() for r in caplog.records)
    probe = toy_examples(1, seed=7, prefix="l")[0]
    long_pair = replace(probe, article=" ".join(ex.article for ex in toy_examples(40, seed=8)))
    proba = loaded.predict_proba([long_pair])
    assert proba.shape == (1, 4) and np.isclose(proba.sum(), 1.0)


def test_a_fixed_seed_gives_identical_results_and_another_seed_does_not(tiny_config: TransformerConfig) -> None:
    train, probe = toy_examples(64, seed=5, prefix="s"), toy_examples(16, seed=6, prefix="p")
    config = replace(tiny_config, epochs=2, dev_fraction=0.0)

    def run(seed: int) -> np.ndarray:
        return TransformerStanceModel(replace(config, seed=seed)).fit(train).predict_proba(probe)

    first = run(11)
    np.testing.assert_array_equal(first, run(11))
    assert not np.allclose(first, run(12))


def test_members_are_the_next_seeds_runs_averaged_and_are_saved_and_loaded_together(
    tiny_config: TransformerConfig, tmp_path: Path
) -> None:
    train, probe = toy_examples(64, seed=5, prefix="s"), toy_examples(16, seed=6, prefix="p")
    config = replace(tiny_config, epochs=2, dev_fraction=0.0)
    alone = [TransformerStanceModel(replace(config, seed=seed)).fit(train) for seed in (11, 12)]
    members = TransformerStanceModel(replace(config, seed=11, members=2)).fit(train)
    expected = (alone[0].predict_proba(probe) + alone[1].predict_proba(probe)) / 2
    np.testing.assert_allclose(members.predict_proba(probe), expected, rtol=0, atol=1e-6)
    assert not np.allclose(alone[0].predict_proba(probe), alone[1].predict_proba(probe))  # the average is of two answers
    assert members.name.endswith("-x2") and len(members.outcomes) == 2
    assert members.outcome == members.outcomes[0] and members.describe()["members_training"][1]["train_pairs"] == 64

    directory = members.save(tmp_path / "model")
    assert (directory / "member-2" / "model.safetensors").is_file() and not (directory / "member-3").exists()
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["config"]["members"] == 2 and len(manifest["members_training"]) == 2
    loaded = load_model(directory)
    assert isinstance(loaded, TransformerStanceModel) and loaded.outcomes == members.outcomes
    np.testing.assert_array_equal(loaded.predict_proba(probe), members.predict_proba(probe))
    weights = directory / "member-2" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])  # a copy cut short: it was safetensors' own error, naming nothing
    with pytest.raises(ModelFormatError, match=r"member-2: weights or tokenizer missing or unreadable"):
        load_model(directory)
    weights.unlink()
    with pytest.raises(ModelFormatError, match=r"member-2: weights or tokenizer missing"):
        load_model(directory)
    (directory / "member-2" / "config.json").unlink()  # it was: ValueError: Unrecognized model
    with pytest.raises(ModelFormatError, match=r"member-2: weights or tokenizer missing"):
        load_model(directory)
    members.save(directory)
    manifest["members_training"] = manifest["members_training"][:1]
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFormatError, match="members_training should list 2 members' training"):
        load_model(directory)


def test_several_members_show_transformers_report_of_the_new_head_once_and_say_how_long_the_rest_takes(
    tiny_config: TransformerConfig, caplog: pytest.LogCaptureFixture
) -> None:
    # transformers' own handler does not propagate; a handler on the reporting logger sees what passes its filters.
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    reporter = logging.getLogger("transformers.modeling_utils")
    reporter.addHandler(handler)
    try:
        config, train = replace(tiny_config, epochs=1, dev_fraction=0.0), toy_examples(32, seed=5, prefix="s")
        with caplog.at_level(logging.INFO, logger="tasks.stance.transformer"):
            TransformerStanceModel(replace(config, members=3)).fit(train)
        assert sum("LOAD REPORT" in message for message in seen) == 1  # it was 3: one per member
        # each member is one whole training: several on the CPU are warned about, and each says what is left
        [warning] = [r for r in caplog.records if r.levelno == logging.WARNING and r.name == "tasks.stance.transformer"]
        assert warning.getMessage().startswith("several encoders on the CPU") and warning.members == 3
        trained = [r for r in caplog.records if r.getMessage() == "member trained"]
        assert [(r.member, r.members) for r in trained] == [(1, 3), (2, 3), (3, 3)]
        assert trained[0].left_s >= trained[1].left_s >= trained[2].left_s == 0 and trained[0].seconds >= 0
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="tasks.stance.transformer"):
            TransformerStanceModel(config).fit(train)  # the next training reports again; one member says nothing more
        assert sum("LOAD REPORT" in message for message in seen) == 2
        assert not [r for r in caplog.records if r.name == "tasks.stance.transformer"
                    and (r.levelno == logging.WARNING or r.getMessage() == "member trained")]
    finally:
        reporter.removeHandler(handler)


def test_early_stopping_halts_after_patience_epochs_without_dev_gain(
    tiny_config: TransformerConfig, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    # A learning rate this small cannot move the predictions, so dev macro-F1 never improves.
    config = replace(tiny_config, learning_rate=1e-12, epochs=10, patience=2)
    with caplog.at_level(logging.INFO, logger="tasks.stance.transformer_training"):
        model = TransformerStanceModel(config).fit(toy_examples(32, seed=7, prefix="e"),
                                                   dev=toy_examples(16, seed=8, prefix="f"))
    assert model.outcome.epochs_run == 3  # the first epoch sets the best, two more fail to beat it
    assert model.outcome.best_epoch == 1
    assert len(set(model.outcome.dev_macro_f1)) == 1
    epochs = [r.epoch for r in caplog.records if r.getMessage() == "dev evaluation"]
    assert epochs == [1, 2, 3]
    # The Trainer's loss records reach the log, one per epoch, and never stdout (the CLI's tables).
    losses = [r for r in caplog.records if r.getMessage() == "training progress" and hasattr(r, "loss")]
    assert [round(r.epoch) for r in losses] == [1, 2, 3]
    assert "loss" not in capsys.readouterr().out


def test_without_a_dev_split_whole_claims_are_held_out(tiny_config: TransformerConfig) -> None:
    train = toy_examples(40, seed=9, prefix="h")
    model = TransformerStanceModel(replace(tiny_config, epochs=1, dev_fraction=0.25)).fit(train)
    assert model.outcome.dev_pairs == 10 and model.outcome.train_pairs == 30
    assert model.training_record()["epoch_chosen_on"] == "held_out"
    empty_dev = TransformerStanceModel(replace(tiny_config, epochs=1, dev_fraction=0.25)).fit(train, dev=[])
    assert empty_dev.outcome.dev_pairs == 0 and empty_dev.epoch_chosen_on is None  # nothing held out, last epoch kept
    assert model.outcome.epochs_run == 1 and len(model.outcome.dev_macro_f1) == 1


def test_symmetric_pairs_train_on_both_orders_and_the_implied_pairs(tiny_config: TransformerConfig,
                                                                     tmp_path: Path) -> None:
    claims = toy_examples(8, seed=15, prefix="k")
    # four headlines, each restated by one claim and denied by another, which implies one more pair each
    headlines = [f"{ex.claim} اليوم" for ex in claims[:4]]
    train = [replace(ex, article=headlines[i % 4], label="agree" if i < 4 else "disagree")
             for i, ex in enumerate(claims)]
    config = replace(tiny_config, epochs=1, dev_fraction=0.0, symmetric_pairs=True)
    model = TransformerStanceModel(config).fit(train)
    assert model.outcome.train_pairs == (8 + 4) * 2  # the listed and the implied pairs, each in both orders
    assert model.name.endswith("-symmetric")
    directory = model.save(tmp_path / "model")
    loaded = load_model(directory)
    assert isinstance(loaded, TransformerStanceModel) and loaded.config.symmetric_pairs
    np.testing.assert_array_equal(loaded.predict_proba(train), model.predict_proba(train))
    # a model saved before the setting existed reads its pairs in one order, as it was trained
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    del manifest["config"]["symmetric_pairs"]
    (directory / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert not TransformerStanceModel.load(directory).config.symmetric_pairs


def test_class_weighted_loss_trains_and_changes_the_model(tiny_config: TransformerConfig) -> None:
    # Imbalanced like real stance data: many unrelated pairs, few disagree.
    pool = toy_examples(120, seed=10, prefix="w")
    keep = {"unrelated": 30, "discuss": 12, "agree": 8, "disagree": 4}
    train: list[StanceExample] = []
    for ex in pool:
        if keep[ex.label] > 0:
            keep[ex.label] -= 1
            train.append(ex)
    probe = toy_examples(16, seed=11, prefix="q")
    config = replace(tiny_config, epochs=2, dev_fraction=0.0)
    plain = TransformerStanceModel(config).fit(train).predict_proba(probe)
    weighted_model = TransformerStanceModel(replace(config, class_weighted=True)).fit(train)
    assert weighted_model.name.endswith("-weighted")
    assert not np.allclose(plain, weighted_model.predict_proba(probe))


def test_plugs_into_the_shared_create_train_save_load_evaluate_path(encoder: Path, tmp_path: Path) -> None:
    settings = ModelSettings(transformer=str(encoder), max_length=64, learning_rate=1e-2, epochs=3, patience=2, seed=1,
                             transformer_members=2)
    model = create_model("transformer", settings, "4way", evidence="truncate")
    assert isinstance(model, TransformerStanceModel) and model.config.evidence == "truncate"
    assert model.config.members == 2
    test = toy_examples(24, seed=12, prefix="z")
    trained = train_and_save(model, toy_examples(48, seed=13, prefix="r"), tmp_path / "models", "toy",
                             dev=toy_examples(16, seed=14, prefix="v"))
    manifest = json.loads((trained.directory / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["run_id"] == trained.run.run_id and len(manifest["data_fingerprint"]) == 64
    assert manifest["config"]["members"] == 2 and len(manifest["members_training"]) == 2
    loaded = load_model(trained.directory)
    assert isinstance(loaded, TransformerStanceModel) and len(loaded.models) == 2
    result = evaluate_split(loaded, test, "toy", "test")
    assert result.evaluation.macro_f1 == evaluate([e.label for e in test], model.predict(test), model.labels).macro_f1
