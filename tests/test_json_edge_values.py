"""JSON that parses but holds a value the product cannot keep, in the files a user hands it: an
integer literal longer than Python converts (``json.loads`` refuses it with a plain ``ValueError``,
not a ``JSONDecodeError``) and a lone UTF-16 surrogate escape (``"\\ud800"``, accepted by
``json.loads`` but not writable as UTF-8). Each reader ends in one line naming the file (and the
line, in JSON Lines) and what is wrong, with nothing stored; a valid surrogate pair (an escaped
emoji, common in Arabic social-media text) keeps working."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task
from helpers_stance import arastance_records, tiny_examples, write_arastance
from typer.testing import CliRunner

from arastance.base.jsonl import JsonValueError, json_lines, parse_json
from arastance.cli import app
from arastance.config import load_settings
from tasks.search.local import build_dir
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.datasets import DatasetError, load_split
from warehouse import open_warehouse

BIG_INT = "1" * 5000
BIG_INT_SAID = "JSON with an integer of more than 4,300 digits (longer than Python reads)"


def _lone_said(escape: str) -> str:
    return f"JSON with a lone UTF-16 surrogate {escape} that UTF-8 text cannot hold (half of a pair)"


LONE_SAID = _lone_said(r"\ud800")
#: Each bad value as JSON text (the surrogate as the escape a file holds), with what the error says.
BAD = {"big_int": (BIG_INT, BIG_INT_SAID), "lone_surrogate": (r'"نص \ud800"', LONE_SAID)}
EMOJI = r'"نص \ud83d\ude00"'  # a valid pair: "نص 😀"


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def _refused(args: list[str], said: str) -> None:
    """The command ends with status 2 and the one error line ``said``, without a traceback."""
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert _error_lines(result.output) == [f"error: {said}"], result.output
    assert "Traceback" not in result.output


# -- the shared rule -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [BIG_INT, f"-{BIG_INT}", f'{{"n": [1, {BIG_INT}]}}'])
def test_an_integer_longer_than_python_reads_is_refused_saying_so(text: str) -> None:
    with pytest.raises(JsonValueError) as refused:
        parse_json(text)
    assert str(refused.value) == BIG_INT_SAID


@pytest.mark.parametrize(("text", "lone"), [
    (r'"\ud800"', r"\ud800"),
    (r'"\uDC00 after a low half alone"', r"\udc00"),
    (r'{"\ud83d": "the half of a pair as a key"}', r"\ud83d"),
    (r'[[[{"a": ["ok \ud83d\ude00", "a pair, then a lone half \uDBFF"]}]]]', r"\udbff"),
])
def test_a_lone_surrogate_is_refused_naming_it(text: str, lone: str) -> None:
    with pytest.raises(JsonValueError) as refused:
        parse_json(text)
    assert str(refused.value) == _lone_said(lone)


def test_valid_pairs_and_escaped_backslashes_are_read_as_before() -> None:
    assert parse_json(EMOJI) == "نص 😀"
    assert parse_json(r'{"t": "\uD83D\uDE00"}') == {"t": "😀"}  # escapes in capitals
    assert parse_json(r'"\\ud800"') == "\\ud800"  # a backslash, then the letters: no surrogate
    assert parse_json(f"[{BIG_INT[:4300]}, 1.5e9]") == [int(BIG_INT[:4300]), 1.5e9]
    with pytest.raises(json.JSONDecodeError):  # syntax errors stay the readers' to word
        parse_json('{"a": ')


@pytest.mark.parametrize("bad", sorted(BAD))
def test_json_lines_names_the_file_and_the_line(bad: str) -> None:
    value, said = BAD[bad]
    lines = [b'{"ok": 1}\n', b"\n", f'{{"x": {value}}}\n'.encode()]
    with pytest.raises(DatasetError) as refused:
        list(json_lines(lines, "f.jsonl", DatasetError))
    assert str(refused.value) == f"f.jsonl, line 3: {said}"


# -- the commands ----------------------------------------------------------------------------------


def _corpus_line(url: str, title: str) -> str:
    """A corpus line whose title is the JSON text ``title`` as written (escapes kept)."""
    return f'{{"url": "{url}", "title": {title}, "text": "غمرت السيول شوارع جدة", "published_date": "2020-01-01"}}\n'


@pytest.mark.parametrize("bad", sorted(BAD))
def test_index_build_refuses_the_corpus_and_keeps_the_earlier_index(bad: str, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(_corpus_line("https://ex.com/a", EMOJI), encoding="utf-8")
    built = CliRunner().invoke(app, ["index", "build", "--corpus", str(good)])
    assert built.exit_code == 0, built.output
    index_dir = load_settings().search_index_dir
    before = build_dir(index_dir)
    corpus = tmp_path / "corpus.jsonl"
    value, said = BAD[bad]
    corpus.write_text(_corpus_line("https://ex.com/a", EMOJI) + _corpus_line("https://ex.com/b", value),
                      encoding="utf-8")
    _refused(["index", "build", "--corpus", str(corpus)], f"{corpus}, line 2: {said}")
    assert build_dir(index_dir) == before and [p.name for p in (index_dir / "builds").iterdir()] == [before.name]
    found = CliRunner().invoke(app, ["index", "search", "سيول جدة"])
    assert found.exit_code == 0 and "https://ex.com/a" in found.output, found.output


def _release(directory: Path, bad_value: str | None) -> Path:
    """A dataset directory whose train split holds a good line, then (when given) one with ``bad_value``."""
    directory.mkdir()
    good = {"claim": "إغلاق المدارس في الرياض", "article": ["نص الخبر"], "stance": ["Agree"]}
    text = json.dumps(good, ensure_ascii=False) + "\n"
    if bad_value is not None:
        text += f'{{"claim": {bad_value}, "article": ["نص آخر"], "stance": ["Discuss"]}}\n'
    (directory / "train.jsonl").write_text(text, encoding="utf-8")
    return directory / "train.jsonl"


def _stored_claims() -> int:
    with open_warehouse(load_settings().warehouse) as wh:
        return int(wh.scalar("SELECT count(*) FROM claims"))


@pytest.mark.parametrize("bad", sorted(BAD))
def test_dataset_load_refuses_the_split_and_stores_nothing(bad: str, tmp_path: Path) -> None:
    value, said = BAD[bad]
    split = _release(tmp_path / "release", value)
    _refused(["dataset", "load", str(split.parent)], f"{split}, line 2: {said}")
    assert _stored_claims() == 0


def test_dataset_load_takes_an_escaped_emoji(tmp_path: Path) -> None:
    split = _release(tmp_path / "release", EMOJI)
    result = CliRunner().invoke(app, ["dataset", "load", str(split.parent)])
    assert result.exit_code == 0, result.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert "نص 😀" in [r["cleaned_text"] for r in wh.query("SELECT cleaned_text FROM claims")]


@pytest.mark.parametrize("bad", sorted(BAD))
def test_the_training_loader_names_the_file_and_the_line(bad: str, tmp_path: Path) -> None:
    # what `arastance train --dataset arastance --path` reads, its DatasetError shown as the one error line
    path = write_arastance(tmp_path / "arastance", "train", arastance_records(tiny_examples()))
    value, said = BAD[bad]
    path.write_text(path.read_text(encoding="utf-8") + f'{{"claim": "x", "article": [{value}], "stance": ["Agree"]}}\n',
                    encoding="utf-8")
    with pytest.raises(DatasetError) as refused:
        load_split("arastance", tmp_path / "arastance", "train")
    assert str(refused.value) == f"{path}, line 5: {said}"


@pytest.mark.parametrize("bad", sorted(BAD))
def test_annotate_import_refuses_the_export_and_imports_nothing(bad: str, tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        pairs = add_claims(wh, 1, 2)
        add_round(wh, "prod-1", "production")
        before = wh.table_counts()
    value, said = BAD[bad]
    tasks = [ls_task(p, "prod-1", [ls_annotation("ann-1", "agree")], i) for i, p in enumerate(pairs)]
    text = json.dumps(tasks, ensure_ascii=False, indent=1)
    export = tmp_path / "export.json"
    export.write_text(text.replace('"ann-1"', value, 1) if bad == "lone_surrogate" else
                      text[:-1] + f', {{"id": 99, "data": {{"n": {value}}}, "annotations": []}}]', encoding="utf-8")
    _refused(["annotate", "import", str(export)], f"{export}: nothing imported: {said}")
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.table_counts() == before


@pytest.mark.parametrize("bad", sorted(BAD))
def test_predict_refuses_an_articles_file_naming_it(bad: str, tmp_path: Path) -> None:
    value, said = BAD[bad]
    articles = tmp_path / "articles.json"
    articles.write_text(f'["نص الخبر", {value}]', encoding="utf-8")
    _refused(["predict", "--model", str(tmp_path / "model"), "--claim", "خبر", "--articles-file", str(articles)],
             f"{articles}: {said}")


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A saved CPU model without e5 features."""
    train = [e for e in tiny_examples() if e.claim_id != "c4"]
    return CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(train).save(tmp_path / "model")


def test_predict_reads_an_articles_file_with_an_escaped_emoji(model: Path, tmp_path: Path) -> None:
    articles = tmp_path / "articles.json"
    articles.write_text(f'["أكدت مصادر رسمية اليوم خبر افتتاح جسر جديد", {EMOJI}]', encoding="utf-8")
    result = CliRunner().invoke(app, ["predict", "--model", str(model), "--claim", "افتتاح جسر جديد",
                                      "--articles-file", str(articles)])
    assert result.exit_code == 0, result.output
    assert [p["article"] for p in json.loads(result.stdout)["predictions"]] == [0, 1]


def test_predict_refuses_a_model_whose_manifest_holds_a_long_integer(model: Path) -> None:
    manifest = model / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("{", f'{{"n": {BIG_INT},', 1), encoding="utf-8")
    _refused(["predict", "--model", str(model), "--claim", "خبر", "--article", "نص"],
             f"{manifest}: the manifest is {BIG_INT_SAID}; copy the model again or retrain it")
