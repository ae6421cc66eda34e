"""Annotator ids name the round's task files (``<round>/<id>.json`` and ``.csv``): the
``annotation.annotators`` setting refuses an id that would put them outside the round directory,
or over the round's own files, naming the setting and the id."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers_annotation import add_claims
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import SettingsError, load_settings
from arastance.config.annotation import ROUND_FILE_STEMS, AnnotationSettings
from tasks.annotation.discussion import SHEET_NAME
from tasks.annotation.workflow import export_round
from warehouse import Warehouse, open_warehouse


@pytest.mark.parametrize("bad", ["../../escaped", "x/y", "a\\b", ".hidden", "..", "a\x00b", "tab\there",
                                 "discussion", "Labeling_Config", "guidelines"])
def test_an_annotator_id_that_cannot_name_its_task_files_is_refused_naming_the_setting(
        bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_ANNOTATION__ANNOTATORS", json.dumps(["ann-1", bad, "ann-3"]))
    with pytest.raises(SettingsError, match=rf"annotation\.annotators.*annotator id {re.escape(repr(bad))}"):
        load_settings()


@pytest.mark.parametrize("blank", ["ann-2 ", " ann-2", "ann-2\u00a0", "\u3000ann-2"])
def test_an_annotator_id_with_a_blank_around_it_is_refused_naming_it(blank: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was accepted: the export wrote "ann-2 .csv", and its import, which reads the cells stripped,
    # refused every row ("annotator 'ann-2' was not assigned pair ...")
    monkeypatch.setenv("ARASTANCE_ANNOTATION__ANNOTATORS", json.dumps(["ann-1", blank, "ann-3"]))
    with pytest.raises(SettingsError, match=rf"annotation\.annotators.*annotator id {re.escape(repr(blank))} "
                                            "starts or ends with a blank"):
        load_settings()


def test_arabic_and_dotted_ids_are_kept() -> None:
    ids = ["سارة", "ann.2", "ann-3", "a..b"]
    assert AnnotationSettings(annotators=ids).annotators == ids


def test_export_with_an_escaping_id_writes_nothing_outside_the_round_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: `annotate export pilot` wrote data/escaped.json and data/escaped.csv, with exit 0
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb", migrate=True) as wh:
        add_claims(wh, 4)
    monkeypatch.setenv("ARASTANCE_ANNOTATION__ANNOTATORS", '["../../escaped", "ann-2", "ann-3"]')
    result = CliRunner().invoke(app, ["annotate", "export", "pilot", "--size", "2"])
    assert result.exit_code == 2, result.output
    assert "invalid setting annotation.annotators" in result.output and "'../../escaped'" in result.output
    assert not list(tmp_path.rglob("escaped*"))


def test_the_reserved_ids_are_the_names_the_round_directory_gives_its_own_files(warehouse: Warehouse,
                                                                                 tmp_path: Path) -> None:
    add_claims(warehouse, 2)
    cfg = AnnotationSettings()
    exported = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=2)
    own = {p.stem for p in exported.files if p.stem not in cfg.annotators}
    assert own | {Path(SHEET_NAME).stem} == ROUND_FILE_STEMS
