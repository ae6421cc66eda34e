"""Corpus files damaged in ways that used to load silently wrong or crash: a Khouja quotation mark
never closed, a claim-article pair listed twice, a fold with no claims, a dev split repeating train's
claims; and a BOM that is no damage."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_stance import arastance_records, khouja_rows, tiny_examples, write_arastance, write_baly, write_khouja

from tasks.stance.datasets import DatasetError, load_split

# -- Khouja 2020 (ANS) ---------------------------------------------------------------------------

_KHOUJA_ROWS = ["s1,s2,stance",
                '"عاجل: الصحة تنفي وجود إصابات جديدة,الصحة تؤكد وجود إصابات,disagree',
                "ارتفاع أسعار النفط,النفط يرتفع,agree",
                "هدوء في طرابلس,اشتباكات في طرابلس,disagree",
                'الرئيس يلتقي "الوفد",الرئيس يرفض لقاء الوفد,disagree',
                "الدولار يستقر,الدولار ينهار,disagree"]


def test_khouja_quote_never_closed_is_refused_where_the_field_opens(tmp_path: Path) -> None:
    """The headline opening with a quotation mark ran on to the next one in the file: five rows came
    back as two pairs, three swallowed into one headline, with no error."""
    path = tmp_path / "train.csv"
    path.write_text("\n".join(_KHOUJA_ROWS) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"train\.csv, line 2: field 's1' runs on to line 5, but a Khouja field is "
                                           r"one line \(a quotation mark opening it and never closed\?\)"):
        load_split("khouja", tmp_path, "train")
    path.write_text("\r\n".join(_KHOUJA_ROWS) + "\r\n", encoding="utf-8")  # as Windows writes them: the same lines
    with pytest.raises(DatasetError, match=r"line 2: field 's1' runs on to line 5"):
        load_split("khouja", tmp_path, "train")
    quoted = ["s1,s2,stance", '"الصحة: لا إصابات جديدة",الصحة تؤكد وجود إصابات,disagree', *_KHOUJA_ROWS[2:4]]
    path.write_text("\n".join(quoted) + "\n", encoding="utf-8")  # a quoted field closed is read as before
    assert [e.article for e in load_split("khouja", tmp_path, "train")][0] == "الصحة: لا إصابات جديدة"


def test_khouja_quote_never_closed_in_a_corpus_sized_file_is_a_clear_error(tmp_path: Path) -> None:
    """Past csv's field size limit the reader raised ``_csv.Error``, a traceback naming no file."""
    rows = [{"s1": f"عنوان الخبر رقم {i} عن الاقتصاد والسياسة", "s2": f"ادعاء {i}", "stance": "agree"}
            for i in range(4000)]
    path = write_khouja(tmp_path, "train", rows)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[5] = '"' + lines[5]
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_split("khouja", tmp_path, "train")
    message = str(err.value)
    assert message.startswith(f"{path}, line 6: not valid CSV (field larger than field limit")
    assert "a quotation mark opening a field and never closed?" in message and "\n" not in message


def test_khouja_repeated_pair_is_refused_naming_both_lines_and_the_labels(tmp_path: Path) -> None:
    rows = khouja_rows(tiny_examples("3way"))
    write_khouja(tmp_path, "train", [*rows, rows[1]])
    with pytest.raises(DatasetError, match=r"train\.csv, line 18: the same claim and article as line 3, with the same "
                                           r"label 'disagree' \(duplicated\)"):
        load_split("khouja", tmp_path, "train")
    write_khouja(tmp_path, "train", [*rows, {**rows[1], "stance": "Agree"}])
    with pytest.raises(DatasetError, match=r"line 18: the same claim and article as line 3, labelled 'disagree' there "
                                           r"and 'agree' here \(duplicated\)"):
        load_split("khouja", tmp_path, "train")
    write_khouja(tmp_path, "train", [*rows, {**rows[1], "s2": "ادعاء آخر"}])  # a headline under two claims is fine
    assert len(load_split("khouja", tmp_path, "train")) == 17


# -- AraStance JSON Lines ------------------------------------------------------------------------


def test_arastance_file_with_a_utf8_bom_is_read(tmp_path: Path) -> None:
    """As the Baly and Khouja readers read one; line 1 was refused as 'Unexpected UTF-8 BOM'."""
    path = write_arastance(tmp_path, "train", arastance_records(tiny_examples()))
    expected = load_split("arastance", tmp_path, "train")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_split("arastance", tmp_path, "train") == expected


def test_arastance_repeated_claim_article_pair_is_refused_naming_both_lines(tmp_path: Path) -> None:
    """Records were compared whole, so a claim's record added again with one label changed gave the
    same article labelled agree and disagree."""
    records = arastance_records(tiny_examples())
    changed = json.loads(json.dumps(records[0]))
    changed["stance"][0] = "Disagree"
    write_arastance(tmp_path, "train", [*records, changed])
    with pytest.raises(DatasetError, match=r"train\.jsonl, line 5, article 0: the same claim and article as line 1, "
                                           r"article 0, labelled 'agree' there and 'disagree' here \(duplicated\)"):
        load_split("arastance", tmp_path, "train")
    one_claim = {"claim": "خبر", "article": ["نص", "نص آخر", "نص"], "stance": ["agree", "discuss", "agree"]}
    write_arastance(tmp_path, "train", [one_claim])
    with pytest.raises(DatasetError, match=r"line 1, article 2: the same claim and article as line 1, article 0, "
                                           r"with the same label 'agree' \(duplicated\)"):
        load_split("arastance", tmp_path, "train")
    other_claim = {"claim": "خبر آخر", "article": ["نص"], "stance": ["disagree"]}
    write_arastance(tmp_path, "train", [{**one_claim, "article": ["نص"], "stance": ["agree"]}, other_claim])
    assert len(load_split("arastance", tmp_path, "train")) == 2  # one article under two claims is two pairs
    # one text at two addresses (a wire story on two sites), as the pipeline's own export holds it: two pairs
    wire = {"claim": "خبر", "article": ["نص الوكالة", "نص الوكالة"], "stance": ["disagree", "disagree"],
            "article_title": ["عنوان أ", "عنوان ب"], "article_url": ["https://a.example/1", "https://b.example/2"]}
    write_arastance(tmp_path, "train", [wire])
    assert len(load_split("arastance", tmp_path, "train")) == 2
    # one rumour debunked by two sites, two claims under their own ids that found one article, as the
    # pipeline's export holds them (it was refused as "duplicated", so the demo's own export could not train)
    rumour = {"claim": "خبر", "article": ["نص"], "stance": ["agree"], "article_url": ["https://a.example/1"]}
    write_arastance(tmp_path, "train", [{**rumour, "id": "dabegad-1"}, {**rumour, "id": "araanews-7"}])
    assert [e.claim_id for e in load_split("arastance", tmp_path, "train")] == ["dabegad-1", "araanews-7"]
    write_arastance(tmp_path, "train", [{**rumour, "id": "dabegad-1"}, {**rumour, "id": "dabegad-1"}])
    with pytest.raises(DatasetError, match=r"line 2, article 0: the same claim and article as line 1"):
        load_split("arastance", tmp_path, "train")  # one claim's line twice is still refused


# -- a claim in two splits ----------------------------------------------------------------------

_SHARED = "claims of this split are in the train split too"


def _write_corpus(name: str, root: Path, split: str, rows: list) -> Path:
    """``rows`` (tiny examples) as ``split`` of an AraStance- or Khouja-format corpus."""
    if name == "arastance":
        return write_arastance(root, split, arastance_records(rows))
    return write_khouja(root, split, khouja_rows(rows))


@pytest.mark.parametrize("name", ["arastance", "khouja"])
def test_a_dev_split_sharing_claims_with_train_is_warned_once_naming_both_files(
        name: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`train` read dev pairs copied from train and scored 1.0 on them without a word. The published
    Khouja splits share a claim, so it is a warning; the pairs are kept, as the split is the benchmark."""
    examples = tiny_examples("3way" if name == "khouja" else "4way")
    train_path = _write_corpus(name, tmp_path, "train", examples)
    dev_path = _write_corpus(name, tmp_path, "dev", examples[:4])  # claim c1 with its four articles
    with caplog.at_level(logging.WARNING):
        assert len(load_split(name, tmp_path, "train")) == 16
        dev = load_split(name, tmp_path, "dev")
    assert len(dev) == 4
    warned = [r for r in caplog.records if _SHARED in r.getMessage()]
    assert [(r.split, r.file, r.train_file, r.shared_claims, r.claims, r.identical_pairs, r.pairs) for r in warned] == [
        ("dev", str(dev_path), str(train_path), 1, 1, 4, 4)]
    caplog.clear()
    other_articles = [replace(e, article=e.article + " اليوم") for e in examples[:4]]
    _write_corpus(name, tmp_path, "test", [*other_articles, *examples[4:8]])  # c1 with other articles; c2's pairs
    with caplog.at_level(logging.WARNING):
        load_split(name, tmp_path, "test")
    assert [(r.split, r.shared_claims, r.claims, r.identical_pairs) for r in caplog.records
            if _SHARED in r.getMessage()] == [("test", 2, 2, 4)]


@pytest.mark.parametrize("name", ["arastance", "khouja"])
def test_a_dev_split_is_compared_with_train_only_where_train_can_be_read(
        name: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An absent train file has nothing to compare, and one that cannot be read does not stop dev from
    loading; train's own warnings (its Khouja pairs are one group) are not repeated when dev is read."""
    examples = tiny_examples("3way" if name == "khouja" else "4way")
    _write_corpus(name, tmp_path, "dev", examples[:4])
    with caplog.at_level(logging.WARNING):
        assert len(load_split(name, tmp_path, "dev")) == 4  # no train file: nothing to compare
        train_path = _write_corpus(name, tmp_path, "train", examples[4:])
        assert len(load_split(name, tmp_path, "dev")) == 4  # no claim in both
    assert not caplog.records
    train_path.write_text(train_path.read_text(encoding="utf-8") + "{\n", encoding="utf-8")  # damaged
    with caplog.at_level(logging.WARNING):
        assert len(load_split(name, tmp_path, "dev")) == 4
    assert [(r.getMessage(), r.split, str(train_path) in r.reason) for r in caplog.records] == [
        ("split not compared with the train split, which cannot be read", "dev", True)]


def test_a_baly_dev_claim_filed_in_a_train_fold_under_another_id_is_warned(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The folds list each claim id once, but one claim text can have two ids in two folds (the real
    fold 4 shares a claim with folds 1-3): dev was read without a word, as the other corpora's were not."""
    claims = {"R-1": {"claim": "ادعاء  مشترك", "article": ["مقال", "مقال آخر"], "stance": ["agree", "discuss"]},
              "R-2": {"claim": "ادعاء ثان", "article": ["مقال"], "stance": ["disagree"]},
              "R-3": {"claim": "ادعاء ثالث", "article": ["مقال"], "stance": ["unrelated"]},
              "R-9": {"claim": "ادعاء مشترك", "article": ["مقال", "نص جديد"], "stance": ["agree", "agree"]},
              "R-4": {"claim": "ادعاء رابع", "article": ["مقال"], "stance": ["agree"]}}
    root = write_baly(tmp_path, {1: ["R-1"], 2: ["R-2"], 3: ["R-3"], 4: ["R-9", "R-4"]}, claims)
    with caplog.at_level(logging.WARNING):
        assert len(load_split("baly", root, "dev")) == 3
    splits = str(root / "train_test_splits.txt")
    assert [(r.dataset, r.split, r.file, r.train_file, r.shared_claims, r.claims, r.identical_pairs, r.pairs)
            for r in caplog.records if _SHARED in r.getMessage()] == [("baly", "dev", splits, splits, 1, 2, 1, 3)]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert len(load_split("baly", root, "train")) == 4
    assert not caplog.records


# -- Baly et al. 2018 ----------------------------------------------------------------------------


def test_baly_fold_listed_with_no_claims_is_refused_naming_its_line(tmp_path: Path) -> None:
    """Taken as an empty fold, it silently cost the split a third of its claims."""
    claims = {f"R-{i}": {"claim": f"ادعاء {i}", "article": ["مقال"], "stance": ["agree"]} for i in range(1, 5)}
    root = write_baly(tmp_path, {1: ["R-1"], 2: [], 3: ["R-3"], 4: ["R-4"]}, claims)
    with pytest.raises(DatasetError, match=r"train_test_splits\.txt, line 2: fold 2 lists no claim ids"):
        load_split("baly", root, "train")
    assert [e.claim_id for e in load_split("baly", root, "dev")] == ["R-4"]  # the folds of another split still load
