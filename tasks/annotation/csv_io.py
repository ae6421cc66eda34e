"""CSV task sheets for annotators who work in a spreadsheet, and reading them back.

The sheet has one row per task with an empty ``label`` column to fill in; ``annotated_at`` may
be left empty, in which case the file's modification time stands for every row of it.
Rows whose label is still empty are not annotations yet and are skipped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

from arastance.base.text_files import EncodingProblem, read_utf8
from tasks.annotation.records import Annotation, AnnotationFileError, AnnotationTask, parse_label
from tasks.annotation.sheet_cells import SHEET_QUOTING, inert_cell
from tasks.stance.labels import FOUR_WAY

TASK_COLUMNS: tuple[str, ...] = (
    "pair_id", "round", "annotator_id", "claim", "article_title", "article_url", "article",
    "label", "annotated_at", "claim_id", "article_id", "claim_url", "source_id",
)
REQUIRED_COLUMNS: tuple[str, ...] = ("pair_id", "annotator_id", "label")
#: Columns of text from the web, which a spreadsheet must not take for formulas.
WEB_TEXT_COLUMNS: tuple[str, ...] = ("claim", "article_title", "article_url", "article", "claim_url")


def tasks_to_csv(tasks: Sequence[AnnotationTask]) -> str:
    """The task sheet as CSV text, with ``label`` and ``annotated_at`` left empty and the web's
    text unable to act as a formula (:func:`tasks.annotation.sheet_cells.inert_cell`)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=TASK_COLUMNS, lineterminator="\n", quoting=SHEET_QUOTING)
    writer.writeheader()
    for task in tasks:
        row = asdict(task)
        writer.writerow({**row, **{c: inert_cell(row[c] or "") for c in WEB_TEXT_COLUMNS}, "label": "", "annotated_at": ""})
    return buf.getvalue()


def sheet_reader(text: str) -> csv.DictReader:
    """A reader over a whole sheet's ``text`` that takes a cell as long as the text itself.

    The sheets carry each article whole, and a long one (a live blog, a report: a few hundred KiB)
    is longer than csv's default cell limit of 131,072 characters, which refused the product's
    own sheets as "malformed". No cell can be longer than the text it is in, so that bound always
    reads a sheet back; the limit is process-wide, and it is only ever raised."""
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    return csv.DictReader(io.StringIO(text))


def _parse_time(raw: str) -> datetime | None:
    try:
        ts = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None
    return ts.astimezone(timezone.utc).replace(tzinfo=None) if ts.tzinfo else ts


def parse_csv(path: Path, *, round_override: str | None = None) -> list[Annotation]:
    """Read a filled-in task sheet; every problem in it is reported at once."""
    try:
        text = read_utf8(path, allow_bom=True)
    except EncodingProblem as exc:
        raise AnnotationFileError(str(path), [str(exc).removeprefix(f"{path}, ")]) from None
    except OSError as exc:
        raise AnnotationFileError(str(path), [f"cannot read the file: {exc.strerror or exc}"]) from None
    file_time = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).replace(tzinfo=None, microsecond=0)
    reader = sheet_reader(text)
    header = reader.fieldnames or []
    needed = list(REQUIRED_COLUMNS) + ([] if round_override else ["round"])
    missing = [c for c in needed if c not in header]
    if missing:
        raise AnnotationFileError(str(path), [f"line 1: missing column(s) {missing}; the header is {header}"])

    problems: list[str] = []
    found: dict[tuple[str, str, str], Annotation] = {}
    try:
        for row in reader:
            where = f"line {reader.line_num}"
            if None in row:
                problems.append(f"{where}: more fields than the header has")
                continue
            raw_label = (row.get("label") or "").strip()
            if not raw_label:
                continue
            values = {c: (row.get(c) or "").strip() for c in ("pair_id", "annotator_id", "round", "annotated_at")}
            empty = [c for c in ("pair_id", "annotator_id") if not values[c]]
            if not round_override and not values["round"]:
                empty.append("round")
            if empty:
                problems.append(f"{where}: missing field(s) {empty}")
                continue
            label = parse_label(raw_label)
            if label is None:
                problems.append(f"{where}: unknown label {raw_label!r}; expected one of {', '.join(FOUR_WAY)}")
                continue
            when = file_time
            if values["annotated_at"]:
                parsed = _parse_time(values["annotated_at"])
                if parsed is None:
                    problems.append(f"{where}: invalid annotated_at {values['annotated_at']!r}; expected ISO 8601")
                    continue
                when = parsed
            round_name = round_override or values["round"]
            record = Annotation(values["pair_id"], values["annotator_id"], label, round_name, when, where)
            key = (record.pair_id, record.annotator_id, round_name)
            if key in found and found[key].label != label:
                problems.append(
                    f"{where}: annotator {record.annotator_id!r} labels pair {record.pair_id} {label!r} in round "
                    f"{round_name!r}, but {found[key].where} says {found[key].label!r}"
                )
                continue
            found.setdefault(key, record)
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: malformed CSV: {exc}")
    if problems:
        raise AnnotationFileError(str(path), problems)
    return list(found.values())
