"""Khouja's pairs are grouped by every sentence they share, so that a hold-out by claim id holds out no
text it trains on: a sentence is often the claim of one pair and the headline of others."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import write_khouja

from tasks.stance.cpu_model import tuning_folds
from tasks.stance.datasets import DatasetError, load_split
from tasks.stance.examples import StanceExample
from tasks.stance.sentence_pairs import symmetric_training_pairs
from tasks.stance.transformer import split_dev_by_claim


def _linked_rows(stories: int) -> list[dict[str, str]]:
    """Per story a headline, a claim restating it and one contradicting it, and the pair the shared
    headline implies, listed as Khouja lists such pairs: the restating claim is its headline (s1)."""
    rows = []
    for i in range(stories):
        headline = f"الوزير رقم {i} يعلن افتتاح الجسر الجديد في المدينة"
        restating = f"الوزير رقم {i} يفتتح الجسر الجديد"
        contradicting = f"الوزير رقم {i} يرفض افتتاح الجسر الجديد"
        rows += [{"s1": headline, "s2": restating, "stance": "agree"},
                 {"s1": headline, "s2": contradicting, "stance": "disagree"},
                 {"s1": restating, "s2": contradicting, "stance": "disagree"}]
    return rows


def _texts(pairs: list[StanceExample]) -> set[str]:
    return {text for pair in pairs for text in (pair.claim, pair.article)}


def test_khouja_pairs_sharing_a_sentence_as_claim_or_headline_are_one_group(tmp_path: Path) -> None:
    # it was: grouped by the claim (s2) alone, the third pair of a story was a group of its own
    rows = _linked_rows(3)
    rows.append({"s1": "هدوء في  طرابلس", "s2": "اشتباكات في طرابلس", "stance": "disagree"})
    rows.append({"s1": "اشتباكات عنيفة في طرابلس", "s2": "هدوء في طرابلس", "stance": "disagree"})  # the spacing differs
    write_khouja(tmp_path, "train", rows)
    pairs = load_split("khouja", tmp_path, "train")
    groups = [pair.claim_id for pair in pairs]
    assert groups[0] == groups[1] == groups[2] != groups[3] and groups[-1] == groups[-2]
    assert len(set(groups)) == 4 and pairs[-2].article == "هدوء في  طرابلس"  # the text itself is kept as written
    random.Random(1).shuffle(rows)  # the group's id does not depend on the order of the rows
    write_khouja(tmp_path, "train", rows)
    again = {(p.claim, p.article): p.claim_id for p in load_split("khouja", tmp_path, "train")}
    assert again == {(p.claim, p.article): p.claim_id for p in pairs}


def test_khouja_claim_hold_outs_train_on_no_text_they_hold_out(tmp_path: Path) -> None:
    """The CPU model's tuning folds and the encoder's held-out claims (early stopping, the ensemble's
    weight) group by claim id; each held out a claim whose own text and headline it trained on."""
    write_khouja(tmp_path, "train", _linked_rows(20))
    train = load_split("khouja", tmp_path, "train")
    fit, held = split_dev_by_claim(train, 0.1, 42)
    assert held and not _texts(held) & _texts(symmetric_training_pairs(fit))
    folds = tuning_folds(np.asarray([pair.claim_id for pair in train]), 3, 42)
    for fitted, held_out in folds:
        assert not _texts([train[i] for i in held_out]) & _texts([train[i] for i in fitted])
    assert sorted(len(held_out) for _, held_out in folds) == [18, 21, 21]  # whole stories of three pairs


def test_khouja_file_most_of_whose_pairs_share_sentences_is_warned_of(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """One headline for every unrelated claim makes one group of them all, which no hold-out by claim
    can split: the warning says why, where training then finds one "claim" in a file of several."""
    rows = _linked_rows(3)
    write_khouja(tmp_path, "dev", rows)
    with caplog.at_level(logging.WARNING):
        load_split("khouja", tmp_path, "dev")
        rows += [{"s1": "فاز الفريق المحلي بالمباراة النهائية", "s2": claim, "stance": "other"}
                 for claim in dict.fromkeys(row["s2"] for row in rows)]
        write_khouja(tmp_path, "train", rows)
        load_split("khouja", tmp_path, "train")
    assert [(r.file, r.group_pairs, r.group_claims, r.pairs) for r in caplog.records] == [
        (str(tmp_path / "train.csv"), 15, 6, 15)]


def test_khouja_file_of_no_rows_is_an_empty_split(tmp_path: Path) -> None:
    write_khouja(tmp_path, "dev", [])
    with pytest.raises(DatasetError, match="the dev split of khouja has no examples"):
        load_split("khouja", tmp_path, "dev")
