"""A task sheet's rows as the annotator's spreadsheet shows them: a problem names the spreadsheet
row (the header is row 1) and the row's pair_id, and a row whose claim_id / article_id are not
those of the pair its pair_id names (the pair_id column sorted on its own) refuses the file; a
pair_id a spreadsheet turned into a number is found by the row's claim_id and article_id."""

from __future__ import annotations

import csv
import logging
from functools import partial
from pathlib import Path

import pytest
from helpers_annotation import add_claims

from arastance.config.annotation import AnnotationSettings
from tasks.annotation.csv_io import parse_csv
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import export_round, import_annotations
from warehouse import Warehouse
from warehouse import annotation as store

LABELS = ("agree", "disagree", "discuss", "unrelated")


def _exported_sheet(wh: Warehouse, tmp_path: Path, *, claims: int = 3, per_claim: int = 2) -> list[dict[str, str]]:
    """ann-1's rows of a pilot over every pair, as exported, each labelled in turn."""
    add_claims(wh, claims, per_claim)
    done = export_round(wh, "pilot", AnnotationSettings(), tmp_path / "tasks", size=claims * per_claim)
    with (done.directory / "ann-1.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{**r, "label": LABELS[i % len(LABELS)]} for i, r in enumerate(rows)]


def _write(path: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns or list(rows[0]), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_a_sheet_whose_pair_id_column_alone_was_sorted_is_refused_naming_row_and_pair(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    ids = sorted((r["pair_id"] for r in rows), reverse=True)
    moved = [{**r, "pair_id": p} for r, p in zip(rows, ids)]  # Excel: sort pair_id, "continue with the current selection"
    sheet = _write(tmp_path / "sorted.csv", moved)
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(sheet, pairs=partial(store.pair_tasks, warehouse))  # it was: every label stored on another pair
    first = next(n for n, r in enumerate(moved, start=2) if r["pair_id"] != rows[n - 2]["pair_id"])
    assert str(sheet) in str(err.value)
    assert f"row {first} (pair {moved[first - 2]['pair_id']}): the row's claim_id" in str(err.value) \
        or f"row {first} (pair {moved[first - 2]['pair_id']}): the row's article_id" in str(err.value)
    assert len(err.value.problems) == sum(r["pair_id"] != m["pair_id"] for r, m in zip(rows, moved))
    assert all("was the pair_id column sorted apart from the rest of the row?" in p for p in err.value.problems)


def test_a_row_showing_another_article_of_the_same_claim_names_the_article_only(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path, claims=1, per_claim=2)
    rows[0]["pair_id"], rows[1]["pair_id"] = rows[1]["pair_id"], rows[0]["pair_id"]
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(_write(tmp_path / "swapped.csv", rows), pairs=partial(store.pair_tasks, warehouse))
    assert err.value.problems[0] == (
        f"row 2 (pair {rows[0]['pair_id']}): the row's article_id {rows[0]['article_id']!r} is not pair "
        f"{rows[0]['pair_id']}'s (article_id {rows[1]['article_id']!r}): the row shows another pair than its "
        "pair_id names (was the pair_id column sorted apart from the rest of the row?)")


@pytest.mark.parametrize("column", ["claim", "article_title", "article"])
def test_a_sheet_whose_claim_or_article_column_alone_was_sorted_is_refused_naming_the_column(
        warehouse: Warehouse, tmp_path: Path, column: str) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    shown = sorted((r[column] for r in rows), reverse=True)
    moved = [{**r, column: text} for r, text in zip(rows, shown)]  # the annotator read another pair's text
    with pytest.raises(AnnotationFileError) as err:  # it was: each label stored on the pair the ids name
        parse_csv(_write(tmp_path / "sorted.csv", moved), pairs=partial(store.pair_tasks, warehouse))
    wrong = [n for n, (r, m) in enumerate(zip(rows, moved), start=2) if r[column] != m[column]]
    assert wrong and [p.split(":")[0] for p in err.value.problems] == [
        f"row {n} (pair {rows[n - 2]['pair_id']})" for n in wrong]
    assert all(f"was the {column} column sorted apart from the rest of the row?" in p
               for p in err.value.problems)


def test_a_sheet_whose_claims_text_changed_since_it_was_written_still_reads(warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    # a reviewer rewrote a claim after the export: the row shows its old text, no other pair's
    warehouse.con.execute("UPDATE claims SET cleaned_text = cleaned_text || ' (نص منقح)'")
    read = parse_csv(_write(tmp_path / "labelled.csv", rows), pairs=partial(store.pair_tasks, warehouse))
    assert [r.pair_id for r in read] == [r["pair_id"] for r in rows]


def test_two_claims_of_one_text_one_reworded_after_the_export_still_read(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 2, 2)
    warehouse.con.execute("UPDATE claims SET cleaned_text = 'وفاة الفنان عادل إمام'")  # two sites, one rumour
    done = export_round(warehouse, "pilot", AnnotationSettings(), tmp_path / "tasks", size=4)
    with (done.directory / "ann-1.csv").open(encoding="utf-8", newline="") as fh:
        rows = [{**r, "label": "agree"} for r in csv.DictReader(fh)]
    first = warehouse.scalar("SELECT min(claim_id) FROM claims")
    warehouse.con.execute("UPDATE claims SET cleaned_text = 'وفاة الفنان المصري عادل إمام' WHERE claim_id = ?", [first])
    # it was: the reworded claim's rows refused, their old text now only the other claim's
    read = parse_csv(_write(tmp_path / "labelled.csv", rows), pairs=partial(store.pair_tasks, warehouse))
    assert len(read) == len(rows)


def test_a_claim_reworded_to_a_third_claims_text_after_the_export_still_reads(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 3, 1)
    ids = [r["claim_id"] for r in warehouse.query("SELECT claim_id FROM claims ORDER BY claim_id")]
    warehouse.con.execute("UPDATE claims SET cleaned_text = 'وفاة الفنان عادل إمام' WHERE claim_id <> ?", [ids[0]])
    done = export_round(warehouse, "pilot", AnnotationSettings(), tmp_path / "tasks", size=3)
    with (done.directory / "ann-1.csv").open(encoding="utf-8", newline="") as fh:
        rows = [{**r, "label": "agree"} for r in csv.DictReader(fh)]
    # the same rumour as the first claim, a reviewer says: the second takes its text; its row shows the old one,
    # which the third claim's row shows too
    warehouse.con.execute("UPDATE claims SET cleaned_text = (SELECT cleaned_text FROM claims WHERE claim_id = ?) "
                          "WHERE claim_id = ?", [ids[0], ids[1]])
    read = parse_csv(_write(tmp_path / "labelled.csv", rows), pairs=partial(store.pair_tasks, warehouse))
    assert len(read) == len(rows)  # it was: the second claim's row refused as showing the third's text


def test_sheets_as_exported_or_without_the_id_columns_read_back(warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    lookup = partial(store.pair_tasks, warehouse)
    exported = parse_csv(_write(tmp_path / "as-exported.csv", rows), pairs=lookup)
    by_hand = parse_csv(_write(tmp_path / "by-hand.csv", rows, ["pair_id", "round", "annotator_id", "label"]), pairs=lookup)
    blank_ids = parse_csv(_write(tmp_path / "blank-ids.csv", [{**r, "claim_id": "", "article_id": ""} for r in rows]),
                          pairs=lookup)
    expected = {(r["pair_id"], r["label"]) for r in rows}
    for records in (exported, by_hand, blank_ids):
        assert {(a.pair_id, a.label) for a in records} == expected


def test_an_id_a_spreadsheet_rewrote_as_a_number_is_not_taken_for_another_pair(tmp_path: Path) -> None:
    # about one id in 800 is all digits; Excel shows 0123456789012345 as 1.23457E+14 and saves it so
    stored = {"p1": {"claim_id": "c1", "article_id": "0123456789012345"}}
    sheet = _write(tmp_path / "excel.csv", [{"pair_id": "p1", "round": "pilot-1", "annotator_id": "ann-1",
                                             "claim_id": "c1", "article_id": "1.23457E+14", "label": "agree"}])
    assert [a.pair_id for a in parse_csv(sheet, pairs=lambda ids: {p: stored[p] for p in ids if p in stored})] == ["p1"]


def test_problems_name_the_spreadsheet_row_and_the_pair_not_the_line_of_text(tmp_path: Path) -> None:
    article = "السطر الأول من الخبر\nالسطر الثاني\nالسطر الثالث"
    rows = [{"pair_id": f"p{i}", "round": "pilot-1", "annotator_id": "ann-1", "article": article, "label": "agree"}
            for i in range(4)]
    rows[3]["label"] = "موافق"
    sheet = tmp_path / "multiline.csv"
    _write(sheet, rows)
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(sheet)
    # it was: "line 13" (the record's last line of text); the spreadsheet shows it on row 5
    assert err.value.problems == ["row 5 (pair p3): unknown label 'موافق'; expected one of agree, disagree, discuss, unrelated"]


def test_a_blank_line_is_a_row_of_the_spreadsheet(tmp_path: Path) -> None:
    sheet = tmp_path / "blank.csv"
    sheet.write_text("pair_id,round,annotator_id,label\np0,pilot-1,ann-1,agree\n\np1,pilot-1,,agree\n", encoding="utf-8")
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(sheet)
    assert err.value.problems == ["row 4 (pair p1): missing field(s) ['annotator_id']"]


def test_a_row_without_a_pair_id_is_named_by_its_row(tmp_path: Path) -> None:
    sheet = tmp_path / "no-pair.csv"
    text = 'pair_id,round,annotator_id,label\n"",pilot-1,ann-1,agree\n"p1","pilot-1","ann-1","agree"\np2\rx,pilot-1\n'
    sheet.write_bytes(text.encode("utf-8"))  # a lone carriage return in a cell without quotes: csv's one error here
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(sheet)
    assert err.value.problems[0] == "row 2: missing field(s) ['pair_id']"
    assert err.value.problems[1].startswith("row 4: malformed CSV: ")


def test_importing_a_sheet_whose_pair_id_column_alone_was_sorted_stores_nothing(
        warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 3, 2)
    done = export_round(warehouse, "pilot", AnnotationSettings(), tmp_path / "tasks", size=6)
    with (done.directory / "ann-1.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    ids = sorted((r["pair_id"] for r in rows), reverse=True)
    sheet = tmp_path / "sorted.csv"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, "pair_id": p, "label": "agree"} for r, p in zip(rows, ids))
    with pytest.raises(AnnotationFileError, match=r"(?s)sorted\.csv: nothing imported.*row \d+ \(pair [0-9a-f]+\): the row's"):
        import_annotations(warehouse, sheet)  # it was: six labels stored, on the wrong pairs
    assert warehouse.scalar("SELECT count(*) FROM annotations") == 0


# Excel saves 0123456789012345 (about one pair id in 800 is digits only) as 1.23457E+14
EXCEL_NUMBER = "1.23457E+14"


def test_a_pair_id_a_spreadsheet_turned_into_a_number_is_found_by_claim_and_article(
        warehouse: Warehouse, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    sheet = _write(tmp_path / "excel.csv", [{**r, "pair_id": EXCEL_NUMBER} if i == 2 else r for i, r in enumerate(rows)])
    caplog.set_level(logging.INFO, logger="tasks.annotation.csv_io")
    done = import_annotations(warehouse, sheet)  # it was: "row 4 (pair 1.23457E+14): unknown pair '1.23457E+14'"
    assert done.new == len(rows)
    stored = {r["pair_id"]: r["label"] for r in store.annotations(warehouse)}
    assert stored == {r["pair_id"]: r["label"] for r in rows}
    [said] = [r for r in caplog.records if r.name == "tasks.annotation.csv_io"]
    assert (said.file, said.rows) == (str(sheet), 1)


def test_a_later_problem_of_a_row_found_by_claim_and_article_names_its_pair_and_the_number_shown(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    again = {**rows[2], "label": "unrelated" if rows[2]["label"] != "unrelated" else "agree"}
    sheet = _write(tmp_path / "excel.csv", [{**r, "pair_id": EXCEL_NUMBER} if i == 2 else r for i, r in enumerate(rows)]
                   + [again])
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, sheet)
    pair = rows[2]["pair_id"]  # it was: "... but row 4 (pair 1.23457E+14) says ...", a pair the sheet has no more
    assert err.value.problems == [
        f"row {len(rows) + 2} (pair {pair}): annotator {again['annotator_id']!r} labels pair {pair} {again['label']!r} "
        f"in round {again['round']!r}, but row 4 (pair {pair}, saved as {EXCEL_NUMBER}) says {rows[2]['label']!r}"]


def test_two_pair_ids_a_spreadsheet_turned_into_the_same_number_are_two_pairs(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    sheet = _write(tmp_path / "excel.csv", [{**r, "pair_id": EXCEL_NUMBER} if i < 2 else r for i, r in enumerate(rows)])
    records = parse_csv(sheet, pairs=partial(store.pair_tasks, warehouse), pair_ids=partial(store.pair_ids_of, warehouse))
    assert {(a.pair_id, a.label) for a in records} == {(r["pair_id"], r["label"]) for r in rows}


def test_a_row_whose_pair_id_and_article_id_a_spreadsheet_turned_into_numbers_is_refused(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    rows[1] = {**rows[1], "pair_id": EXCEL_NUMBER, "article_id": "1.23457E+15"}
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, _write(tmp_path / "excel.csv", rows))
    assert err.value.problems == [
        f"row 3 (pair {EXCEL_NUMBER}): unknown pair {EXCEL_NUMBER!r}: a spreadsheet turned the pair_id into a number, "
        "and the row's claim_id and article_id do not name its pair (its article_id '1.23457E+15' is a number too); "
        "open the sheet with its columns as text (Excel: Data > From Text/CSV, data type Text), or keep the pair_id, "
        "claim_id and article_id columns as text, or label in Label Studio and import its JSON export"]
    assert warehouse.scalar("SELECT count(*) FROM annotations") == 0


def test_a_pair_id_turned_into_a_number_on_a_row_naming_no_stored_pair_is_refused(
        warehouse: Warehouse, tmp_path: Path) -> None:
    rows = _exported_sheet(warehouse, tmp_path)
    other = next(r["article_id"] for r in rows if r["claim_id"] != rows[0]["claim_id"])  # never paired with rows[0]'s claim
    rows[0] = {**rows[0], "pair_id": EXCEL_NUMBER, "article_id": other}
    rows[1] = {**rows[1], "pair_id": EXCEL_NUMBER, "claim_id": ""}
    with pytest.raises(AnnotationFileError) as err:
        parse_csv(_write(tmp_path / "excel.csv", rows), pairs=partial(store.pair_tasks, warehouse),
                  pair_ids=partial(store.pair_ids_of, warehouse))
    first, second = err.value.problems
    assert first.startswith(f"row 2 (pair {EXCEL_NUMBER}): unknown pair {EXCEL_NUMBER!r}: a spreadsheet turned")
    assert f"(no pair has claim_id {rows[0]['claim_id']!r} and article_id {other!r})" in first
    assert second.startswith(f"row 3 (pair {EXCEL_NUMBER}): unknown pair") and "(the row has no claim_id)" in second
