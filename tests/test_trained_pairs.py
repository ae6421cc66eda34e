"""A saved model keeps which pairs it was trained on, and evaluate warns when a split holds any of them:
``evaluate --split train``, or a copy of the training file given as dev, scored 1.0 with nothing to say so."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_stance import khouja_rows, tiny_examples, write_khouja
from prefect.testing.utilities import prefect_test_harness

from flows.evaluate import evaluate_stance_model
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.runs import train_and_save
from tasks.stance.trained_pairs import TRAINED_PAIRS, pair_hashes, save_trained_pairs, warn_if_trained_on
from warehouse import Warehouse


def test_a_pair_is_known_by_its_texts_whatever_its_spacing_ids_or_label(tmp_path: Path) -> None:
    examples = tiny_examples()
    first = examples[0]
    copy = replace(first, claim=f"  {first.claim}\n", article=first.article.replace(" ", "  "), claim_id="other",
                   article_id="x", label="unrelated" if first.label != "unrelated" else "agree")
    assert pair_hashes([first])[0] == pair_hashes([copy])[0]
    assert pair_hashes([replace(first, article=first.article + " و")])[0] != pair_hashes([first])[0]
    save_trained_pairs(tmp_path, examples[:5])
    assert warn_if_trained_on(tmp_path, [copy, *examples[5:]], "tiny", "dev") == 1
    assert warn_if_trained_on(tmp_path / "saved-before", examples, "tiny", "dev") is None  # nothing kept: no claim
    for damaged in (b"", b"\x93NUMPY", b"not an array"):  # empty raised EOFError
        (tmp_path / TRAINED_PAIRS).write_bytes(damaged)
        assert warn_if_trained_on(tmp_path, examples, "tiny", "dev") is None


def test_evaluate_warns_of_a_split_the_model_was_trained_on(warehouse: Warehouse, tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    examples = tiny_examples("3way")
    train = [e for e in examples if e.claim_id != "c4"]
    corpus = tmp_path / "ans"
    write_khouja(corpus, "train", khouja_rows(train))
    write_khouja(corpus, "dev", khouja_rows([e for e in examples if e.claim_id == "c4"]))
    path = warehouse.path
    warehouse.close()
    trained = train_and_save(CpuStanceModel(CpuModelConfig(variant="tfidf", auto_tune=False, scheme="3way")),
                             train, tmp_path / "models", "khouja")
    assert (trained.directory / TRAINED_PAIRS).is_file()
    with prefect_test_harness(server_startup_timeout=180), caplog.at_level(logging.WARNING):
        evaluate_stance_model(model_dir=str(trained.directory), dataset="khouja", path=str(corpus),
                              splits=["train", "dev"], warehouse_path=str(path))
    warned = [r for r in caplog.records if "in the model's training data" in r.getMessage()]
    assert [(r.split, r.trained_on, r.pairs) for r in warned] == [("train", len(train), len(train))]
