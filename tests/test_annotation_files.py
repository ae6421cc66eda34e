"""Task files out and labels in: Label Studio JSON and CSV, good and malformed."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers_annotation import (
    CSV_DEFAULT_CELL_LIMIT,
    LONG_ARTICLE,
    add_claims,
    add_round,
    csv_cell_limit,
    ls_annotation,
    ls_assigned_task,
    ls_export_of,
    ls_task,
    write_json,
)

from arastance.config import load_settings
from tasks.annotation.label_studio import labeling_config
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import export_round, import_annotations
from warehouse import Warehouse


def _counts(wh: Warehouse) -> tuple[int, int]:
    return wh.scalar("SELECT count(*) FROM annotations"), wh.scalar("SELECT count(*) FROM annotation_imports")


def test_labeling_config_is_rtl_with_claim_article_and_four_choices() -> None:
    root = ET.fromstring(labeling_config())
    assert root.tag == "View" and "direction: rtl" in root.get("style", "")
    assert [t.get("name") for t in root.iter("Text")] == ["claim", "article"]
    choices = root.find("Choices")
    assert choices is not None and choices.get("toName") == "article" and choices.get("choice") == "single"
    assert [c.get("value") for c in choices.iter("Choice")] == ["agree", "disagree", "discuss", "unrelated"]


def test_labeling_config_carries_the_guidelines_in_arabic_and_english() -> None:
    root = ET.fromstring(labeling_config())
    panels = root.findall("Collapse/Panel")
    assert len(panels) == 2  # Arabic, then English
    texts = {p.get("value"): " ".join(h.get("value", "") for h in p.iter("Header")) for p in panels}
    arabic, english = texts.values()
    # the method's definitions: explicit agree/disagree, exact same event for discuss,
    # date, publisher and the claim's veracity ignored
    for phrase in ("clearly and explicitly", "exact same event", "publication date", "publisher", "claim's truth"):
        assert phrase in english
    for phrase in ("بوضوح وصراحة", "الحدث نفسه تماماً", "تاريخ نشر المقال", "الناشر", "بصحة الادعاء"):
        assert phrase in arabic
    # the worked examples, one article per label, in both languages
    for label in ("agree", "disagree", "discuss", "unrelated"):
        assert f"{label}: " in arabic and f"{label}: " in english
    hints = [c.get("hint", "") for c in root.find("Choices").iter("Choice")]
    assert hints[0].startswith("يؤيد") and "Agree: the article says explicitly" in hints[0]


def test_every_exported_round_ships_the_guidelines(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 3, 2)
    done = export_round(warehouse, "pilot", load_settings().annotation, tmp_path / "tasks", size=3)
    guidelines = (done.directory / "guidelines.md").read_text(encoding="utf-8")
    assert done.directory / "guidelines.md" in done.files
    assert guidelines.index("# إرشادات") < guidelines.index("# Guidelines")
    assert "clearly and explicitly" in guidelines and "بوضوح وصراحة" in guidelines
    assert guidelines.count("**unrelated**") == 4  # a definition and an example per language
    production = export_round(warehouse, "production", load_settings().annotation, tmp_path / "tasks")
    assert (production.directory / "guidelines.md").read_text(encoding="utf-8") == guidelines


def test_export_writes_label_studio_json_and_csv_per_annotator(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 4, 2)
    done = export_round(warehouse, "pilot", load_settings().annotation, tmp_path / "tasks", size=5)
    assert (done.round, done.kind, done.pairs, done.assignments) == ("pilot-1", "pilot", 5, 15)
    tasks = json.loads((done.directory / "ann-2.json").read_text(encoding="utf-8"))
    assert len(tasks) == 5 and all(set(t) == {"data"} for t in tasks)
    first = tasks[0]["data"]
    assert first["round"] == "pilot-1" and first["annotator_id"] == "ann-2"
    assert first["claim"].startswith("الادعاء رقم") and first["article"].startswith("نص الخبر")
    with (done.directory / "ann-2.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["pair_id"] for r in rows] == [t["data"]["pair_id"] for t in tasks]
    assert all(r["label"] == "" for r in rows)
    assert (done.directory / "labeling_config.xml").read_text(encoding="utf-8") == labeling_config()


def test_label_studio_export_imports_and_reimport_is_a_no_op(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 2, 2)
    add_round(warehouse, "prod-1", "production")
    payload = [
        ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree"), ls_annotation("ann-2", "Discuss ")], 1),
        ls_task(pairs[1], "prod-1", [ls_annotation({"id": 7, "email": "ann-3"}, "unrelated"),
                                     {**ls_annotation("ann-1", "agree"), "was_cancelled": True}], 2),
        ls_task(pairs[2], "prod-1", [], 3),  # not annotated yet
    ]
    path = write_json(tmp_path / "export.json", payload)
    first = import_annotations(warehouse, path)
    assert (first.annotations, first.new, first.already_imported) == (3, 3, False)
    rows = warehouse.query("SELECT pair_id, annotator_id, label, round, round_kind, annotated_at FROM annotations ORDER BY annotator_id, pair_id")
    assert [(r["annotator_id"], r["label"]) for r in rows] == [("ann-1", "agree"), ("ann-2", "discuss"), ("ann-3", "unrelated")]
    assert all(r["round_kind"] == "production" and str(r["annotated_at"]) == "2021-03-02 10:00:00" for r in rows)
    again = import_annotations(warehouse, path)
    assert again.already_imported and again.new == 0
    assert _counts(warehouse) == (3, 1)


def test_annotator_map_turns_label_studio_user_ids_into_annotator_ids(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    path = write_json(tmp_path / "e.json", [ls_task(pairs[0], "prod-1", [ls_annotation(12, "agree")])])
    import_annotations(warehouse, path, annotator_map={"12": "ann-2"})
    assert warehouse.scalar("SELECT annotator_id FROM annotations") == "ann-2"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("[{\"data\": {\"pair_id\": \"x\"}", "line 1, column"),
        ({"tasks": []}, "expected a JSON list"),
        ([{"annotations": []}], "task 1: missing field 'data'"),
        ([{"id": 4, "data": {"round": "prod-1"}, "annotations": []}], "task 1 (id 4): missing field 'data.pair_id'"),
        ("TASK_NO_RESULT", "annotation 1: missing field 'result'"),
        ("TASK_NO_AUTHOR", "annotation 1: missing field 'completed_by'"),
        ("TASK_BAD_TIME", "invalid field 'created_at'"),
        ("TASK_BAD_LABEL", "unknown label 'agrees'"),
        ("TASK_TWO_LABELS", "expected exactly one label"),
        ("TASK_UNKNOWN_PAIR", "unknown pair 'nope'"),
        ("TASK_UNKNOWN_ROUND", "unknown round 'prod-9'"),
        ("TASK_CONFLICT", "but task 1 (id 1), annotation 1 says 'agree'"),
    ],
)
def test_malformed_label_studio_files_name_the_row_and_import_nothing(
    warehouse: Warehouse, tmp_path: Path, payload: object, message: str
) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "prod-1", "production")
    good = ls_task(pairs[1], "prod-1", [ls_annotation("ann-1", "agree")], 2)  # a valid task next to the bad one
    bad_annotation = ls_annotation("ann-2", "agree")
    cases = {
        "TASK_NO_RESULT": {k: v for k, v in bad_annotation.items() if k != "result"},
        "TASK_NO_AUTHOR": {k: v for k, v in bad_annotation.items() if k != "completed_by"},
        "TASK_BAD_TIME": {**bad_annotation, "created_at": "yesterday"},
        "TASK_BAD_LABEL": ls_annotation("ann-2", "agrees"),
        "TASK_TWO_LABELS": {**bad_annotation, "result": [{"from_name": "stance", "value": {"choices": ["agree", "discuss"]}}]},
    }
    path = tmp_path / "bad.json"
    if isinstance(payload, str) and payload in cases:
        write_json(path, [ls_task(pairs[0], "prod-1", [cases[payload]]), good])
    elif payload == "TASK_UNKNOWN_PAIR":
        write_json(path, [ls_task("nope", "prod-1", [bad_annotation]), good])
    elif payload == "TASK_UNKNOWN_ROUND":
        write_json(path, [ls_task(pairs[0], "prod-9", [bad_annotation]), good])
    elif payload == "TASK_CONFLICT":
        write_json(path, [ls_task(pairs[0], "prod-1", [bad_annotation], 1),
                          ls_task(pairs[0], "prod-1", [ls_annotation("ann-2", "discuss")], 2)])
    elif isinstance(payload, str):
        path.write_text(payload, encoding="utf-8")
    else:
        write_json(path, payload)
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    assert str(path) in str(err.value) and message in str(err.value)
    assert _counts(warehouse) == (0, 0)


def test_a_label_conflicting_with_a_stored_one_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    import_annotations(warehouse, write_json(tmp_path / "a.json", [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree")])]))
    changed = write_json(tmp_path / "b.json", [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "disagree", "2021-03-03T10:00:00Z")])])
    with pytest.raises(AnnotationFileError, match="'agree' is stored already \\(from a.json\\): a stored label is never "
                                                  "replaced .*--keep-stored-labels"):
        import_annotations(warehouse, changed)
    assert warehouse.scalar("SELECT label FROM annotations") == "agree"
    assert _counts(warehouse) == (1, 1)


def _pilot(warehouse: Warehouse, tmp_path: Path) -> Path:
    """A 3-pair pilot exported the real way: ``<round>/<annotator>.json`` for ann-1, ann-2 and ann-3."""
    add_claims(warehouse, 2, 2)
    return export_round(warehouse, "pilot", load_settings().annotation, tmp_path / "tasks", size=3).directory


def _stored(warehouse: Warehouse) -> list[tuple[str, str]]:
    return [(r["annotator_id"], r["label"]) for r in
            warehouse.query("SELECT annotator_id, label FROM annotations ORDER BY annotator_id, pair_id")]


def test_each_annotators_own_label_studio_export_imports_as_theirs_without_a_map(warehouse: Warehouse, tmp_path: Path) -> None:
    # each labels their own file in their own Label Studio, where each is user 1: it was refused,
    # "annotator '1' was not assigned pair ...", with the default settings
    round_dir = _pilot(warehouse, tmp_path)
    for annotator, label in (("ann-1", "agree"), ("ann-2", "discuss")):
        export = write_json(tmp_path / f"export-{annotator}.json", ls_export_of(round_dir / f"{annotator}.json", 1, [label] * 3))
        assert import_annotations(warehouse, export).new == 3
    assert _stored(warehouse) == [("ann-1", "agree")] * 3 + [("ann-2", "discuss")] * 3


def test_an_adjudicators_own_export_imports_as_theirs_without_a_map(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "adjudication-1", "adjudication", [(pairs[0], "ann-3")])
    export = write_json(tmp_path / "e.json", [ls_assigned_task(pairs[0], "adjudication-1", "ann-3", [ls_annotation(1, "agree")])])
    import_annotations(warehouse, export)
    assert warehouse.query("SELECT annotator_id, round_kind FROM annotations") == [
        {"annotator_id": "ann-3", "round_kind": "adjudication"}]


def test_a_mapped_user_on_another_annotators_tasks_refuses_the_file(warehouse: Warehouse, tmp_path: Path) -> None:
    # ann-2's own Label Studio export, with the map of ann-1's instance ({"1": "ann-1"}): every
    # pilot pair is ann-1's too, so it was stored as ann-1's labels without a word
    round_dir = _pilot(warehouse, tmp_path)
    export = write_json(tmp_path / "export-ann-2.json", ls_export_of(round_dir / "ann-2.json", 1, ["agree"] * 3))
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, export, annotator_map={"1": "ann-1"})
    message = str(err.value)
    assert message.startswith(f"{export}: nothing imported: Label Studio user 1 maps to 'ann-1' (annotation.annotator_map), "
                              "but labelled tasks given to 'ann-2' (data.annotator_id): task 1 (id 1), annotation 1;")
    assert "leave annotation.annotator_map unset" in message
    assert _counts(warehouse) == (0, 0)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("TWO_USERS", "Label Studio users 1 (first: task 1 (id 1), annotation 1), 2 (first: task 2 (id 2), annotation 1) "
                      "have no entry in annotation.annotator_map"),
        ("ONE_USER_TWO_ANNOTATORS", "Label Studio user 1 has no entry in annotation.annotator_map and labelled the tasks "
                                    "of ann-1, ann-2 (data.annotator_id; first: task 1 (id 1), annotation 1)"),
        ("MAPPED_AND_UNMAPPED_AS_ONE", "Label Studio user 2 has no entry in annotation.annotator_map and labelled tasks "
                                       "of 'ann-1' (first: task 2 (id 2), annotation 1), as Label Studio user 1 does"),
        # a shared project's admin (user 1, unmapped) labelled ann-2's task before ann-2 (user 3) started: it was
        # stored as ann-2's label
        ("UNMAPPED_ON_A_MAPPED_ANNOTATOR", "Label Studio user 1 has no entry in annotation.annotator_map and labelled "
                                           "tasks of 'ann-2' (first: task 2 (id 2), annotation 1), whom the map gives "
                                           "to Label Studio user 3"),
    ],
)
def test_unmapped_users_who_cannot_all_be_their_tasks_annotator_refuse_the_file(
    warehouse: Warehouse, tmp_path: Path, case: str, message: str
) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "pilot-1", "pilot")
    tasks = {  # (task's annotator, Label Studio user) of each task: a shared project
        "TWO_USERS": [("ann-1", 1), ("ann-1", 2)],
        "ONE_USER_TWO_ANNOTATORS": [("ann-1", 1), ("ann-2", 1)],
        "MAPPED_AND_UNMAPPED_AS_ONE": [("ann-1", 1), ("ann-1", 2)],
        "UNMAPPED_ON_A_MAPPED_ANNOTATOR": [("ann-1", 2), ("ann-2", 1)],
    }[case]
    export = write_json(tmp_path / "e.json", [ls_assigned_task(p, "pilot-1", a, [ls_annotation(u, "agree")], i)
                                             for i, (p, (a, u)) in enumerate(zip(pairs, tasks), start=1)])
    amap = {"MAPPED_AND_UNMAPPED_AS_ONE": {"1": "ann-1"}, "UNMAPPED_ON_A_MAPPED_ANNOTATOR": {"2": "ann-1", "3": "ann-2"}}
    amap = amap.get(case, {})
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, export, annotator_map=amap)
    assert str(export) in str(err.value) and message in str(err.value)
    assert "ARASTANCE_ANNOTATION__ANNOTATOR_MAP='{" in str(err.value)
    assert _counts(warehouse) == (0, 0)


def _shared_export(round_dir: Path, labellers: dict[str, object], label: str = "agree") -> list[dict[str, object]]:
    """One shared Label Studio project holding the task files of the annotators in ``labellers``, each
    file's tasks labelled ``label`` by the Label Studio user given for it (``completed_by``)."""
    tasks = [t for annotator, user in labellers.items()
             for t in ls_export_of(round_dir / f"{annotator}.json", user, [label] * 3)]
    return [{**t, "id": i, "annotations": [{**a, "id": i} for a in t["annotations"]]} for i, t in enumerate(tasks, 1)]


def test_an_unmapped_user_in_a_shared_project_with_mapped_users_refuses_the_file(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    # users 2 and 3 label their own tasks; the admin (user 1) labelled ann-3's before ann-3 started,
    # and the map names 2 and 3 only: the admin's labels were stored as ann-3's
    round_dir = _pilot(warehouse, tmp_path)
    export = write_json(tmp_path / "shared.json", _shared_export(round_dir, {"ann-1": 2, "ann-2": 3, "ann-3": 1}))
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, export, annotator_map={"2": "ann-1", "3": "ann-2"})
    message = str(err.value)
    assert message.startswith(f"{export}: nothing imported: Label Studio user 1 has no entry in annotation.annotator_map "
                              "and labelled tasks of 'ann-3' (first: task 7 (id 7), annotation 1), in a file that "
                              "Label Studio users 2, 3 of the map labelled too (a shared project)")
    assert """ARASTANCE_ANNOTATION__ANNOTATOR_MAP='{"1": "<annotator>"}'""" in message
    assert _counts(warehouse) == (0, 0)
    # mapped to the annotator they are, every user's labels import as their own
    assert import_annotations(warehouse, export, annotator_map={"2": "ann-1", "3": "ann-2", "1": "ann-3"}).new == 9
    assert _stored(warehouse) == [("ann-1", "agree")] * 3 + [("ann-2", "agree")] * 3 + [("ann-3", "agree")] * 3


E_MAIL_MAP = {"ann1@team.org": "ann-1", "ann2@team.org": "ann-2", "ann3@team.org": "ann-3"}


def test_an_e_mail_keyed_map_with_an_export_naming_users_by_id_says_to_key_it_by_id(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    # Label Studio's JSON export gives completed_by as a user id: the map's e-mails can name no one, yet
    # ann-3's own export was refused "whom the map gives to Label Studio user ann3@team.org; have ann-3
    # label their own tasks, or map user 1 too"
    round_dir = _pilot(warehouse, tmp_path)
    export = write_json(tmp_path / "export-ann-3.json", ls_export_of(round_dir / "ann-3.json", 1, ["agree"] * 3))
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, export, annotator_map=E_MAIL_MAP)
    assert str(err.value) == (
        f"{export}: nothing imported: Label Studio user 1 has no entry in annotation.annotator_map and labelled "
        "tasks of 'ann-3' (first: task 1 (id 1), annotation 1), whom the map gives to ann3@team.org; but this "
        "export names Label Studio users by id only (completed_by), which the map's e-mail keys never match: "
        "in a shared project key annotation.annotator_map by user id, e.g. "
        """ARASTANCE_ANNOTATION__ANNOTATOR_MAP='{"1": "<annotator>"}', or leave it unset with one Label Studio """
        "per annotator")
    assert _counts(warehouse) == (0, 0)


@pytest.mark.parametrize(
    ("labellers", "stored", "message"),
    [  # a shared project whose export gives users' e-mails: the map's e-mail keys name them
        ({"ann-1": {"id": 2, "email": "ann1@team.org"}, "ann-3": {"id": 4, "email": "ann3@team.org"}},
         [("ann-1", "agree")] * 3 + [("ann-3", "agree")] * 3, None),
        ({"ann-1": {"id": 2, "email": "ann1@team.org"}, "ann-3": {"id": 1, "email": "admin@team.org"}}, [],
         "Label Studio user 1 (admin@team.org) has no entry in annotation.annotator_map and labelled tasks of 'ann-3' "
         "(first: task 4 (id 4), annotation 1), whom the map gives to Label Studio user ann3@team.org"),
        # the default export gives ids only: two unmapped users, and why the map names neither
        ({"ann-1": 2, "ann-3": 4}, [],
         "Label Studio users 2 (first: task 1 (id 1), annotation 1), 4 (first: task 4 (id 4), annotation 1) have no "
         "entry in annotation.annotator_map"),
    ],
)
def test_an_e_mail_keyed_map_names_the_users_of_an_export_that_gives_e_mails(
    warehouse: Warehouse, tmp_path: Path, labellers: dict[str, object], stored: list[tuple[str, str]],
    message: str | None,
) -> None:
    round_dir = _pilot(warehouse, tmp_path)
    export = write_json(tmp_path / "shared.json", _shared_export(round_dir, labellers))
    if message is None:
        assert import_annotations(warehouse, export, annotator_map=E_MAIL_MAP).new == len(stored)
    else:
        with pytest.raises(AnnotationFileError, match=re.escape(message)) as err:
            import_annotations(warehouse, export, annotator_map=E_MAIL_MAP)
        assert ("names Label Studio users by id only" in str(err.value)) == isinstance(labellers["ann-1"], int)
    assert _stored(warehouse) == stored


def test_an_unmapped_label_studio_user_id_of_a_task_without_its_annotator_says_how_to_map_it(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production", [(pairs[0], "ann-2")])
    export = write_json(tmp_path / "e.json", [ls_task(pairs[0], "prod-1", [ls_annotation(12, "agree")])])
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, export)
    assert str(err.value) == (
        f"{export}: nothing imported: task 1 (id 1), annotation 1: annotator '12' was not assigned pair {pairs[0]} in "
        "round 'prod-1' (assigned to: ann-2): '12' is a Label Studio user id (completed_by) with no entry in "
        """annotation.annotator_map; map it to its annotator, e.g. ARASTANCE_ANNOTATION__ANNOTATOR_MAP='{"12": "ann-2"}'""")


def test_label_studios_json_min_export_or_a_task_file_is_named_once(warehouse: Warehouse, tmp_path: Path) -> None:
    round_dir = _pilot(warehouse, tmp_path)
    full = ls_export_of(round_dir / "ann-1.json", 1, ["agree"] * 3)
    json_min = [{**t["data"], "id": t["id"], "stance": "agree", "annotator": 1, "annotation_id": t["id"],
                 "created_at": "2021-03-02T10:00:00Z", "lead_time": 3.5} for t in full]
    for path, message in ((write_json(tmp_path / "min.json", json_min), "this is Label Studio's JSON-MIN export; "
                           "export JSON from Label Studio and import that"),
                          (round_dir / "ann-1.json", "this is a task file (as `annotate export` writes it), with no annotations")):
        with pytest.raises(AnnotationFileError) as err:
            import_annotations(warehouse, path)
        assert str(err.value).startswith(f"{path}: nothing imported: {message}")  # one line, not one per task
    assert _counts(warehouse) == (0, 0)


def test_only_the_stance_control_gives_the_label(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "prod-1", "production")
    confident = ls_annotation("ann-1", "agree")
    confident["result"] += [{"from_name": "confidence", "to_name": "article", "type": "choices", "value": {"choices": ["high"]}},
                            {"from_name": "note", "to_name": "article", "type": "textarea", "value": {"text": ["hard"]}}]
    import_annotations(warehouse, write_json(tmp_path / "a.json", [ls_task(pairs[0], "prod-1", [confident])]))
    assert _stored(warehouse) == [("ann-1", "agree")]  # refused: "expected exactly one label ..., got ['agree', 'high']"
    elsewhere = {**confident, "result": [{**confident["result"][0], "from_name": "label"}, confident["result"][1]]}
    with pytest.raises(AnnotationFileError, match=r"of control 'stance', got \[\] \(other controls: confidence, label\)"):
        import_annotations(warehouse, write_json(tmp_path / "b.json", [ls_task(pairs[1], "prod-1", [elsewhere])]))


def test_a_label_studio_export_with_a_byte_order_mark_imports(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps([ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree")])]).encode())
    assert import_annotations(warehouse, path).new == 1  # refused: "invalid JSON: Unexpected UTF-8 BOM"


def _write_csv(path: Path, rows: list[dict[str, str]], header: list[str] | None = None) -> Path:
    header = header or ["pair_id", "round", "annotator_id", "claim", "label", "annotated_at"]
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_csv_sheet_imports_skipping_empty_labels(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 3)
    add_round(warehouse, "pilot-1", "pilot")
    path = _write_csv(tmp_path / "ann-1.csv", [
        {"pair_id": pairs[0], "round": "pilot-1", "annotator_id": "ann-1", "claim": "نص، بفاصلة", "label": "unrelated",
         "annotated_at": "2021-04-01T08:30:00+02:00"},
        {"pair_id": pairs[1], "round": "pilot-1", "annotator_id": "ann-1", "label": "Agree", "annotated_at": ""},
        {"pair_id": pairs[2], "round": "pilot-1", "annotator_id": "ann-1", "label": ""},
    ])
    result = import_annotations(warehouse, path)
    assert (result.annotations, result.new) == (2, 2)
    rows = {r["pair_id"]: r for r in warehouse.query("SELECT * FROM annotations")}
    assert rows[pairs[0]]["label"] == "unrelated" and str(rows[pairs[0]]["annotated_at"]) == "2021-04-01 06:30:00"
    assert rows[pairs[1]]["label"] == "agree" and rows[pairs[1]]["round_kind"] == "pilot"
    assert import_annotations(warehouse, path).already_imported


def test_an_exported_sheet_with_an_article_longer_than_csvs_cell_limit_imports(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 1, 2)
    warehouse.con.execute("UPDATE articles SET text = ? WHERE article_id = (SELECT min(article_id) FROM articles)",
                          [LONG_ARTICLE])
    done = export_round(warehouse, "pilot", load_settings().annotation, tmp_path / "tasks", size=2)
    with csv_cell_limit(10 * len(LONG_ARTICLE)):  # the annotator's spreadsheet has no such limit
        with (done.directory / "ann-1.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    assert max(len(r["article"]) for r in rows) == len(LONG_ARTICLE) > CSV_DEFAULT_CELL_LIMIT
    filled = _write_csv(tmp_path / "ann-1-filled.csv", [{**r, "label": "agree"} for r in rows], list(rows[0]))
    with csv_cell_limit(CSV_DEFAULT_CELL_LIMIT):  # it was refused: "line 2: malformed CSV: field larger than field limit"
        result = import_annotations(warehouse, filled)
    assert (result.annotations, result.new) == (2, 2)


@pytest.mark.parametrize(
    ("rows", "header", "message"),
    [
        ([{"pair_id": "P0", "round": "pilot-1", "annotator_id": "ann-1"}], ["pair_id", "round", "annotator_id"], "row 1: missing column(s) ['label']"),
        ([{"pair_id": "P0", "round": "pilot-1", "annotator_id": "", "label": "agree"}], None, "row 2 (pair P0): missing field(s) ['annotator_id']"),
        ([{"pair_id": "P0", "round": "pilot-1", "annotator_id": "ann-1", "label": "yes"}], None, "row 2 (pair P0): unknown label 'yes'"),
        ([{"pair_id": "zzz", "round": "pilot-1", "annotator_id": "ann-1", "label": "agree"}], None, "row 2 (pair zzz): unknown pair 'zzz'"),
        ([{"pair_id": "P0", "round": "pilot-1", "annotator_id": "ann-1", "label": "agree"},
          {"pair_id": "P0", "round": "pilot-1", "annotator_id": "ann-1", "label": "discuss"}], None, "row 3 (pair P0): annotator 'ann-1' labels pair P0 'discuss' in round 'pilot-1', but row 2 (pair P0) says 'agree'"),
        ([{"pair_id": "P0", "round": "pilot-1", "annotator_id": "ann-1", "label": "agree", "annotated_at": "soon"}], None, "row 2 (pair P0): invalid annotated_at 'soon'"),
    ],
)
def test_malformed_csv_files_name_the_row_and_import_nothing(
    warehouse: Warehouse, tmp_path: Path, rows: list[dict[str, str]], header: list[str] | None, message: str
) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "pilot-1", "pilot")
    for row in rows:
        if row.get("pair_id") == "P0":
            row["pair_id"] = pairs[0]
    good = {"pair_id": pairs[1], "round": "pilot-1", "annotator_id": "ann-1", "label": "agree"}
    path = _write_csv(tmp_path / "bad.csv", rows + [good], header)
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    assert str(path) in str(err.value) and message.replace("P0", pairs[0]) in str(err.value)
    assert _counts(warehouse) == (0, 0)


@pytest.mark.parametrize("label_column", ["stance", "label"])
def test_label_studios_csv_export_is_refused_whole(warehouse: Warehouse, tmp_path: Path, label_column: str) -> None:
    # Label Studio's CSV export: one row per annotation, who gave it in `annotator`; with its
    # `stance` column renamed `label`, every label was stored as the task file's annotator's
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "pilot-1", "pilot")
    header = ["pair_id", "round", "annotator_id", "claim", "id", label_column, "annotator", "annotation_id",
              "created_at", "updated_at", "lead_time"]
    rows = [{"pair_id": p, "round": "pilot-1", "annotator_id": "ann-1", "claim": "ادعاء", "id": str(i), label_column: "agree",
             "annotator": str(user), "annotation_id": str(i), "created_at": "2021-03-02T10:00:00Z", "lead_time": "3.5"}
            for i, (p, user) in enumerate(zip(pairs, (2, 1)), start=1)]
    path = _write_csv(tmp_path / "project-7-at-2021-03-03.csv", rows, header)
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    assert str(err.value) == (f"{path}: nothing imported: this is Label Studio's CSV export; "
                              "export JSON from Label Studio and import that")
    assert _counts(warehouse) == (0, 0)


def test_csv_with_broken_quoting_or_unknown_suffix_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    add_round(warehouse, "pilot-1", "pilot")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("pair_id,round,annotator_id,label\np,pilot-1,ann-1,agree,extra\n", encoding="utf-8")
    with pytest.raises(AnnotationFileError, match=r"row 2 \(pair p\): more fields than the header"):
        import_annotations(warehouse, ragged)
    other = tmp_path / "labels.xlsx"
    other.write_bytes(b"PK")
    with pytest.raises(AnnotationFileError, match="unknown file type '.xlsx'"):
        import_annotations(warehouse, other)
    with pytest.raises(AnnotationFileError, match="missing.json: nothing imported: does not exist"):
        import_annotations(warehouse, tmp_path / "missing.json")
