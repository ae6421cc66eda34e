"""Only labels that answer an assignment are imported, so nobody's stray label becomes gold."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json

from arastance.config.annotation import AnnotationSettings
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import adjudicate, import_annotations
from warehouse import Warehouse


def _labels(wh: Warehouse) -> tuple[int, int]:
    return int(wh.scalar("SELECT count(*) FROM annotations")), int(wh.scalar("SELECT count(*) FROM gold_labels"))


def test_a_label_from_an_annotator_never_assigned_the_pair_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_round(warehouse, "prod-1", "production", [(pairs[0], "ann-1"), (pairs[0], "ann-2"), (pairs[1], "ann-1")])
    stray = write_json(tmp_path / "stray.json", [
        ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree"), ls_annotation("ann-3", "agree")], 1),
    ])
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, stray)
    assert "annotator 'ann-3' was not assigned pair" in str(err.value) and "assigned to: ann-1, ann-2" in str(err.value)
    assert _labels(warehouse) == (0, 0)
    # the assigned annotators' labels agree: they, and only they, make the gold label
    ok = write_json(tmp_path / "ok.json", [
        ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree"), ls_annotation("ann-2", "agree")], 1),
    ])
    import_annotations(warehouse, ok)
    adjudicate(warehouse, AnnotationSettings(), tmp_path / "rounds")
    assert _labels(warehouse) == (2, 1)


def test_a_label_for_a_pair_outside_the_round_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    pairs = add_claims(warehouse, 1, 3)
    add_round(warehouse, "pilot-1", "pilot", [(pairs[0], a) for a in ("ann-1", "ann-2", "ann-3")])
    sheet = tmp_path / "ann-1.csv"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["pair_id", "round", "annotator_id", "label"])
        writer.writerow([pairs[0], "pilot-1", "ann-1", "agree"])
        writer.writerow([pairs[2], "pilot-1", "ann-1", "discuss"])  # exists, but pilot-1 does not hold it
    with pytest.raises(AnnotationFileError, match=f"row 3 \\(pair {pairs[2]}\\): pair {pairs[2]} is not in round 'pilot-1'"):
        import_annotations(warehouse, sheet)
    assert _labels(warehouse) == (0, 0)


@pytest.mark.parametrize(
    ("suffix", "damage", "where"),
    [
        (".json", lambda b: b.replace("agree".encode(), "agree".encode() + "ا".encode("cp1256"), 1), "line 1, column"),
        (".json", lambda b: b + "ا".encode()[:1], "line 1, column"),  # cut in the middle of a character
        (".csv", lambda b: b.replace(b"\n", "\nملاحظة".encode("cp1256") + b",", 1), "line 2, column 1"),
        (".csv", lambda b: b.decode("utf-8").encode("utf-16"), "line 1, column 1"),
    ],
)
def test_annotation_files_in_the_wrong_encoding_are_one_line_naming_file_and_line(
    warehouse: Warehouse, tmp_path: Path, suffix: str, damage: object, where: str
) -> None:
    pairs = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production")
    path = tmp_path / f"labels{suffix}"
    if suffix == ".json":
        write_json(path, [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "agree")])])
    else:
        path.write_text(f"pair_id,round,annotator_id,label\n{pairs[0]},prod-1,ann-1,agree\n", encoding="utf-8")
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    with pytest.raises(AnnotationFileError) as err:
        import_annotations(warehouse, path)
    message = str(err.value)
    assert message.startswith(f"{path}: nothing imported: {where}") and "UTF-8" in message and "\n" not in message
    assert _labels(warehouse) == (0, 0)
