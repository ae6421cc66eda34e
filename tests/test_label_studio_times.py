"""When an imported Label Studio label was given: its annotation's ``updated_at`` (Label Studio moves it
each time the annotation is saved again), else ``created_at``; and what a later export of the same
project does to the labels already stored.

Label Studio 1.x writes both times on every annotation of its JSON export (``annotations[].created_at``
and ``updated_at``, "when the annotation is created or modified", next to ``lead_time`` and
``completed_by``: HumanSignal/label-studio, docs/source/includes/task_format.md). Its JSON-MIN and CSV
exports copy them to the top level of each row (``annotator``, ``annotation_id``, ``created_at``,
``updated_at``, ``lead_time``: HumanSignal/label-studio-converter, label_studio_converter/converter.py);
both are refused whole (tests/test_annotation_files.py)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_assigned_task, write_json
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import decide_gold_labels, import_annotations
from warehouse import Warehouse, open_warehouse

CREATED = "2021-03-02T10:00:00.000000Z"
CHANGED = "2021-03-05T16:30:00.250000Z"  # the annotator opened the task again and saved another label


def _labelled(annotator: str, label: str, created_at: str = CREATED, **times: Any) -> dict[str, Any]:
    """An annotation as Label Studio 1.x exports it, with ``times`` (``updated_at``) set as given."""
    return {**ls_annotation(annotator, label, created_at), "lead_time": 4.2, **times}


def _stored(wh: Warehouse) -> dict[str, tuple[str, str, str]]:
    """pair_id -> (label, annotated_at, source_file) of every stored annotation."""
    rows = wh.query("SELECT pair_id, label, annotated_at, source_file FROM annotations")
    return {r["pair_id"]: (r["label"], str(r["annotated_at"]), r["source_file"]) for r in rows}


def _counts(wh: Warehouse) -> tuple[int, int]:
    return wh.scalar("SELECT count(*) FROM annotations"), wh.scalar("SELECT count(*) FROM annotation_imports")


def test_a_label_is_dated_when_it_was_last_saved_else_when_it_was_created(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 5)
    add_round(warehouse, "prod-1", "production")
    export = write_json(tmp_path / "export.json", [
        ls_assigned_task(pairs[0], "prod-1", "ann-1", [_labelled("ann-1", "agree", updated_at=CHANGED)], 1),
        ls_assigned_task(pairs[1], "prod-1", "ann-1",
                         [_labelled("ann-1", "discuss", updated_at="2021-03-04T09:15:00+02:00")], 2),
        ls_assigned_task(pairs[2], "prod-1", "ann-1", [_labelled("ann-1", "unrelated", updated_at=None)], 3),
        ls_assigned_task(pairs[3], "prod-1", "ann-1", [_labelled("ann-1", "disagree")], 4),  # no updated_at at all
        # a blank cell of a hand-edited file or a converter's: no time, as null is (it refused the file)
        ls_assigned_task(pairs[4], "prod-1", "ann-1", [_labelled("ann-1", "agree", updated_at=" ")], 5),
    ])
    assert import_annotations(warehouse, export).new == 5
    assert {p: at for p, (_, at, _) in _stored(warehouse).items()} == {
        pairs[0]: "2021-03-05 16:30:00.250000",  # was 2021-03-02 10:00:00, when the first label was given
        pairs[1]: "2021-03-04 07:15:00",  # in UTC, as every warehouse time
        pairs[2]: "2021-03-02 10:00:00",
        pairs[3]: "2021-03-02 10:00:00",
        pairs[4]: "2021-03-02 10:00:00",
    }


def test_a_gold_label_is_decided_when_its_last_label_was_changed(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production", [(pairs[0], "ann-1"), (pairs[0], "ann-2")])
    for annotator, times in (("ann-1", {"updated_at": CHANGED}), ("ann-2", {"created_at": "2021-03-03T12:00:00Z"})):
        annotation = _labelled(annotator, "agree", **times)
        import_annotations(warehouse, write_json(tmp_path / f"{annotator}.json",
                                                 [ls_assigned_task(pairs[0], "prod-1", annotator, [annotation])]))
    [decision] = decide_gold_labels(warehouse, load_settings().annotation)
    assert (decision.status, decision.label, decision.method) == ("gold", "agree", "agreed")
    assert decision.decided_at == datetime(2021, 3, 5, 16, 30, 0, 250000)  # was ann-2's 2021-03-03 12:00
    assert str(warehouse.scalar("SELECT decided_at FROM gold_labels")) == "2021-03-05 16:30:00.250000"


@pytest.mark.parametrize(
    ("times", "message"),
    [
        ({"updated_at": "yesterday"}, "invalid field 'updated_at' ('yesterday'; expected ISO 8601)"),
        ({"updated_at": 1614938400}, "invalid field 'updated_at' (1614938400; expected ISO 8601)"),
        ({"created_at": "", "updated_at": None}, "missing fields 'updated_at' and 'created_at': when the label was given"),
        ({"created_at": "soon", "updated_at": CHANGED}, "invalid field 'created_at' ('soon'; expected ISO 8601)"),
        ({"created_at": None}, "missing fields 'updated_at' and 'created_at': when the label was given"),
    ],
)
def test_an_unreadable_time_refuses_the_file_naming_the_task_and_the_field(
    warehouse: Warehouse, tmp_path: Path, times: dict[str, Any], message: str
) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "prod-1", "production")
    good = ls_assigned_task(pairs[1], "prod-1", "ann-1", [_labelled("ann-1", "agree", updated_at=CHANGED)], 8)
    bad = ls_assigned_task(pairs[0], "prod-1", "ann-1", [{**_labelled("ann-1", "agree"), **times}], 7)
    path = write_json(tmp_path / "export.json", [good, bad])
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    assert str(err.value) == f"{path}: nothing imported: task 2 (id 7), annotation 1: {message}"
    assert _counts(warehouse) == (0, 0)


def test_a_later_export_of_the_project_adds_its_new_labels_and_refuses_a_changed_one(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs = add_claims(warehouse, 1, 3)
    add_round(warehouse, "prod-1", "production")

    def export(name: str, labels: list[tuple[str, dict[str, Any]]]) -> Path:
        return write_json(tmp_path / name, [ls_assigned_task(p, "prod-1", "ann-1", [_labelled("ann-1", label, **times)], i)
                                            for i, (p, (label, times)) in enumerate(zip(pairs, labels), start=1)])

    first = export("project-1-at-0305.json", [("agree", {"updated_at": CHANGED})])
    assert import_annotations(warehouse, first).new == 1
    assert import_annotations(warehouse, first).already_imported  # the same bytes: nothing read again
    stored = {pairs[0]: ("agree", "2021-03-05 16:30:00.250000", "project-1-at-0305.json")}
    assert _stored(warehouse) == stored

    # the next export: pair 0 saved again with the same label (a later updated_at), pair 1 labelled since
    later = export("project-1-at-0307.json", [("agree", {"updated_at": "2021-03-07T08:00:00Z"}),
                                              ("discuss", {"updated_at": "2021-03-06T11:00:00Z"})])
    again = import_annotations(warehouse, later)
    assert (again.annotations, again.new, again.already_imported) == (2, 1, False)
    stored[pairs[1]] = ("discuss", "2021-03-06 11:00:00", "project-1-at-0307.json")
    assert _stored(warehouse) == stored  # one row per label; pair 0 keeps when its label was given
    assert _counts(warehouse) == (2, 2)

    # an export in which pair 0's label changed: a label stored is never replaced, the file is refused whole
    changed = export("project-1-at-0309.json", [("disagree", {"updated_at": "2021-03-09T08:00:00Z"}),
                                                ("discuss", {"updated_at": "2021-03-06T11:00:00Z"}),
                                                ("unrelated", {"updated_at": "2021-03-09T09:00:00Z"})])
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, changed)
    line = (f"task 1 (id 1), annotation 1: annotator 'ann-1' labels pair {pairs[0]} 'disagree' in round 'prod-1', "
            "but 'agree' is stored already (from project-1-at-0305.json)")
    assert str(err.value) == (f"{changed}: nothing imported: {line}: a stored label is never replaced (agreement and "
                              "gold labels were decided on it); `annotate import --keep-stored-labels` takes the "
                              "file's other labels and keeps it")
    assert _stored(warehouse) == stored  # nothing lost, nothing changed, pair 2's new label not stored either
    assert _counts(warehouse) == (2, 2)

    # it was: no way in for the export's new labels short of editing the file by hand
    kept = import_annotations(warehouse, changed, keep_stored=True)
    assert (kept.annotations, kept.new, kept.kept_stored) == (3, 1, (line,))
    stored[pairs[2]] = ("unrelated", "2021-03-09 09:00:00", "project-1-at-0309.json")
    assert _stored(warehouse) == stored  # pair 0 keeps 'agree'
    assert _counts(warehouse) == (3, 3)
    assert import_annotations(warehouse, changed, keep_stored=True).already_imported


def test_the_command_line_takes_an_export_with_a_changed_label_only_when_told_and_says_which(tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        pairs = add_claims(wh, 1, 2)
        add_round(wh, "prod-1", "production")
    first = write_json(tmp_path / "first.json", [ls_assigned_task(pairs[0], "prod-1", "ann-1", [_labelled("ann-1", "agree")])])
    later = write_json(tmp_path / "later.json", [
        ls_assigned_task(p, "prod-1", "ann-1", [_labelled("ann-1", label, updated_at="2021-03-09T08:00:00Z")], i)
        for i, (p, label) in enumerate(zip(pairs, ["disagree", "discuss"]), start=1)])
    runner = CliRunner()
    assert runner.invoke(app, ["annotate", "import", str(first)]).exit_code == 0
    refused = runner.invoke(app, ["annotate", "import", str(later)])
    assert refused.exit_code == 2 and "--keep-stored-labels" in refused.output
    taken = runner.invoke(app, ["annotate", "import", "--keep-stored-labels", str(later)], env={"COLUMNS": "250"})
    assert taken.exit_code == 0, taken.output
    assert re.search(rf"warning: {re.escape(str(later))}: task 1 \(id 1\), annotation 1: annotator 'ann-1' labels pair "
                     rf"{pairs[0]} 'disagree' in round 'prod-1', but 'agree' is stored already \(from first.json\): "
                     "the stored label is kept", " ".join(taken.output.split())), taken.output
    assert "1 changed label(s) not taken, the stored ones kept" in " ".join(taken.output.split())
    assert taken.output.count("is stored already") == 1  # told once, not by the log as well
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert dict(wh.con.execute("SELECT pair_id, label FROM annotations").fetchall()) == {pairs[0]: "agree",
                                                                                             pairs[1]: "discuss"}
