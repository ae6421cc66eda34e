"""An input path that is a directory is named as one, not as a file that does not exist."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.base.input_paths import not_a_directory, not_a_file
from arastance.cli import app
from arastance.config import SettingsError, load_settings
from tasks.search.factory import NoSearchIndex, local_index
from tasks.stance.datasets import DatasetError, load_split
from warehouse import WarehouseError, open_published, open_warehouse


def test_not_a_file_tells_a_directory_a_fifo_and_a_dangling_link_from_a_path_with_nothing_there(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert not_a_file(tmp_path) == "is a directory, not a file"
    assert not_a_file(tmp_path / "fifo") == "is not a regular file"
    assert not_a_file(tmp_path / "dangling") == "is a symbolic link to nothing"
    assert not_a_file(tmp_path / "nowhere") == "does not exist"
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    assert not_a_file(tmp_path / "loop-a") == "is a loop of symbolic links"
    assert not_a_directory(tmp_path / "loop-a") == "is a loop of symbolic links, not a directory"
    assert not_a_directory(tmp_path / "dangling") == "is a symbolic link to nothing, not a directory"
    assert not_a_directory(tmp_path / "fifo") == "is not a directory"
    assert not_a_directory(tmp_path) is None and not_a_directory(tmp_path / "nowhere") is None


@pytest.mark.parametrize("args", [
    ["dataset", "export", "--out", "{long}"],
    ["sql", "--out", "{long}.csv", "SELECT 1"],
    ["index", "build", "--corpus", "{long}"],
])
def test_a_path_name_too_long_for_the_file_system_ends_the_command_with_one_line(args: list[str]) -> None:
    # it was: OSError's traceback ("[Errno 36] File name too long"), which is no subclass the command line named
    long = "a" * 300
    result = CliRunner().invoke(app, [a.replace("{long}", long) for a in args])
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(errors) == 1 and errors[0].startswith("error: file name too long: aaa"), \
        result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["index", "build", "--corpus", "{dir}"], "corpus file {dir} (--corpus) is a directory"),  # "… does not exist"
    (["index", "build", "--warc", "{dir}"], "WARC file {dir} is a directory"),  # "… does not exist"
    (["predict", "--model", "{dir}", "--claim", "x", "--articles-file", "{dir}"],
     "articles file {dir} is a directory"),  # "…: articles file not found"
    (["annotate", "import", "{dir}"], "{dir}: nothing imported: is a directory"),  # "…: no such file"
])
def test_a_command_given_a_directory_for_an_input_file_says_so(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, [a.replace("{dir}", str(tmp_path)) for a in args])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and message.replace("{dir}", str(tmp_path)) + ", not a file" in said, result.output
    assert "does not exist" not in said and "not found" not in said


def test_a_directory_given_as_a_corpus_file_a_model_file_or_the_config_file_is_named_as_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DatasetError, match=f"warehouse {tmp_path} is a directory, not a file"):  # "warehouse not found"
        load_split("warehouse", tmp_path, "train")
    (tmp_path / "khouja" / "train.csv").mkdir(parents=True)  # it was: "…: Khouja train file not found"
    with pytest.raises(DatasetError, match="Khouja train file .*train.csv is a directory, not a file"):
        load_split("khouja", tmp_path / "khouja", "train")
    (tmp_path / "arastance" / "train.jsonl").mkdir(parents=True)  # it was: "… not found (run `… download …`)"
    with pytest.raises(DatasetError, match="AraStance train file .*train.jsonl is a directory, not a file$"):
        load_split("arastance", tmp_path / "arastance", "train")
    (tmp_path / "model" / "manifest.json").mkdir(parents=True)  # it was: "not a saved stance model (no manifest.json)"
    predicted = CliRunner().invoke(app, ["predict", "--model", str(tmp_path / "model"), "--claim", "x", "--article", "y"])
    assert predicted.exit_code == 2 and "not a saved stance model (manifest.json is a directory, not a file)" in \
        " ".join(predicted.output.split()), predicted.output
    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(tmp_path))  # named as the setting it came from
    built = CliRunner().invoke(app, ["index", "build"])
    assert built.exit_code == 2 and f"corpus file {tmp_path} (search.corpus_path (ARASTANCE_SEARCH__CORPUS_PATH)) is a " \
        "directory, not a file" in " ".join(built.output.split()), built.output
    with pytest.raises(NoSearchIndex, match=f"search.corpus_path = {tmp_path} is a directory, not a file"):
        local_index(load_settings())  # a search that would build the index from it
    monkeypatch.setenv("ARASTANCE_CONFIG", str(tmp_path))
    with pytest.raises(SettingsError, match=f"config file {tmp_path} named by ARASTANCE_CONFIG is a directory"):
        load_settings()


@pytest.mark.timeout(60)  # on the old code DuckDB waited on the FIFO for ever
def test_a_warehouse_path_that_is_a_fifo_is_refused_without_waiting_on_it(tmp_path: Path) -> None:
    # it was: a report said "does not exist; run `arastance warehouse migrate`", and migrate waited on the FIFO for ever
    fifo = tmp_path / "warehouse.duckdb"
    os.mkfifo(fifo)
    for opening in (lambda: open_published(fifo), lambda: open_warehouse(fifo)):
        with pytest.raises(WarehouseError, match=f"warehouse {fifo} is a FIFO or a device, not a DuckDB file"):
            opening()


@pytest.mark.parametrize(("corpus", "holds"), [
    ("khouja", "train.csv, dev.csv and test.csv"),
    ("arastance", "train.jsonl, dev.jsonl and test.jsonl"),
    ("baly", "train_test_splits.txt and dataset/"),
])
def test_a_corpus_path_that_names_a_file_of_the_corpus_says_to_give_its_directory(
        tmp_path: Path, corpus: str, holds: str) -> None:
    # it was: "Khouja train file …/train.csv/train.csv does not exist", for --path train.csv
    a_file = tmp_path / "train.csv"
    a_file.write_text("s1,s2,stance\n", encoding="utf-8")
    with pytest.raises(DatasetError) as refused:
        load_split(corpus, a_file, "train")
    assert str(refused.value) == f"corpus directory {a_file} is a file, not a directory; give the directory that holds {holds}"
    with pytest.raises(DatasetError) as below:  # it was: "…/train.csv/below/train.csv does not exist" (review)
        load_split(corpus, a_file / "below", "train")
    assert str(below.value).startswith(f"corpus directory {a_file / 'below'}: {a_file} is a file, not a directory; give")
    with pytest.raises(DatasetError, match=f"corpus directory {tmp_path / 'nowhere'} does not exist"):
        load_split(corpus, tmp_path / "nowhere", "train")


def test_a_directory_place_names_the_parameter_and_what_is_in_the_way(tmp_path: Path) -> None:
    from arastance.base.input_paths import require_directory_place

    assert require_directory_place("export_dir", tmp_path / "new" / "ds") == tmp_path / "new" / "ds"
    (tmp_path / "f").write_text("x", encoding="utf-8")
    with pytest.raises(NotADirectoryError, match=re.escape(f"export_dir {tmp_path / 'f'} is a file, not a directory")):
        require_directory_place("export_dir", tmp_path / "f")
    with pytest.raises(NotADirectoryError, match=re.escape(f"out_dir {tmp_path / 'f' / 'm'}: {tmp_path / 'f'} is a file")):
        require_directory_place("out_dir", tmp_path / "f" / "m")
