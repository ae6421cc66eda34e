"""Dataset loaders on small hand-written files in every format, including every malformed case."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from helpers_stance import arastance_records, khouja_rows, tiny_examples, write_arastance, write_baly, write_khouja

from tasks.stance.datasets import DatasetError, WarehouseGold, load_split, open_dataset
from tasks.stance.labels import to_scheme

# -- AraStance JSON Lines ------------------------------------------------------------------------


def test_arastance_reads_pairs_with_titles_urls_and_any_label_case(tmp_path: Path) -> None:
    write_arastance(tmp_path, "train", arastance_records(tiny_examples()))
    examples = load_split("arastance", tmp_path, "train")
    assert len(examples) == 16
    first = examples[0]
    assert first.label == "agree" and first.claim_id == "c1" and first.article_id == "c1:0"
    assert first.article_title == "عنوان c1-agree" and first.article_url == "https://news.example/c1-agree"
    assert [e.label for e in examples[:4]] == ["agree", "disagree", "discuss", "unrelated"]


def test_arastance_three_way_merges_discuss_and_unrelated(tmp_path: Path) -> None:
    write_arastance(tmp_path, "dev", arastance_records(tiny_examples()))
    labels = [e.label for e in load_split("arastance", tmp_path, "dev", "3way")]
    assert labels[:4] == ["agree", "disagree", "other", "other"]


def test_arastance_without_optional_fields_gets_a_stable_claim_id(tmp_path: Path) -> None:
    write_arastance(tmp_path, "train", [{"claim": "خبر", "article": ["نص المقال"], "stance": ["AGREE"]}])
    a = load_split("arastance", tmp_path, "train")
    b = load_split("arastance", tmp_path, "train")
    assert a == b and a[0].article_title is None and a[0].label == "agree" and len(a[0].claim_id) == 16


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"claim": "خبر", "article": ["نص"], "stance": ["agree"]', "line 2: not valid JSON"),
        ('["not", "an", "object"]', "line 2: expected a JSON object"),
        ('{"claim": "خبر", "article": ["نص"], "stance": ["supports"]}', "line 2, article 0: unknown stance label 'supports'"),
        ('{"claim": "  ", "article": ["نص"], "stance": ["agree"]}', "line 2: field 'claim' is empty"),
        ('{"claim": "خبر", "article": [""], "stance": ["agree"]}', "line 2, article 0: field 'article' is empty"),
        ('{"claim": "خبر", "article": ["نص", "نص"], "stance": ["agree"]}', "line 2: 2 articles but 1 stance labels"),
        ('{"claim": "خبر", "article": "نص", "stance": ["agree"]}', "line 2: fields 'article' and 'stance' must both be lists"),
        ('{"article": ["نص"], "stance": ["agree"]}', "line 2: field 'claim' must be a string"),
        ('{"claim": "خبر", "article": ["نص"], "stance": [null]}', "line 2, article 0: missing or empty stance label"),
        ('{"claim": "خبر", "article": ["نص"], "stance": ["agree"], "article_url": []}', "field 'article_url' has 0 items"),
    ],
)
def test_arastance_malformed_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    good = json.dumps({"claim": "خبر", "article": ["نص"], "stance": ["agree"]}, ensure_ascii=False)
    path = tmp_path / "train.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_split("arastance", tmp_path, "train")
    assert str(path) in str(err.value) and message in str(err.value)


def test_arastance_missing_file_and_unknown_split(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="test file .* does not exist \\(run `arastance datasets download arastance`"):
        load_split("arastance", tmp_path, "test")
    with pytest.raises(DatasetError, match="unknown split 'validation'"):
        load_split("arastance", tmp_path, "validation")


def test_empty_split_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dev.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="dev split of arastance has no examples"):
        load_split("arastance", tmp_path, "dev")


# -- Baly et al. 2018 ----------------------------------------------------------------------------


def _baly_record(cid: str, stances: list[str], capitalised: bool = False) -> dict:
    record = {"id": cid, "claim": f"ادعاء رقم {cid}", "fact": "false",
              "article": [f"مقال {i} عن {cid}" for i in range(len(stances))],
              "url": [f"https://site.example/{cid}/{i}" for i in range(len(stances))],
              "stance": stances, "rationale": ["" for _ in stances]}
    return {k.capitalize(): v for k, v in record.items()} if capitalised else record


def _baly_corpus(root: Path) -> Path:
    claims = {f"R-{i}": _baly_record(f"R-{i}", ["agree", "unrelated"], capitalised=(i == 2)) for i in range(1, 6)}
    claims["V-9"] = _baly_record("V-9", ["disagree", "Discuss"])
    return write_baly(root, {1: ["R-1", "V-9"], 2: ["R-2"], 3: ["R-3"], 4: ["R-4"], 5: ["R-5"]}, claims)


def test_baly_protocol_folds_one_to_three_train_four_dev_five_test(tmp_path: Path) -> None:
    root = _baly_corpus(tmp_path)
    train = load_split("baly", root, "train")
    assert sorted({e.claim_id for e in train}) == ["R-1", "R-2", "R-3", "V-9"]
    assert {e.claim_id for e in load_split("baly", root, "dev")} == {"R-4"}
    assert {e.claim_id for e in load_split("baly", root, "test")} == {"R-5"}
    v9 = [e for e in train if e.claim_id == "V-9"]
    assert [e.label for e in v9] == ["disagree", "discuss"] and v9[0].article_url == "https://site.example/V-9/0"
    r2 = [e for e in train if e.claim_id == "R-2"]  # capitalised keys read the same
    assert r2[0].claim == "ادعاء رقم R-2" and r2[1].label == "unrelated"


def test_baly_missing_claim_file_of_a_requested_fold_is_a_clear_error(tmp_path: Path) -> None:
    root = _baly_corpus(tmp_path)
    (root / "dataset" / "R-5.json").unlink()
    assert load_split("baly", root, "dev")  # other folds still load
    with pytest.raises(DatasetError, match=r"claim file .*R-5\.json of fold 5 \(claim R-5\) does not exist"):
        load_split("baly", root, "test")
    long_id = "R-" + "9" * 300  # it was: OSError's traceback, naming neither the split file nor the fold (review)
    splits = root / "train_test_splits.txt"
    splits.write_text(splits.read_text(encoding="utf-8").replace("R-5", long_id), encoding="utf-8")
    with pytest.raises(DatasetError, match=f"train_test_splits.txt: fold 5 lists claim '{long_id[:60]}', which names "
                                           "no claim file \\(file name too long\\)"):
        load_split("baly", root, "test")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(stance=["agree", "maybe"]), "article 1: unknown stance label 'maybe'"),
        (lambda r: r.update(article=["نص", ""]), "article 1: field 'article' is empty"),
        (lambda r: r.update(stance=["agree"]), "2 articles but 1 stance labels"),
        (lambda r: r.update(url=["https://a"]), "field 'url' has 1 items for 2 articles"),
        (lambda r: r.update(claim=""), "field 'claim' is empty"),
    ],
)
def test_baly_malformed_claim_files(tmp_path: Path, mutate, message: str) -> None:
    root = _baly_corpus(tmp_path)
    record = _baly_record("R-4", ["agree", "unrelated"])
    mutate(record)
    (root / "dataset" / "R-4.json").write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_split("baly", root, "dev")
    assert "R-4.json" in str(err.value) and message in str(err.value)


@pytest.mark.parametrize("value, message", [
    ("1" * 5000, "JSON with an integer of more than 4,300 digits"),
    ('"\\ud800"', "JSON with a lone UTF-16 surrogate \\ud800"),
    ("[" * 100_000, "JSON nested too deep to read"),
], ids=["long integer", "lone surrogate", "deep nesting"])
def test_baly_claim_file_holding_what_json_cannot_keep_is_one_line_naming_it(
        value: str, message: str, tmp_path: Path) -> None:
    # it was: a traceback (a long integer is a ValueError, not a JSONDecodeError; deep nesting a RecursionError)
    root = _baly_corpus(tmp_path)
    path = root / "dataset" / "R-4.json"
    path.write_text(f'{{"id": "R-4", "claim": "خبر", "extra": {value}}}', encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_split("baly", root, "dev")
    assert str(err.value).startswith(f"{path}: {message}")


def test_baly_broken_json_and_fold_file(tmp_path: Path) -> None:
    root = _baly_corpus(tmp_path)
    (root / "dataset" / "R-4.json").write_text('{"id": "R-4",\n "claim": ', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"R-4\.json, line 2: not valid JSON"):
        load_split("baly", root, "dev")
    (root / "train_test_splits.txt").write_text("Fold_1: R-1\nsomething else\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"train_test_splits\.txt, line 2: expected 'Fold_<n>: <claim ids>'"):
        load_split("baly", root, "train")
    (root / "train_test_splits.txt").write_text("Fold_1: R-1\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no fold 4"):
        load_split("baly", root, "dev")


def test_baly_claim_listed_twice_is_an_error_naming_the_line_and_the_claim(tmp_path: Path) -> None:
    """A claim twice in one fold would weigh double; in two folds it could be in train and dev at once."""
    root = _baly_corpus(tmp_path)
    splits = root / "train_test_splits.txt"
    splits.write_text("Fold_1: R-1 V-9 R-1\nFold_2: R-2\nFold_3: R-3\nFold_4: R-4\nFold_5: R-5\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"train_test_splits\.txt, line 1: claim 'R-1' of fold 1 is already "
                                           r"listed in fold 1 \(line 1\) \(duplicated\)"):
        load_split("baly", root, "train")
    splits.write_text("Fold_1: R-1 V-9\nFold_2: R-2\nFold_3: R-3 R-4\nFold_4: R-4\nFold_5: R-5\n", encoding="utf-8")
    for split in ("train", "dev", "test"):  # the file is wrong whichever split is read
        with pytest.raises(DatasetError, match=r"train_test_splits\.txt, line 4: claim 'R-4' of fold 4 is already "
                                               r"listed in fold 3 \(line 3\)"):
            load_split("baly", root, split)


def test_baly_files_with_a_utf8_bom_are_read(tmp_path: Path) -> None:
    """As the Khouja loader reads them; the splits file's first line was refused as not 'Fold_<n>: ...'."""
    root = _baly_corpus(tmp_path)
    expected = load_split("baly", root, "train")
    for path in (root / "train_test_splits.txt", root / "dataset" / "R-1.json"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_split("baly", root, "train") == expected


# -- Khouja 2020 (ANS) ---------------------------------------------------------------------------


def test_khouja_reads_claim_as_s2_and_headline_as_s1(tmp_path: Path) -> None:
    write_khouja(tmp_path, "train", khouja_rows(tiny_examples("3way")))
    examples = load_split("khouja", tmp_path, "train")
    assert len(examples) == 16 and {e.label for e in examples} == {"agree", "disagree", "other"}
    assert examples[0].claim.startswith("افتتاح جسر") and examples[0].article.startswith("أكدت مصادر")
    assert examples[0].article_title is None


def test_khouja_is_three_way_only(tmp_path: Path) -> None:
    write_khouja(tmp_path, "dev", khouja_rows(tiny_examples("3way")))
    with pytest.raises(DatasetError, match="labelled 3-way .* cannot be read as 4-way"):
        load_split("khouja", tmp_path, "dev", "4way")


@pytest.mark.parametrize(
    ("rows", "header", "message"),
    [
        ([{"s1": "عنوان", "s2": "ادعاء", "stance": "discuss"}], ("s1", "s2", "stance"), "line 3: unknown stance label 'discuss'"),
        ([{"s1": "", "s2": "ادعاء", "stance": "agree"}], ("s1", "s2", "stance"), "line 3: field 's1' is empty"),
        ([{"s1": "عنوان", "s2": " ", "stance": "agree"}], ("s1", "s2", "stance"), "line 3: field 's2' is empty"),
        ([{"s1": "عنوان", "s2": "ادعاء"}], ("s1", "s2"), "line 1: missing column(s) ['stance']"),
    ],
)
def test_khouja_malformed_rows(tmp_path: Path, rows, header, message: str) -> None:
    path = write_khouja(tmp_path, "train", [{"s1": "عنوان", "s2": "ادعاء", "stance": "Agree"}] + rows, header)
    with pytest.raises(DatasetError) as err:
        load_split("khouja", tmp_path, "train")
    assert str(path) in str(err.value) and message in str(err.value)


def test_khouja_short_row(tmp_path: Path) -> None:
    (tmp_path / "train.csv").write_text("s1,s2,stance\nعنوان,ادعاء,agree\nعنوان فقط\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"train\.csv, line 3: expected 3 fields"):
        load_split("khouja", tmp_path, "train")


# -- the warehouse's own gold splits -------------------------------------------------------------


def test_warehouse_gold_pairs_by_split_with_claim_override(warehouse, tmp_path: Path) -> None:
    now = datetime(2024, 1, 1)
    claims = [{"claim_id": cid, "source_id": "araanews", "url": f"https://a/{cid}", "canonical_url": f"https://a/{cid}",
               "cleaned_text": text, "veracity": "false", "first_seen": now, "last_seen": now,
               "status": "excluded" if cid == "k3" else "active"}
              for cid, text in (("k1", "ادعاء أول"), ("k2", "ادعاء ثان"), ("k3", "ادعاء مستبعد"))]
    articles = [{"article_id": aid, "url": f"https://n/{aid}", "canonical_url": f"https://n/{aid}", "title": f"عنوان {aid}",
                 "text": f"نص المقال {aid}", "fetch_status": "ok"} for aid in ("a1", "a2", "a3")]
    pairs = [{"pair_id": f"p{i}", "claim_id": c, "article_id": a, "created_at": now}
             for i, (c, a) in enumerate((("k1", "a1"), ("k1", "a2"), ("k2", "a3"), ("k3", "a1")))]
    warehouse.insert_rows("claims", claims)
    warehouse.insert_rows("articles", articles)
    warehouse.insert_rows("claim_article_pairs", pairs)
    warehouse.insert_rows("gold_labels", [{"pair_id": f"p{i}", "label": lab, "method": "agreed", "decided_at": now}
                                          for i, lab in enumerate(("agree", "unrelated", "disagree", "agree"))])
    warehouse.insert_rows("splits", [{"claim_id": "k1", "split": "train", "assigned_at": now},
                                     {"claim_id": "k2", "split": "dev", "assigned_at": now},
                                     {"claim_id": "k3", "split": "train", "assigned_at": now}])
    warehouse.insert_rows("claim_overrides", [{"claim_id": "k1", "cleaned_text": "ادعاء مصحح", "reviewer": "r",
                                               "reviewed_at": now}])
    warehouse.con.execute("CHECKPOINT")
    path = warehouse.path
    warehouse.close()
    train = load_split("warehouse", path, "train")
    # the count, without reading the pairs, counts what the split gives (not the excluded claim k3)
    assert [WarehouseGold(path).pair_count(split) for split in ("train", "dev", "test")] == [2, 1, 0]
    assert [(e.claim, e.article_id, e.label) for e in train] == [("ادعاء مصحح", "a1", "agree"), ("ادعاء مصحح", "a2", "unrelated")]
    assert train[0].article_title == "عنوان a1" and train[0].article_url == "https://n/a1"
    assert [e.label for e in load_split("warehouse", path, "dev", "3way")] == ["disagree"]
    with pytest.raises(DatasetError, match="test split of warehouse has no examples"):
        load_split("warehouse", path, "test")


def test_a_warehouse_held_by_a_writer_past_the_wait_is_a_dataset_error_which_the_flows_do_not_retry(warehouse) -> None:
    """The read waits ``warehouse_write_wait_s`` for the writer (a dataset build) itself; a retry of the
    flow's would only wait as long again, so the error after it is a DatasetError naming the file."""
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        from tasks.stance.datasets import load_split
        try:
            load_split("warehouse", {str(warehouse.path)!r}, "train")
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    # this test's process holds the write connection: the loader's process finds the file locked
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1],
                          env={**os.environ, "ARASTANCE_WAREHOUSE_WRITE_WAIT_S": "1"})
    assert done.stdout.startswith(f"DatasetError warehouse {warehouse.path} is being written by another process"), (
        done.stdout + done.stderr)
    assert "waited 1s" in done.stdout and done.stdout.count("\n") == 1

    from flows.runners import warehouse_busy
    from prefect.states import Failed
    from warehouse import WarehouseBusyError

    assert warehouse_busy(None, None, Failed(data=WarehouseBusyError("busy")))
    assert not warehouse_busy(None, None, Failed(data=DatasetError(done.stdout)))


def test_warehouse_claims_left_out_of_the_dataset_never_reach_the_models(warehouse, tmp_path: Path) -> None:
    now = datetime(2024, 1, 1)
    warehouse.insert_rows("claims", [{"claim_id": cid, "source_id": "dabegad", "url": f"https://d/{cid}",
                                      "canonical_url": f"https://d/{cid}", "cleaned_text": f"ادعاء {cid}",
                                      "veracity": "false", "first_seen": now, "last_seen": now} for cid in ("k1", "k2")])
    warehouse.insert_rows("articles", [{"article_id": "a1", "url": "https://n/a1", "canonical_url": "https://n/a1",
                                        "text": "نص المقال", "fetch_status": "ok"}])
    warehouse.insert_rows("claim_article_pairs", [{"pair_id": f"p{c}", "claim_id": c, "article_id": "a1",
                                                   "created_at": now} for c in ("k1", "k2")])
    warehouse.insert_rows("gold_labels", [{"pair_id": f"p{c}", "label": lab, "method": "agreed", "decided_at": now}
                                          for c, lab in (("k1", "discuss"), ("k2", "unrelated"))])
    warehouse.insert_rows("splits", [{"claim_id": c, "split": "train", "assigned_at": now} for c in ("k1", "k2")])
    # k2 was split first, then flagged: all of its documents are unrelated
    warehouse.insert_rows("dataset_claim_flags", [{"claim_id": "k2", "flag": "all_unrelated", "pairs": 1,
                                                   "flagged_at": now}])
    warehouse.con.execute("CHECKPOINT")
    path = warehouse.path
    warehouse.close()
    assert [e.claim_id for e in load_split("warehouse", path, "train")] == ["k1"]


def test_warehouse_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="none.duckdb does not exist"):
        load_split("warehouse", tmp_path / "none.duckdb", "train")


def test_unknown_dataset_and_label_conversion() -> None:
    with pytest.raises(DatasetError, match="unknown dataset 'fnc'"):
        open_dataset("fnc", Path("."))
    assert [to_scheme(x, "3way") for x in ("agree", "disagree", "discuss", "unrelated")] == ["agree", "disagree", "other", "other"]
    with pytest.raises(ValueError):
        to_scheme("other", "4way")
