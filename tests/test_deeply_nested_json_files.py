"""JSON nested deeper than Python's decoder goes (``[`` 100,000 times) in the files a user hands the
product: a clear error naming the file (and the line, in JSON Lines) in the reader's own error type,
not a ``RecursionError`` traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json
from helpers_stance import arastance_records, tiny_examples, write_arastance
from typer.testing import CliRunner

from arastance.base.jsonl import json_lines
from arastance.cli import app
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import import_annotations
from tasks.search.local import CorpusError, read_corpus
from tasks.stance.datasets import DatasetError, load_split
from warehouse import Warehouse

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_json_line_nested_too_deep_names_the_file_and_the_line(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    good = json.dumps({"url": "https://news.example/1", "title": "عنوان", "text": "نص الخبر"}, ensure_ascii=False)
    corpus.write_text(f"{good}\n\n{DEEP}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=rf"^{corpus}, line 3: JSON nested too deep to read$"):
        list(read_corpus(corpus))
    with pytest.raises(ValueError, match=r"^lines, line 1: JSON nested too deep to read$"):
        list(json_lines([DEEP.encode()], "lines", ValueError))


def test_a_dataset_split_with_a_line_nested_too_deep_is_a_dataset_error(tmp_path: Path) -> None:
    path = write_arastance(tmp_path / "arastance", "train", arastance_records(tiny_examples()))
    path.write_text(path.read_text(encoding="utf-8") + DEEP + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=rf"{path}, line \d+: JSON nested too deep to read"):
        load_split("arastance", tmp_path / "arastance", "train")


def test_a_label_studio_export_nested_too_deep_imports_nothing_and_names_the_file(warehouse: Warehouse,
                                                                                    tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    path = write_json(tmp_path / "export.json", [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree")], 0)])
    path.write_text(DEEP, encoding="utf-8")
    before = warehouse.table_counts()
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    assert str(err.value) == f"{path}: nothing imported: JSON nested too deep to read"
    assert warehouse.table_counts() == before


def test_predict_refuses_an_articles_file_nested_too_deep_naming_it(tmp_path: Path) -> None:
    articles = tmp_path / "articles.json"
    articles.write_text(DEEP, encoding="utf-8")
    result = CliRunner().invoke(app, ["predict", "--model", str(tmp_path / "model"), "--claim", "خبر",
                                      "--articles-file", str(articles)])
    assert result.exit_code == 2, result.output
    assert f"{articles}: JSON nested too deep to read" in result.output
