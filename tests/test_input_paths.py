"""An input path that is a directory is named as one, not as a file that does not exist."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.base.input_paths import not_a_file
from arastance.cli import app
from arastance.config import SettingsError, load_settings
from tasks.stance.datasets import DatasetError, load_split


def test_not_a_file_tells_a_directory_and_a_fifo_from_a_path_with_nothing_there(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    assert not_a_file(tmp_path) == "is a directory, not a file"
    assert not_a_file(tmp_path / "fifo") == "is not a regular file"
    assert not_a_file(tmp_path / "nowhere") == "does not exist"


@pytest.mark.parametrize(("args", "message"), [
    (["index", "build", "--corpus", "{dir}"], "corpus file {dir} is a directory"),  # it was: "… does not exist"
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


def test_a_directory_given_as_the_warehouse_corpus_or_the_config_file_is_named_as_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DatasetError, match=f"warehouse {tmp_path} is a directory, not a file"):  # "warehouse not found"
        load_split("warehouse", tmp_path, "train")
    monkeypatch.setenv("ARASTANCE_CONFIG", str(tmp_path))
    with pytest.raises(SettingsError, match=f"config file {tmp_path} named by ARASTANCE_CONFIG is a directory"):
        load_settings()
