"""CSV task sheets for annotators who work in a spreadsheet, and reading them back.

The sheet has one row per task with an empty ``label`` column to fill in; ``annotated_at`` may
be left empty, in which case the file's modification time stands for every row of it.
Rows whose label is still empty are not annotations yet and are skipped. A problem names the row
as the spreadsheet numbers it (the header is row 1) and the row's pair_id.

A row's ``claim_id`` and ``article_id`` say which pair it shows, and with the warehouse's pairs at
hand (``parse_csv(pairs=...)``) a labelled row whose cells are not those of the pair its pair_id
names is refused: the row shows one pair and names another, as every row does once the pair_id
column alone is sorted (Excel's "continue with the current selection"), and its label, given
after reading one article, would be stored on another pair. A sheet without those columns (made
by hand) is read on its pair_ids alone. As the annotator labels the claim and article the row shows,
that text is checked as well (:class:`ShownPairs`): sorting the claim or article column alone
puts another pair's text beside the ids. The pilot's discussion sheet is checked the same way.

A spreadsheet takes about one pair id in 800 for a number and saves it rewritten (``1.23457E+14``);
with the warehouse's pairs by claim and article at hand too (``parse_csv(pair_ids=...)``), such a
row is given the pair its claim_id and article_id name, and refused when they name none.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arastance.base.text_files import EncodingProblem, read_utf8
from arastance.logging import get_logger
from tasks.annotation.records import Annotation, AnnotationFileError, AnnotationTask, parse_label
from tasks.annotation.sheet_cells import SHEET_QUOTING, inert_cell
from tasks.stance.labels import FOUR_WAY

TASK_COLUMNS: tuple[str, ...] = (
    "pair_id", "round", "annotator_id", "claim", "article_title", "article_url", "article",
    "label", "annotated_at", "claim_id", "article_id", "claim_url", "source_id",
)
REQUIRED_COLUMNS: tuple[str, ...] = ("pair_id", "annotator_id", "label")
#: The columns that say which pair a row shows, compared with the pair its pair_id names.
PAIR_KEY_COLUMNS: tuple[str, ...] = ("claim_id", "article_id")
#: The columns an import reads; the others (the claim's and article's text) are the annotator's.
READ_COLUMNS: tuple[str, ...] = ("pair_id", "annotator_id", "round", "label", "annotated_at", *PAIR_KEY_COLUMNS)
#: Columns that, with ``annotator``, only Label Studio's CSV export has (its annotation's id and time spent).
LABEL_STUDIO_CSV_COLUMNS = frozenset({"annotation_id", "lead_time"})
#: Columns of text from the web, which a spreadsheet must not take for formulas.
WEB_TEXT_COLUMNS: tuple[str, ...] = ("claim", "article_title", "article_url", "article", "claim_url")
#: How much of a text a row shows is compared with its pair's: an article longer than a spreadsheet's
#: cell comes back cut (Excel keeps 32,767 characters), but two articles differ well before that.
SHOWN_TEXT_COMPARED = 1_000

#: The stored pairs among the given pair ids, by pair id, each with its ``claim_id`` and
#: ``article_id`` (``functools.partial(warehouse.annotation.pair_tasks, wh)``).
PairLookup = Callable[[Iterable[str]], Mapping[str, Mapping[str, Any]]]
#: The stored pair id of each given ``(claim_id, article_id)`` that has one
#: (``functools.partial(warehouse.annotation.pair_ids_of, wh)``).
PairIdLookup = Callable[[Iterable[tuple[str, str]]], Mapping[tuple[str, str], str]]
#: How an annotator keeps a spreadsheet from rewriting the ids.
KEEP_IDS_AS_TEXT = ("open the sheet with its columns as text (Excel: Data > From Text/CSV, data type Text), "
                    "or keep the pair_id, claim_id and article_id columns as text, or label in Label Studio "
                    "and import its JSON export")

log = get_logger(__name__)


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


def _allow_cells_of(text: str) -> None:
    """Let csv take a cell as long as ``text`` itself.

    The sheets carry each article whole, and a long one (a live blog, a report: a few hundred KiB)
    is longer than csv's default cell limit of 131,072 characters, which refused the product's
    own sheets as "malformed". No cell can be longer than the text it is in, so that bound always
    reads a sheet back; the limit is process-wide, and it is only ever raised."""
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))


def sheet_reader(text: str) -> csv.DictReader:
    """A reader over a whole sheet's ``text`` that takes a cell as long as the text itself."""
    _allow_cells_of(text)
    return csv.DictReader(io.StringIO(text))


def sheet_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each record of a sheet's ``text``, blank ones too (``[]``), with the row a spreadsheet shows
    it on: the header is row 1.

    Neither csv's ``line_num`` (the last line of text a record takes: an article cell holds many)
    nor a count of csv.DictReader's rows (it drops blank lines, which a spreadsheet shows as
    empty rows) is that row."""
    _allow_cells_of(text)
    return enumerate(csv.reader(io.StringIO(text)), start=1)


class _RowProblem(ValueError):
    """Why a labelled row gives no annotation."""


def _parse_time(raw: str) -> datetime | None:
    try:
        ts = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None
    return ts.astimezone(timezone.utc).replace(tzinfo=None) if ts.tzinfo else ts


def read_sheet_text(path: Path) -> str:
    """The sheet's text; a file that cannot be read, or is not UTF-8, is refused whole, naming the
    line and column of the first bad byte (every sheet an annotator sends back is read this way)."""
    try:
        return read_utf8(path, allow_bom=True)
    except EncodingProblem as exc:
        raise AnnotationFileError(str(path), [str(exc).removeprefix(f"{path}, ")]) from None
    except OSError as exc:
        raise AnnotationFileError(str(path), [f"cannot read the file: {exc.strerror or exc}"]) from None


def _annotation(row: Mapping[str, str], where: str, file_time: datetime,
                round_override: str | None) -> Annotation | None:
    """The label a row of stripped cells gives, or None while its label is empty; raises
    :class:`_RowProblem` for a labelled row that gives none."""
    raw_label = row.get("label", "")
    if not raw_label:
        return None
    empty = [c for c in ("pair_id", "annotator_id") if not row.get(c)]
    if not round_override and not row.get("round"):
        empty.append("round")
    if empty:
        raise _RowProblem(f"missing field(s) {empty}")
    label = parse_label(raw_label)
    if label is None:
        raise _RowProblem(f"unknown label {raw_label!r}; expected one of {', '.join(FOUR_WAY)}")
    when = file_time
    if row.get("annotated_at"):
        parsed = _parse_time(row["annotated_at"])
        if parsed is None:
            raise _RowProblem(f"invalid annotated_at {row['annotated_at']!r}; expected ISO 8601")
        when = parsed
    return Annotation(row["pair_id"], row["annotator_id"], label, round_override or row["round"], when, where)


def _read_as_number(cell_id: str) -> bool:
    """Whether a spreadsheet takes ``cell_id`` for a number and so saves it rewritten
    (``0123456789012345`` as ``1.23457E+14``): about one pair id in 800 (16 hex digits) is all
    digits, or digits around one ``e``; its cell cannot be compared."""
    try:
        float(cell_id)
    except ValueError:
        return False
    return True


def _unfound_pair(where: str, pair_id: str, cells: Mapping[str, str]) -> str:
    """Why the row named ``where``, whose pair_id a spreadsheet turned into the number ``pair_id``,
    has no pair."""
    numbers = [c for c in PAIR_KEY_COLUMNS if _read_as_number(cells.get(c, ""))]
    missing = [c for c in PAIR_KEY_COLUMNS if not cells.get(c)]
    if numbers:
        named = " and ".join(f"{c} {cells[c]!r}" for c in numbers)
        why = f"its {named} {'is a number' if len(numbers) == 1 else 'are numbers'} too"
    elif missing:
        why = f"the row has no {' or '.join(missing)}"
    else:
        why = f"no pair has claim_id {cells['claim_id']!r} and article_id {cells['article_id']!r}"
    return (f"{where}: unknown pair {pair_id!r}: a spreadsheet turned the pair_id into a number, "
            f"and the row's claim_id and article_id do not name its pair ({why}); {KEEP_IDS_AS_TEXT}")


def row_where(number: int, pair_id: str, saved_as: str = "") -> str:
    """How a problem names a sheet's row: as the spreadsheet numbers it, with the pair it shows
    (``row 4 (pair 670e…)``), and the number the sheet shows where a spreadsheet turned its
    pair_id into one (``row 4 (pair 670e…, saved as 1.23457E+14)``), as the sheet's user sees it."""
    if not pair_id:
        return f"row {number}"
    return f"row {number} (pair {pair_id}" + (f", saved as {saved_as})" if saved_as else ")")


def recovered_pair_ids(rows: Iterable[tuple[int, str, Mapping[str, str]]], pairs: PairLookup,
                       pair_ids: PairIdLookup) -> tuple[dict[int, str], dict[int, str]]:
    """Of ``rows`` (each row's number, its pair_id as the sheet shows it, and its cells), those whose
    pair_id a spreadsheet turned into a number (no stored pair has it): the pair each one's
    claim_id and article_id name, by row number, and the problem of each whose cells name none.

    Every sheet the team fills in (task sheets, the pilot's discussion sheet) finds its rows so.
    Done before any row is taken: two pair ids rewritten alike (``1.23457E+14``) are two pairs."""
    rows = list(rows)
    numbers = {shown for _, shown, _ in rows if _read_as_number(shown)}
    rewritten = numbers - set(pairs(numbers)) if numbers else set()
    keys = {number: (cells.get("claim_id", ""), cells.get("article_id", ""))
            for number, shown, cells in rows if shown in rewritten}
    found = pair_ids(keys.values()) if keys else {}
    given = {number: found[key] for number, key in keys.items() if key in found}
    unfound = {number: _unfound_pair(row_where(number, shown), shown, cells)
               for number, shown, cells in rows if number in keys and number not in given}
    return given, unfound


@dataclass
class _SheetRows:
    """What a sheet's rows gave so far: problems by row number, each labelled row's number,
    annotation and filled-in claim_id / article_id cells as read, and of those, once taken, one
    annotation per pair, annotator and round."""

    problems: list[tuple[int, str]] = field(default_factory=list)
    labelled: list[tuple[int, Annotation, dict[str, str]]] = field(default_factory=list)
    found: dict[tuple[str, str, str], Annotation] = field(default_factory=dict)
    shown: list[tuple[int, Annotation, dict[str, str]]] = field(default_factory=list)
    every: list[dict[str, str]] = field(default_factory=list)  # the pair_id and text of every row, labelled or not

    def take(self, number: int, record: Annotation, pair_cells: dict[str, str]) -> None:
        """Keep ``record`` unless an earlier row gave its annotator, pair and round another label."""
        earlier = self.found.setdefault((record.pair_id, record.annotator_id, record.round), record)
        if earlier.label != record.label:
            self.problems.append((number, (
                f"{record.where}: annotator {record.annotator_id!r} labels pair {record.pair_id} {record.label!r} "
                f"in round {record.round!r}, but {earlier.where} says {earlier.label!r}")))
            return
        self.shown.append((number, record, pair_cells))

    def read(self, number: int, header: Sequence[str], cells: Sequence[str], file_time: datetime,
             round_override: str | None) -> None:
        """Take the annotation of row ``number`` (``cells``), or its problem; a blank row gives neither."""
        if not cells:  # a blank line
            return
        row = {c: cell.strip() for c, cell in zip(header, cells) if c in READ_COLUMNS or c in WEB_TEXT_COLUMNS}
        self.every.append({c: row[c] for c in ("pair_id", *WEB_TEXT_COLUMNS) if row.get(c)})
        where = row_where(number, row.get("pair_id", ""))
        if len(cells) > len(header):
            self.problems.append((number, f"{where}: more fields than the header has"))
            return
        try:
            record = _annotation(row, where, file_time, round_override)
        except _RowProblem as exc:
            self.problems.append((number, f"{where}: {exc}"))
            return
        if record is not None:
            # the ids and the text the annotator read beside them (ShownPairs)
            self.labelled.append((number, record, {c: row[c] for c in (*PAIR_KEY_COLUMNS, *WEB_TEXT_COLUMNS)
                                                   if row.get(c)}))

    def recover_pair_ids(self, pairs: PairLookup, pair_ids: PairIdLookup) -> int:
        """Give each labelled row whose pair_id a spreadsheet turned into a number (no stored pair
        has it) the pair its claim_id and article_id name, and add a problem for a row whose
        cells name none (:func:`recovered_pair_ids`); return how many rows were given their pair.
        A later problem of a row given its pair names that pair, and the number the sheet shows,
        as the annotator sees it."""
        given, unfound = recovered_pair_ids(
            ((number, record.pair_id, cells) for number, record, cells in self.labelled), pairs, pair_ids)
        self.problems.extend(unfound.items())
        self.labelled = [
            (number, replace(record, pair_id=given[number], where=row_where(number, given[number], record.pair_id))
             if number in given else record, cells)
            for number, record, cells in self.labelled if number not in unfound
        ]
        return len(given)

    def check_pairs(self, pairs: PairLookup) -> None:
        """Add a problem for each labelled row whose claim_id or article_id is not that of the pair
        its pair_id names (:class:`ShownPairs`); a pair the warehouse does not hold is left to
        the import's own check."""
        named = {record.pair_id for _, record, _ in self.shown} | {cells.get("pair_id", "") for cells in self.every}
        shown = ShownPairs(pairs(named), self.every)
        for number, record, cells in self.shown:
            problem = shown.problem(record.where, record.pair_id, cells)
            if problem:
                self.problems.append((number, problem))


def _shown_text(text: str) -> str:
    """``text`` as compared with the pair's: blank runs (a spreadsheet saves line ends its own way)
    as one space, the apostrophe that kept it from acting as a formula left out (a spreadsheet takes
    it on reading), and only its first :data:`SHOWN_TEXT_COMPARED` characters."""
    return " ".join(text.split()).removeprefix("'")[:SHOWN_TEXT_COMPARED]


def _shows_id(cell: str, stored: str) -> bool:
    """Whether a sheet's id ``cell`` can be the pair's ``stored`` id: the same, or one a spreadsheet
    takes for a number (not compared: it may be saved rewritten)."""
    return cell == stored or _read_as_number(stored)


def _quoted(text: str) -> str:
    """``text`` quoted in a problem, cut after 40 characters: a claim or an article would fill the message."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


class ShownPairs:
    """The stored pairs a sheet's rows name (pair id -> a task's cells, as ``warehouse.annotation.pair_tasks``
    gives them), to tell a row that shows another pair than its pair_id names (:meth:`problem`)."""

    def __init__(self, stored: Mapping[str, Mapping[str, Any]], sheet: Iterable[Mapping[str, str]]) -> None:
        """``stored``: the pairs the ``sheet``'s rows (every row's cells, filled in or not) name."""
        self.stored = stored
        #: each text column's texts as the sheet shows them on the rows of each pair
        self._shown: dict[str, dict[str, set[str]]] = {c: {} for c in WEB_TEXT_COLUMNS}
        for cells in sheet:
            for column in WEB_TEXT_COLUMNS:
                if cells.get(column):
                    self._shown[column].setdefault(cells.get("pair_id", ""), set()).add(_shown_text(cells[column]))
        #: each text column's shown texts (as written on a sheet, apostrophes or not) -> the pairs that hold it
        self._holders: dict[str, dict[str, set[str]]] = {c: {} for c in WEB_TEXT_COLUMNS}
        for pair_id, pair in stored.items():
            for column in WEB_TEXT_COLUMNS:
                if column in pair:
                    text = str(pair[column] or "")
                    for form in {_shown_text(text), _shown_text(inert_cell(text))}:
                        self._holders[column].setdefault(form, set()).add(pair_id)

    def _moved(self, column: str, cell: str, pair_id: str) -> bool:
        """Whether ``cell`` of a text ``column`` shows another of the sheet's pairs' text, not ``pair_id``'s,
        while that pair's own row shows something else: the cells of the column changed rows."""
        holders = self._holders[column].get(_shown_text(cell), set())
        if not holders or pair_id in holders:
            return False
        return any(self._shown[column].get(holder, set()) - {_shown_text(cell)} for holder in holders)

    def problem(self, where: str, pair_id: str, cells: Mapping[str, str]) -> str | None:
        """Why the row named ``where`` shows another pair than ``pair_id``, or None. Its claim_id and
        article_id must be the pair's; those alike, none of its claim and article text and URLs
        (:data:`WEB_TEXT_COLUMNS`), read by whoever labelled or decided on the row, may be another
        pair's of the sheet while that pair's own row shows something else, as after a column sorted
        on its own. A text that is no pair's of the sheet, or another's whose own row shows it too, is
        not held against the row: the claim's text may have changed since the sheet was written (a
        reviewer's override, a re-run of the cleaning; two claims of one text, one of them reworded
        to a third's), or the cell been edited. A cell left empty, or a column the row or the pair
        lacks, is not compared: a sheet made by hand is read on its pair_ids."""
        pair = self.stored.get(pair_id, {})
        stored = {c: str(pair[c] or "") for c in (*PAIR_KEY_COLUMNS, *WEB_TEXT_COLUMNS) if c in pair and cells.get(c)}
        ids = [c for c in PAIR_KEY_COLUMNS if c in stored and not _shows_id(cells[c], stored[c])]
        wrong = ids or [c for c in WEB_TEXT_COLUMNS if c in stored and self._moved(c, cells[c], pair_id)]
        if not wrong:
            return None
        hint = "was the pair_id column sorted apart from the rest of the row?" if ids else \
            f"was the {' or '.join(wrong)} column sorted apart from the rest of the row?"
        return (f"{where}: the row's {' and '.join(f'{c} {_quoted(cells[c])}' for c in wrong)} "
                f"{'is' if len(wrong) == 1 else 'are'} not pair {pair_id}'s "
                f"({', '.join(f'{c} {_quoted(stored[c])}' for c in wrong)}): the row shows another pair than its "
                f"pair_id names ({hint})")


def _is_label_studio_csv(header: Sequence[str]) -> bool:
    """Whether ``header`` is that of Label Studio's CSV export: one row per annotation, its author a
    Label Studio user in ``annotator``. Read as a task sheet, every label would be stored as the
    task's annotator's, whoever gave it; a task sheet never has these columns."""
    return "annotator" in header and bool(LABEL_STUDIO_CSV_COLUMNS & set(header))


def parse_csv(path: Path, *, round_override: str | None = None, pairs: PairLookup | None = None,
              pair_ids: PairIdLookup | None = None) -> list[Annotation]:
    """Read a filled-in task sheet; every problem in it is reported at once, in row order.

    With ``pairs`` (the warehouse's), a labelled row whose claim_id or article_id is not its
    pair's is refused, and with ``pair_ids`` too, a row whose pair_id a spreadsheet turned into
    a number is given the pair its claim_id and article_id name (see the module's docstring)."""
    text = read_sheet_text(path)
    file_time = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).replace(tzinfo=None, microsecond=0)
    rows = sheet_rows(text)
    sheet = _SheetRows()
    number = 0
    try:
        number, header = next(rows, (1, []))
        if _is_label_studio_csv(header):
            raise AnnotationFileError(str(path), [
                "this is Label Studio's CSV export; export JSON from Label Studio and import that"])
        needed = list(REQUIRED_COLUMNS) + ([] if round_override else ["round"])
        missing = [c for c in needed if c not in header]
        if missing:
            raise AnnotationFileError(str(path), [f"row 1: missing column(s) {missing}; the header is {header}"])
        for number, cells in rows:
            sheet.read(number, header, cells, file_time, round_override)
    except csv.Error as exc:
        sheet.problems.append((number + 1, f"row {number + 1}: malformed CSV: {exc}"))
    if pairs is not None and pair_ids is not None:
        _log_recovered(path, sheet.recover_pair_ids(pairs, pair_ids))
    for labelled in sheet.labelled:
        sheet.take(*labelled)
    if pairs is not None and sheet.shown:
        sheet.check_pairs(pairs)
    if sheet.problems:
        raise AnnotationFileError(str(path), [p for _, p in sorted(sheet.problems, key=lambda p: p[0])])
    return list(sheet.found.values())


def _log_recovered(path: Path, rows: int) -> None:
    """Say how many rows were found by claim and article: the sheet's next save may mangle more."""
    if rows:
        log.warning("pair ids a spreadsheet turned into numbers found by the rows' claim_id and article_id",
                    extra={"file": str(path), "rows": rows, "avoid": KEEP_IDS_AS_TEXT})
