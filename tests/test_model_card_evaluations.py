"""The model card shows the latest result of every evaluated split: training writes it, and every
later evaluation draws it again (it kept training's figures, and never showed a split evaluated later)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_stance import khouja_rows, tiny_examples, write_khouja
from typer.testing import CliRunner

from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.model_card import CARD, CARD_DATA, render_model_card, update_model_card, write_model_card
from tasks.stance.runs import evaluate_split

TRAIN_LINE = "- corpus: `tiny`, split `train`: 12 pairs, 3 claims"
LABELS_LINE = "- labels: agree 3, disagree 3, discuss 3, unrelated 3"


def _relabelled(examples: list) -> list:
    """The pairs with every label moved on by one: a model right on the pairs is wrong on all of these."""
    labels = ["agree", "disagree", "discuss", "unrelated"]
    return [replace(e, label=labels[(labels.index(e.label) + 1) % 4]) for e in examples]


@pytest.fixture
def trained(tmp_path: Path) -> tuple[CpuStanceModel, Path, list]:
    """A model trained on three claims and carded with its dev score (the fourth claim, all right)."""
    train = [e for e in tiny_examples() if e.claim_id != "c4"]
    dev = [e for e in tiny_examples() if e.claim_id == "c4"]
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", auto_tune=False)).fit(train)
    directory = model.save(tmp_path / "m", dataset="tiny")
    write_model_card(directory, train, [evaluate_split(model, dev, "tiny", "dev")])
    return model, directory, dev


def _sections(card: str) -> dict[str, str]:
    """Each split's section of a card, by its heading's ``dataset / split``."""
    evaluated = card.partition("## Evaluation\n")[2].partition("## Libraries")[0]
    return {part.split(" (")[0]: part for part in evaluated.split("### ")[1:]}


def test_an_evaluation_replaces_its_splits_result_and_adds_a_new_split(trained) -> None:
    model, directory, dev = trained
    assert "**1.000**" in _sections((directory / CARD).read_text(encoding="utf-8"))["tiny / dev"]
    card = update_model_card(directory, [evaluate_split(model, _relabelled(dev), "tiny", "dev"),
                                         evaluate_split(model, dev, "tiny", "test")]).read_text(encoding="utf-8")
    sections = _sections(card)
    assert list(sections) == ["tiny / dev", "tiny / test"]
    assert "| **macro** | | | **0.000** | 4 |" in sections["tiny / dev"]  # the latest dev score, not training's
    assert "| agree | 0 | 0 | 0 | 1 |" in sections["tiny / dev"]  # and its confusion matrix
    assert "| **macro** | | | **1.000** | 4 |" in sections["tiny / test"]
    assert TRAIN_LINE in card and LABELS_LINE in card  # what training recorded stays
    stored = json.loads((directory / CARD_DATA).read_text(encoding="utf-8"))
    assert [(r["dataset"], r["split"]) for r in stored["results"]] == [("tiny", "dev"), ("tiny", "test")]


def test_a_card_drawn_before_its_data_file_existed_keeps_what_it_shows(trained) -> None:
    model, directory, dev = trained
    (directory / CARD_DATA).unlink()  # as a model saved before the file was written
    before = _sections((directory / CARD).read_text(encoding="utf-8"))["tiny / dev"]
    card = update_model_card(directory, [evaluate_split(model, dev, "tiny", "test")]).read_text(encoding="utf-8")
    assert _sections(card) == {"tiny / dev": before, "tiny / test": _sections(card)["tiny / test"]}
    assert TRAIN_LINE in card and LABELS_LINE in card
    again = update_model_card(directory, [evaluate_split(model, _relabelled(dev), "tiny", "dev")])
    sections = _sections(again.read_text(encoding="utf-8"))
    assert list(sections) == ["tiny / dev", "tiny / test"] and "**0.000**" in sections["tiny / dev"]


def test_a_model_without_a_card_gets_one_at_its_first_evaluation(tmp_path: Path) -> None:
    train = [e for e in tiny_examples() if e.claim_id != "c4"]
    model = CpuStanceModel(CpuModelConfig(variant="tfidf", auto_tune=False)).fit(train)
    directory = model.save(tmp_path / "m", dataset="tiny")
    card = update_model_card(directory, [evaluate_split(model, train, "tiny", "dev")]).read_text(encoding="utf-8")
    assert list(_sections(card)) == ["tiny / dev"]
    assert "split `train`: ? pairs, ? claims" in card and "- labels: not recorded" in card


def test_damaged_card_data_is_drawn_again_from_the_card(trained, caplog: pytest.LogCaptureFixture) -> None:
    model, directory, dev = trained
    (directory / CARD_DATA).write_text('{"training": [], "results": 3}', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        card = update_model_card(directory, [evaluate_split(model, dev, "tiny", "test")]).read_text(encoding="utf-8")
    assert "the model card's data is damaged" in caplog.text
    assert list(_sections(card)) == ["tiny / dev", "tiny / test"] and TRAIN_LINE in card


def test_a_fine_tuned_encoders_card_checks_no_library_version() -> None:
    manifest = {"kind": "transformer", "labels": ["agree"], "config": {"encoder": "x"},
                "libraries": {"torch": "2.0", "transformers": "4.0", "tokenizers": "0.1", "safetensors": "0.4"}}
    libraries = render_model_card(manifest, {"training": {}, "results": []}).partition("## Libraries")[2]
    assert "Loading refuses" not in libraries
    assert "Recorded when it was saved; loading does not check them:\n\n- safetensors 0.4\n- tokenizers 0.1" in libraries


@pytest.mark.slow
def test_the_evaluate_command_draws_the_card_again(tmp_path: Path) -> None:
    from prefect.testing.utilities import prefect_test_harness

    from arastance.cli import app
    from arastance.config import load_settings

    runner = CliRunner()
    examples = tiny_examples("3way")
    corpus = tmp_path / "ans"
    write_khouja(corpus, "train", khouja_rows([e for e in examples if e.claim_id != "c4"]))
    dev = [e for e in examples if e.claim_id == "c4"]
    write_khouja(corpus, "dev", khouja_rows(dev))
    with prefect_test_harness(server_startup_timeout=180):
        trained = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--variant", "tfidf_sim"])
        assert trained.exit_code == 0, trained.output
        [model_dir] = (load_settings().data_dir / "models").iterdir()
        assert "**1.000**" in _sections((model_dir / CARD).read_text(encoding="utf-8"))["khouja / dev"]
        # the same claim and articles with other gold labels, and a test split scored for the first time
        swapped = {"agree": "disagree", "disagree": "agree", "other": "agree"}
        write_khouja(corpus, "dev", khouja_rows([replace(e, label=swapped[e.label]) for e in dev]))
        write_khouja(corpus, "test", khouja_rows(dev))
        for split in ("dev", "test"):
            evaluated = runner.invoke(app, ["evaluate", "--model", str(model_dir), "--dataset", "khouja", "--path",
                                            str(corpus), "--split", split])
            assert evaluated.exit_code == 0, evaluated.output
    sections = _sections((model_dir / CARD).read_text(encoding="utf-8"))
    assert list(sections) == ["khouja / dev", "khouja / test"]
    assert "| **macro** | | | **0.000** | 4 |" in sections["khouja / dev"]
    assert "| **macro** | | | **1.000** | 4 |" in sections["khouja / test"]


def test_a_class_on_neither_side_is_a_dash_in_the_card_and_null_in_its_data(trained) -> None:
    # it showed `nan` in the card, and its data file held a bare NaN, which jq and JavaScript refuse
    model, directory, dev = trained
    without_disagree = [e for e in dev if e.label != "disagree"]
    predicted = model.predict(without_disagree)
    assert "disagree" not in predicted  # the class is on neither side of this split
    update_model_card(directory, [evaluate_split(model, without_disagree, "tiny", "dev")])
    section = _sections((directory / CARD).read_text(encoding="utf-8"))["tiny / dev"]
    assert "| disagree | – | – | – | 0 |" in section
    text = (directory / CARD_DATA).read_text(encoding="utf-8")
    stored = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in {CARD_DATA}"))
    assert stored["results"][0]["evaluation"]["f1"]["disagree"] is None
    again = update_model_card(directory, [evaluate_split(model, dev, "tiny", "test")])  # drawn again from the data
    assert "| disagree | – | – | – | 0 |" in _sections(again.read_text(encoding="utf-8"))["tiny / dev"]


def test_a_dev_split_that_chose_the_epoch_is_marked_optimistic() -> None:
    # a fine-tuned encoder keeps the epoch best on dev, and the card showed that dev score beside test's as if
    # both were of pairs the training never saw
    card_data = {"training": {"pairs": 12, "claims": 3, "labels": None},
                 "results": [{"dataset": "khouja", "split": split, "markdown": f"### khouja / {split} (4 pairs, 9 pairs/s)"}
                             for split in ("dev", "test")]}
    note = "This split also chose the epoch kept"
    manifest = {"kind": "transformer", "dataset": "khouja", "labels": [], "epoch_chosen_on": "dev"}
    sections = _sections(render_model_card(manifest, card_data))
    assert note in sections["khouja / dev"] and note not in sections["khouja / test"]
    for other in ({**manifest, "epoch_chosen_on": "held_out"}, {**manifest, "dataset": "baly"}):
        assert note not in render_model_card(other, card_data)
