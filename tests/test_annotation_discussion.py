"""The pilot's discussion step: disputed pilot pairs to a sheet, decisions with reasons become gold."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers_annotation import (
    CSV_DEFAULT_CELL_LIMIT,
    LONG_ARTICLE,
    add_claims,
    csv_cell_limit,
    ls_annotation,
    ls_task,
    write_json,
)
from helpers_disk import read_only
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.annotation.csv_io import KEEP_IDS_AS_TEXT
from tasks.annotation.discussion import import_discussion
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import adjudicate, export_round, import_annotations
from tasks.dataset.load_export import load_export
from warehouse import Warehouse, open_warehouse
from warehouse import annotation as store

# pilot labels per pair: unanimous, two against one, all different
PILOT = [("agree", "agree", "agree"), ("agree", "agree", "unrelated"), ("agree", "discuss", "unrelated")]


def _pilot(wh: Warehouse, tmp_path: Path, claims: int = 1) -> tuple[list[str], Path]:
    """A pilot round of three pairs (of one claim, or each of its own) labelled as :data:`PILOT` says, in pair order."""
    cfg = load_settings().annotation
    add_claims(wh, claims, 3 // claims)
    pilot = export_round(wh, "pilot", cfg, tmp_path / "tasks", size=3)
    pairs = sorted({t["pair_id"] for t in store.round_tasks(wh, pilot.round)})
    for k, annotator in enumerate(cfg.annotators):
        payload = [ls_task(p, pilot.round, [ls_annotation(annotator, PILOT[i][k])], i + 1) for i, p in enumerate(pairs)]
        import_annotations(wh, write_json(tmp_path / "labelled" / f"{annotator}.json", payload))
    return pairs, pilot.directory


def _sheet(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _fill(path: Path, out: Path, decisions: dict[str, tuple[str, str]]) -> Path:
    rows = _sheet(path)
    for row in rows:
        if row["pair_id"] in decisions:
            row["decision"], row["reason"] = decisions[row["pair_id"]]
            row["decided_by"] = "ann-1, ann-2, ann-3"
    with out.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


def test_disputed_pilot_pairs_go_to_a_discussion_sheet_not_to_a_majority(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    result = adjudicate(warehouse, load_settings().annotation, tmp_path / "tasks")
    assert (result.gold, result.discussion, result.disputed) == (1, 2, 0)
    assert result.new_round is None  # nobody else is asked: the pilot's annotators discuss
    assert result.discussion_sheets == [round_dir / "discussion.csv"]
    rows = _sheet(round_dir / "discussion.csv")
    assert [r["pair_id"] for r in rows] == pairs[1:]
    assert rows[0]["labels"] == "ann-1=agree; ann-2=agree; ann-3=unrelated"
    assert all(r["decision"] == r["reason"] == "" and r["claim"] and r["article"] for r in rows)
    gold = {r["pair_id"]: r["label"] for r in warehouse.query("SELECT pair_id, label FROM gold_labels")}
    assert gold == {pairs[0]: "agree"}  # the two-against-one pair is not decided by majority


def test_discussion_decisions_become_gold_with_their_reason_and_are_reported_per_round(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    reason = "the article is about last year's exams: a different event"
    filled = _fill(round_dir / "discussion.csv", tmp_path / "filled.csv", {pairs[1]: ("Unrelated", reason)})
    done = import_discussion(warehouse, filled)
    assert (done.decisions, done.new, done.waiting) == (1, 1, 1)
    assert import_discussion(warehouse, filled).new == 0  # importing again changes nothing
    result = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (result.gold, result.discussion) == (2, 1)
    gold = {r["pair_id"]: (r["label"], r["method"]) for r in warehouse.query("SELECT * FROM gold_labels")}
    assert gold[pairs[1]] == ("unrelated", "adjudicated")  # the discussion, against the 2-of-3 majority
    assert [r["pair_id"] for r in _sheet(round_dir / "discussion.csv")] == [pairs[2]]
    [stored] = store.pilot_discussions(warehouse, "pilot-1")
    assert (stored["label"], stored["reason"], stored["decided_by"]) == ("unrelated", reason, "ann-1, ann-2, ann-3")
    [report] = store.pilot_discussion_report(warehouse)
    assert report == {"round": "pilot-1", "pilot_pairs": 3, "disputed": 2, "discussed": 1, "waiting": 1,
                      "agree": 0, "disagree": 0, "discuss": 0, "unrelated": 1}


def test_writing_the_sheet_again_keeps_what_the_discussion_filled_in(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    _fill(sheet, sheet, {pairs[2]: ("discuss", "same strike, no position taken")})
    adjudicate(warehouse, cfg, tmp_path / "tasks")  # not imported yet: the sheet is rewritten
    kept = {r["pair_id"]: (r["decision"], r["reason"]) for r in _sheet(sheet)}
    assert kept[pairs[2]] == ("discuss", "same strike, no position taken") and kept[pairs[1]] == ("", "")


def test_a_sheet_with_an_article_longer_than_csvs_cell_limit_is_rewritten_and_imported(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    warehouse.con.execute("UPDATE articles SET text = ?", [LONG_ARTICLE])
    cfg = load_settings().annotation
    sheet = round_dir / "discussion.csv"
    with csv_cell_limit(CSV_DEFAULT_CELL_LIMIT):
        adjudicate(warehouse, cfg, tmp_path / "tasks")
    with csv_cell_limit(10 * len(LONG_ARTICLE)):  # the discussion's spreadsheet has no such limit
        _fill(sheet, sheet, {pairs[2]: ("discuss", "same strike, no position taken")})
    with csv_cell_limit(CSV_DEFAULT_CELL_LIMIT):  # both were refused: "line 1: malformed CSV: field larger than ..."
        adjudicate(warehouse, cfg, tmp_path / "tasks")  # rereads the sheet to keep what was filled in
        done = import_discussion(warehouse, sheet)
    assert (done.decisions, done.new, done.waiting) == (1, 1, 1)
    with csv_cell_limit(10 * len(LONG_ARTICLE)):
        rows = {r["pair_id"]: r for r in _sheet(sheet)}
    assert rows[pairs[2]]["decision"] == "discuss" and len(rows[pairs[1]]["article"]) == len(LONG_ARTICLE)


@pytest.mark.parametrize(
    ("decision", "reason", "message"),
    [
        ("agree", "", "without a reason"),
        ("maybe", "unsure", "unknown decision 'maybe'"),
        ("", "we could not agree", "a reason without a decision"),
    ],
)
def test_a_bad_sheet_row_is_refused_whole_naming_the_row_and_pair(
    warehouse: Warehouse, tmp_path: Path, decision: str, reason: str, message: str
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    adjudicate(warehouse, load_settings().annotation, tmp_path / "tasks")
    filled = _fill(round_dir / "discussion.csv", tmp_path / "bad.csv",
                   {pairs[1]: ("agree", "a fine reason"), pairs[2]: (decision, reason)})
    with pytest.raises(AnnotationFileError) as err:
        import_discussion(warehouse, filled)
    assert f"row 3 (pair {pairs[2]}): " in str(err.value) and message in str(err.value)
    assert store.pilot_discussions(warehouse) == []  # nothing imported


def test_only_disputed_pilot_pairs_can_be_decided_and_a_decision_is_not_overwritten(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    adjudicate(warehouse, load_settings().annotation, tmp_path / "tasks")
    sheet = tmp_path / "manual.csv"
    sheet.write_text(f"pair_id,round,decision,reason,decided_by\n{pairs[0]},pilot-1,agree,all agreed,\n", encoding="utf-8")
    with pytest.raises(AnnotationFileError, match="agreed in 'pilot-1'; there is nothing to discuss"):
        import_discussion(warehouse, sheet)
    import_discussion(warehouse, _fill(round_dir / "discussion.csv", tmp_path / "a.csv", {pairs[1]: ("agree", "r")}))
    with pytest.raises(AnnotationFileError, match="was decided 'agree' before"):
        import_discussion(warehouse, _fill(round_dir / "discussion.csv", tmp_path / "b.csv", {pairs[1]: ("discuss", "r")}))


def test_cli_discuss_then_status_reports_the_decisions_and_reasons(tmp_path: Path) -> None:
    settings = load_settings()
    with open_warehouse(settings.warehouse) as wh:
        pairs, _ = _pilot(wh, tmp_path)
    runner = CliRunner()
    out = runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")])
    assert out.exit_code == 0, out.output
    assert "discussion.csv" in out.output
    filled = _fill(tmp_path / "tasks" / "pilot-1" / "discussion.csv", tmp_path / "filled.csv",
                   {pairs[1]: ("disagree", "the article denies it in its last paragraph")})
    done = runner.invoke(app, ["annotate", "discuss", str(filled)])
    assert done.exit_code == 0, done.output
    status = runner.invoke(app, ["annotate", "status"], env={"COLUMNS": "300"})
    assert status.exit_code == 0, status.output
    assert "settled by discussion" in status.output and "denies it in its last" in status.output
    # a report reads the readers' copy: it opened the writer's file, so it was refused on a warehouse
    # directory this user cannot write, and waited for any writer
    with read_only(settings.warehouse.parent):
        read = runner.invoke(app, ["annotate", "status"], env={"COLUMNS": "300"})
    assert read.exit_code == 0, read.output
    assert read.output == status.output
    with open_warehouse(settings.warehouse, read_only=True) as wh:
        assert wh.query("SELECT label FROM gold_labels WHERE pair_id = ?", [pairs[1]]) == [{"label": "disagree"}]


def _resave(sheet: Path, how: str) -> None:
    """Save ``sheet`` as a spreadsheet in an Arabic Windows locale does: cp1256, or ';' between fields."""
    text = sheet.read_text(encoding="utf-8")
    if how == "cp1256":
        sheet.write_bytes(text.replace("\n", "\r\n").encode("cp1256", "replace"))
    else:
        rows = list(csv.reader(text.splitlines()))
        sheet.write_text("\n".join(";".join(row) for row in rows) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("how", "message"), [("cp1256", "line 2, column"), ("semicolons", "separated by ';'")])
def test_a_sheet_a_spreadsheet_resaved_stops_adjudicate_before_it_stores_a_round(
    warehouse: Warehouse, tmp_path: Path, how: str, message: str
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    _fill(sheet, sheet, {pairs[2]: ("discuss", "same strike, no position taken")})
    filled = sheet.read_text(encoding="utf-8")
    [p1, p2] = add_claims(warehouse, 1, 2, start=1)
    prod = export_round(warehouse, "production", cfg, tmp_path / "tasks")
    given = sorted((t["annotator_id"], t["pair_id"]) for t in store.round_tasks(warehouse, prod.round))
    differs = max(a for a, p in given if p == p1)  # p1's two annotators differ: a dispute for a third one
    for annotator in {a for a, _ in given}:
        labels = [ls_task(p, prod.round, [ls_annotation(a, "discuss" if (a, p) == (differs, p1) else "agree")], i)
                  for i, (a, p) in enumerate(given, 1) if a == annotator]
        import_annotations(warehouse, write_json(tmp_path / "prod" / f"{annotator}.json", labels))
    _resave(sheet, how)
    resaved = sheet.read_bytes()
    with pytest.raises(ValueError) as err:  # the CLI shows it as one line
        adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert message in str(err.value) and "nothing imported" not in str(err.value)
    assert str(sheet) in str(err.value) and "no adjudication round was created" in str(err.value)
    # it was: adjudication-1 stored and its files written, then the error; the re-run never announced it
    assert "adjudication-1" not in store.round_kinds(warehouse) and not (tmp_path / "tasks" / "adjudication-1").exists()
    assert sheet.read_bytes() == resaved  # what the discussion filled in is not overwritten
    with pytest.raises(AnnotationFileError, match=message):  # `annotate discuss` names the problem the same way
        import_discussion(warehouse, sheet)
    sheet.write_text(filled, encoding="utf-8")  # the team saves it as UTF-8 again
    result = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert result.new_round is not None and result.new_round.round == "adjudication-1" and result.new_round.pairs == 1
    assert result.discussion_sheets == [sheet]
    kept = {r["pair_id"]: (r["decision"], r["reason"]) for r in _sheet(sheet)}
    assert kept[pairs[2]] == ("discuss", "same strike, no position taken")


def test_a_pilot_pair_still_to_be_labelled_cannot_be_discussed(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    add_claims(warehouse, 1, 2)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=2)
    pairs = sorted({t["pair_id"] for t in store.round_tasks(warehouse, pilot.round)})

    def label(annotator: str, labels: tuple[str, str]) -> None:
        payload = [ls_task(p, pilot.round, [ls_annotation(annotator, lab)], i) for i, (p, lab) in enumerate(zip(pairs, labels), 1)]
        import_annotations(warehouse, write_json(tmp_path / "labelled" / f"{annotator}.json", payload))

    label("ann-1", ("agree", "agree"))
    label("ann-2", ("discuss", "agree"))  # ann-3 has not labelled yet: both pairs are pending
    sheet = tmp_path / "early.csv"
    sheet.write_text(f"pair_id,round,decision,reason,decided_by\n{pairs[0]},pilot-1,agree,early call,lead\n", encoding="utf-8")
    with pytest.raises(AnnotationFileError, match=f"pair {pairs[0]} is pending in 'pilot-1': ann-3 still to label it"):
        import_discussion(warehouse, sheet)
    assert store.pilot_discussions(warehouse) == []  # it was: stored, and the pair gold before ann-3 labelled it
    assert warehouse.query("SELECT * FROM gold_labels") == []
    label("ann-3", ("unrelated", "agree"))
    assert import_discussion(warehouse, sheet).new == 1  # every label in: the dispute can be discussed


# Excel saves 0123456789012345 (about one pair id in 800 is digits only) as 1.23457E+14
EXCEL_NUMBER = "1.23457E+14"


def _edit(sheet: Path, row_of: str, **cells: str) -> Path:
    """Change the cells of pair ``row_of``'s row of ``sheet`` in place, as a spreadsheet saving it would."""
    rows = _sheet(sheet)
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, **cells} if r["pair_id"] == row_of else r for r in rows)
    return sheet


def _one_line(output: str) -> str:
    return " ".join(output.split())


def _discussed_through_the_cli(runner: CliRunner, tmp_path: Path) -> tuple[list[str], Path]:
    """A pilot round's pairs and its discussion sheet, written by `annotate adjudicate` and filled in for the
    third pair (a "discuss" decision with its reason)."""
    with open_warehouse(load_settings().warehouse) as wh:
        pairs, round_dir = _pilot(wh, tmp_path)
    assert runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")]).exit_code == 0
    sheet = round_dir / "discussion.csv"
    _fill(sheet, sheet, {pairs[2]: ("discuss", "same strike, no position taken")})
    return pairs, sheet


def test_a_pair_id_a_spreadsheet_turned_into_a_number_keeps_its_decision_and_is_imported(tmp_path: Path) -> None:
    runner = CliRunner()
    pairs, sheet = _discussed_through_the_cli(runner, tmp_path)
    _edit(sheet, pairs[2], pair_id=EXCEL_NUMBER)
    saved = tmp_path / "saved.csv"
    saved.write_bytes(sheet.read_bytes())
    out = runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")])
    assert out.exit_code == 0, out.output
    kept = {r["pair_id"]: (r["decision"], r["reason"]) for r in _sheet(sheet)}
    # it was: the row keyed by 1.23457E+14 matched no pair, and the decision and reason were dropped
    assert kept == {pairs[1]: ("", ""), pairs[2]: ("discuss", "same strike, no position taken")}
    for filled in (saved, sheet):  # the sheet as the spreadsheet saved it, and as rewritten
        done = runner.invoke(app, ["annotate", "discuss", str(filled)])
        assert done.exit_code == 0, done.output  # it was: "line 3: pair 1.23457E+14 has no labels in pilot round"
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        [stored] = store.pilot_discussions(wh, "pilot-1")
        assert (stored["pair_id"], stored["label"], stored["source_file"]) == (pairs[2], "discuss", "saved.csv")


def test_a_later_problem_of_a_row_found_by_claim_and_article_names_its_pair_and_the_number_shown(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    adjudicate(warehouse, load_settings().annotation, tmp_path / "tasks")
    sheet = _fill(round_dir / "discussion.csv", tmp_path / "filled.csv", {pairs[2]: ("maybe", "unsure")})
    _edit(sheet, pairs[2], pair_id=EXCEL_NUMBER)
    with pytest.raises(AnnotationFileError) as err:
        import_discussion(warehouse, sheet)
    assert err.value.problems == [f"row 3 (pair {pairs[2]}, saved as {EXCEL_NUMBER}): unknown decision 'maybe'; "
                                  "expected one of agree, disagree, discuss, unrelated"]


@pytest.mark.parametrize(
    ("cells", "shown", "message"),
    [
        ({"pair_id": EXCEL_NUMBER, "claim_id": ""}, f"row 3 (pair {EXCEL_NUMBER})",
         f"unknown pair '{EXCEL_NUMBER}': a spreadsheet turned the pair_id into a number, and the row's claim_id "
         f"and article_id do not name its pair (the row has no claim_id); {KEEP_IDS_AS_TEXT}"),
        ({"pair_id": EXCEL_NUMBER, "article_id": "4.56789E+15"}, f"row 3 (pair {EXCEL_NUMBER})",
         "unknown pair '1.23457E+14': a spreadsheet turned the pair_id into a number, and the row's claim_id and "
         "article_id do not name its pair (its article_id '4.56789E+15' is a number too)"),
        ({"pair_id": ""}, "row 3", "no pair_id: the row's decision and reason belong to no pair"),
    ],
    ids=["no-claim-id", "article-id-a-number-too", "pair-id-cleared"],
)
def test_a_filled_in_row_that_names_no_pair_stops_adjudicate_naming_the_sheet_and_row(
    tmp_path: Path, cells: dict[str, str], shown: str, message: str
) -> None:
    runner = CliRunner()
    pairs, sheet = _discussed_through_the_cli(runner, tmp_path)
    saved = _edit(sheet, pairs[2], **cells).read_bytes()
    out = runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")])
    assert out.exit_code != 0  # it was: the sheet rewritten without the row's decision and reason, and no word
    assert f"{sheet}: cannot read the discussion sheet back to keep what was filled in: {shown}: {message}" \
        in _one_line(out.output)
    assert "Nothing was written and no adjudication round was created" in _one_line(out.output)
    assert sheet.read_bytes() == saved
    if cells["pair_id"]:  # `annotate discuss` names the row and the number shown the same way
        done = runner.invoke(app, ["annotate", "discuss", str(sheet)])
        assert done.exit_code != 0 and f"{shown}: {message}" in _one_line(done.output)


def test_a_discussion_sheet_problem_names_the_row_a_spreadsheet_shows_blank_rows_counted(
    tmp_path: Path
) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        pairs, round_dir = _pilot(wh, tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")]).exit_code == 0
    sheet = _fill(round_dir / "discussion.csv", tmp_path / "filled.csv", {pairs[2]: ("agree", "")})
    header, first, second = sheet.read_text(encoding="utf-8").splitlines()
    sheet.write_text("\n".join([header, first, "", second]) + "\n", encoding="utf-8")  # an empty row 3
    done = runner.invoke(app, ["annotate", "discuss", str(sheet)])
    assert done.exit_code != 0
    # it was: "line 3", as csv.DictReader counts the rows it gives, skipping the blank one
    assert f"row 4 (pair {pairs[2]}): decision 'agree' without a reason" in _one_line(done.output)


#: Our own claims and articles, one article to a claim, so that the rows of a sheet show different claims:
#: (claim, article title, article).
NEWS = (
    ("افتتاح جسر الملك فهد الثاني بين الدمام والبحرين مطلع الشهر المقبل",
     "وزارة النقل: الجسر الجديد يُفتح أمام السيارات في مارس",
     "أعلنت وزارة النقل أن الجسر الثاني سيُفتح أمام السيارات في مارس بعد اكتمال أعمال الرصف والإنارة."),
    ("إغلاق جميع مدارس القاهرة أسبوعين بسبب الأمطار الغزيرة",
     "التعليم تنفي إغلاق المدارس وتؤكد انتظام الدراسة",
     "نفت وزارة التربية والتعليم ما تداولته صفحات التواصل عن إغلاق المدارس، وأكدت انتظام الدراسة غدًا."),
    ("رفع سعر رغيف الخبز المدعم إلى جنيه واحد ابتداءً من يوليو",
     "مجلس الوزراء يناقش منظومة الدعم في اجتماعه الأسبوعي",
     "ناقش مجلس الوزراء في اجتماعه الأسبوعي منظومة الدعم دون أن يصدر قرارًا بشأن سعر الخبز."),
)


def _pilot_of_three_claims(wh: Warehouse, tmp_path: Path) -> tuple[list[str], Path]:
    """:func:`_pilot` over three claims of one article each, their text our :data:`NEWS`, in pair order."""
    pairs, round_dir = _pilot(wh, tmp_path, claims=3)
    for pair_id, (claim, title, text) in zip(pairs, NEWS):
        [ids] = wh.query("SELECT claim_id, article_id FROM claim_article_pairs WHERE pair_id = ?", [pair_id])
        wh.con.execute("UPDATE claims SET cleaned_text = ? WHERE claim_id = ?", [claim, ids["claim_id"]])
        wh.con.execute("UPDATE articles SET title = ?, text = ? WHERE article_id = ?", [title, text, ids["article_id"]])
    return pairs, round_dir


def _sort_alone(sheet: Path, column: str) -> list[dict[str, str]]:
    """Sort ``column`` of ``sheet`` on its own, as Excel does when told to "continue with the current
    selection", A to Z or Z to A, whichever moves its cells; return the rows as they were."""
    rows = _sheet(sheet)
    cells = [r[column] for r in rows]
    moved = sorted(cells) if sorted(cells) != cells else sorted(cells, reverse=True)
    assert moved != cells
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, column: cell} for r, cell in zip(rows, moved))
    return rows


def test_a_decision_taken_beside_another_pairs_claim_is_refused_naming_sheet_row_and_pair(tmp_path: Path) -> None:
    runner = CliRunner()
    with open_warehouse(load_settings().warehouse) as wh:
        pairs, round_dir = _pilot_of_three_claims(wh, tmp_path)
    assert runner.invoke(app, ["annotate", "adjudicate", "--out", str(tmp_path / "tasks")]).exit_code == 0
    sheet = round_dir / "discussion.csv"
    before = _sort_alone(sheet, "claim")  # the team sorts the sheet by claim, the claim column alone
    # and decides each row on the claim and article it shows now
    _fill(sheet, sheet, {pairs[1]: ("unrelated", "المقال عن الجسر لا عن المدارس"),
                         pairs[2]: ("unrelated", "المقال عن المدارس لا عن الخبز")})
    done = runner.invoke(app, ["annotate", "discuss", str(sheet)])
    assert done.exit_code != 0  # it was: both decisions stored as gold of the pairs the rows' pair_ids name
    shown = _one_line(done.output)
    assert f"{sheet}: nothing imported, 2 problem(s):" in shown
    assert (f"row 2 (pair {pairs[1]}): the row's claim {before[1]['claim'][:40] + '…'!r} is not pair {pairs[1]}'s "
            f"(claim {before[0]['claim'][:40] + '…'!r}): the row shows another pair than its pair_id names "
            "(was the claim column sorted apart from the rest of the row?)") in shown
    assert f"row 3 (pair {pairs[2]}): the row's claim" in shown
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert store.pilot_discussions(wh) == [] and wh.query("SELECT * FROM gold_labels WHERE pair_id <> ?", [pairs[0]]) == []


@pytest.mark.parametrize(
    ("column", "disagrees"),
    [("pair_id", "claim_id"), ("claim_id", "claim_id"), ("article_id", "article_id"), ("claim", "claim"),
     ("article_title", "article_title"), ("article", "article")],
)
def test_a_column_sorted_apart_from_the_row_stops_both_the_import_and_the_rewrite(
    warehouse: Warehouse, tmp_path: Path, column: str, disagrees: str
) -> None:
    pairs, round_dir = _pilot_of_three_claims(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    _sort_alone(sheet, column)
    decided = _sheet(sheet)[0]  # the first row decided, on the claim and article it shows
    _fill(sheet, sheet, {decided["pair_id"]: ("disagree", "المقال ينفي الخبر صراحة")})
    with pytest.raises(AnnotationFileError) as err:
        import_discussion(warehouse, sheet)
    [problem] = err.value.problems
    assert problem.startswith(f"row 2 (pair {decided['pair_id']}): the row's {disagrees} ")
    assert store.pilot_discussions(warehouse) == []
    saved = sheet.read_bytes()
    with pytest.raises(ValueError) as stopped:  # rewritten, the row would show its pair's text beside that decision
        adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert f"{sheet}: cannot read the discussion sheet back to keep what was filled in: {problem}" in str(stopped.value)
    assert sheet.read_bytes() == saved


def test_a_sheet_a_spreadsheet_saved_with_its_own_line_ends_apostrophes_and_cut_cells_is_imported(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot_of_three_claims(warehouse, tmp_path)
    warehouse.con.execute("UPDATE claims SET cleaned_text = '- ' || cleaned_text")  # a sign: written as a formula's text
    warehouse.con.execute("UPDATE articles SET text = text || '\n\n' || ?", [LONG_ARTICLE])
    cfg = load_settings().annotation
    sheet = round_dir / "discussion.csv"
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    with csv_cell_limit(10 * len(LONG_ARTICLE)):
        rows = _sheet(sheet)
        assert rows[0]["claim"].startswith("'- ")
        resaved = [{**r, "claim": r["claim"].removeprefix("'"), "article": r["article"][:32_767].replace("\n", "\r\n"),
                    "decision": "discuss", "reason": "نفس الحدث دون موقف"} for r in rows]
        with sheet.open("w", encoding="utf-8", newline="") as fh:  # Excel: the apostrophe taken, a cell cut at 32,767
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\r\n")
            writer.writeheader()
            writer.writerows(resaved)
        copy = tmp_path / "resaved.csv"
        copy.write_bytes(sheet.read_bytes())
        adjudicate(warehouse, cfg, tmp_path / "tasks")  # reads the sheet back to keep the decisions
        assert [r["decision"] for r in _sheet(sheet)] == ["discuss", "discuss"]
        done = import_discussion(warehouse, copy)
    assert (done.decisions, done.new) == (2, 2)


def test_a_filled_in_row_whose_pair_was_decided_otherwise_stops_adjudicate_and_is_not_dropped(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    # one member of the team imports a copy; on the shared sheet another decides the same pair otherwise
    import_discussion(warehouse, _fill(sheet, tmp_path / "copy.csv", {pairs[1]: ("agree", "المقال يؤكد الخبر")}))
    _fill(sheet, sheet, {pairs[1]: ("disagree", "المقال ينفي الخبر في فقرته الأخيرة")})
    saved = sheet.read_bytes()
    with pytest.raises(ValueError) as err:
        adjudicate(warehouse, cfg, tmp_path / "tasks")  # it was: the sheet rewritten without the row, and no word
    assert str(err.value) == (
        f"{sheet}: cannot read the discussion sheet back to keep what was filled in: row 2 (pair {pairs[1]}): "
        f"pair {pairs[1]} was decided 'agree' before (from copy.csv), so the sheet no longer lists it: rewriting "
        "the sheet would drop the row's decision 'disagree' and its reason; clear the row's decision, reason and "
        "decided_by. Nothing was written and no adjudication round was created; fix the sheet and run "
        "`annotate adjudicate` again")
    assert sheet.read_bytes() == saved
    _edit(sheet, pairs[1], decision="agree")  # the decision stored: nothing is lost when the row goes
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert [r["pair_id"] for r in _sheet(sheet)] == [pairs[2]]


def test_a_filled_in_row_whose_pair_a_dataset_file_made_gold_stops_adjudicate(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    _fill(sheet, sheet, {pairs[2]: ("discuss", "المقال عن الحدث نفسه دون موقف")})
    row = _sheet(sheet)[1]
    release = tmp_path / "release"
    write_json(release / "train.jsonl", {"id": row["claim_id"], "claim": row["claim"], "article": [row["article"]],
                                         "article_title": [row["article_title"]], "article_url": [row["article_url"]],
                                         "stance": ["Unrelated"]})
    load_export(warehouse, release, source_id="arastance")
    saved = sheet.read_bytes()
    with pytest.raises(ValueError) as err:
        adjudicate(warehouse, cfg, tmp_path / "tasks")  # it was: the sheet rewritten without the row, and no word
    assert (f"row 3 (pair {pairs[2]}): pair {pairs[2]}'s gold label 'unrelated' comes from a dataset file "
            "(`dataset load`), which a discussion does not replace, so the sheet no longer lists it") in str(err.value)
    assert sheet.read_bytes() == saved


def test_a_filled_in_row_whose_pairs_annotators_now_agree_stops_adjudicate(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs, round_dir = _pilot(warehouse, tmp_path)
    cfg = load_settings().annotation
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    sheet = round_dir / "discussion.csv"
    _fill(sheet, sheet, {pairs[1]: ("disagree", "المقال ينفي الخبر في فقرته الأخيرة")})
    # ann-3 is asked again: the label withdrawn in the warehouse, and the new one imported
    warehouse.con.execute("DELETE FROM annotations WHERE pair_id = ? AND annotator_id = 'ann-3'", [pairs[1]])
    again = [ls_task(pairs[1], "pilot-1", [ls_annotation("ann-3", "agree")])]
    import_annotations(warehouse, write_json(tmp_path / "again" / "ann-3.json", again))
    saved = sheet.read_bytes()
    with pytest.raises(ValueError) as err:
        adjudicate(warehouse, cfg, tmp_path / "tasks")  # it was: the sheet rewritten without the row, and no word
    assert (f"row 2 (pair {pairs[1]}): pair {pairs[1]} is gold (agreed, 'agree'), so the sheet no longer lists it: "
            "rewriting the sheet would drop the row's decision 'disagree' and its reason") in str(err.value)
    assert sheet.read_bytes() == saved
    _edit(sheet, pairs[1], decision="", reason="", decided_by="")  # the team lets the row go
    adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert [r["pair_id"] for r in _sheet(sheet)] == [pairs[2]]
