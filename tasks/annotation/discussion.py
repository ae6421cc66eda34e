"""The pilot's discussion step: disputed pilot pairs on an adjudication sheet, decisions back in.

The method settles pilot disagreements by discussion, not by a vote, and uses what the
discussion brings up to refine the guidelines. So every pilot pair whose annotators gave
different labels goes to ``<round>/discussion.csv``: the pair, who said what, and three columns
to fill together, ``decision`` (one of the four labels), ``reason`` (free text, required) and
``decided_by``. Importing the sheet stores each decision with its reason; the decision becomes
the pair's gold label, and ``annotate status`` reports the discussions per round.

A row is the pair it shows: where a spreadsheet turned its pair_id into a number
(``0123456789012345`` saved as ``1.23457E+14``), the pair its claim_id and article_id name, as on
a task sheet (:func:`tasks.annotation.csv_io.recovered_pair_ids`); a problem names the row as the
spreadsheet numbers it (the header is row 1) and its pair. A filled-in row whose claim_id or
article_id is not its pair's, or whose claim or article is another pair's of the sheet (one column
sorted on its own: the decision was taken reading another pair), is refused
(:class:`tasks.annotation.csv_io.ShownPairs`).

Writing the sheet again (after more labels came in) keeps whatever was already filled in, so a
sheet that cannot be read back (saved by a spreadsheet in another encoding or with ``;`` between
fields), a filled-in row that names no pair or shows another pair, or one whose pair the sheet no
longer lists while the row's decision is not the one stored for it (decided otherwise from another
file, made gold by a dataset file), stops ``adjudicate`` before it stores anything of its own: the
rewritten sheet would drop the row unseen, as ``annotate discuss`` refuses such stale rows too.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from tasks.annotation.gold import GoldDecision
from tasks.annotation.guidelines import FILE_NAME as GUIDELINES_FILE
from tasks.annotation.guidelines import guidelines_markdown
from tasks.annotation.csv_io import (
    WEB_TEXT_COLUMNS,
    ShownPairs,
    read_sheet_text,
    recovered_pair_ids,
    row_where,
    sheet_rows,
)
from tasks.annotation.records import AnnotationFileError, parse_label
from tasks.annotation.sheet_cells import SHEET_QUOTING, inert_cell
from tasks.stance.labels import FOUR_WAY
from warehouse import Warehouse
from warehouse import annotation as store

SHEET_NAME = "discussion.csv"
SHEET_COLUMNS: tuple[str, ...] = (
    "pair_id", "round", "labels", "decision", "reason", "decided_by",
    "claim", "article_title", "article_url", "article", "claim_id", "claim_url", "source_id", "article_id",
)
_FILLED = ("decision", "reason", "decided_by")


@dataclass(frozen=True, slots=True)
class DiscussionDecision:
    pair_id: str
    round: str
    label: str
    reason: str
    decided_by: str
    where: str


@dataclass(frozen=True)
class DiscussionImport:
    file: Path
    decisions: int
    new: int
    waiting: int  # rows of the sheet not decided yet


class UnreadableSheetError(ValueError):
    """A discussion sheet ``adjudicate`` must rewrite but cannot read back: rewriting it would lose
    the decisions and reasons filled in, so nothing is written and no round is stored."""


@dataclass(frozen=True, slots=True)
class _Row:
    """A row of a sheet: its number as a spreadsheet shows it (the header is row 1), its cells
    stripped, by column, the pair it shows, how a problem names it, and whether the warehouse
    holds that pair."""

    number: int
    cells: dict[str, str]
    pair_id: str
    where: str
    known: bool


def _read_sheet(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Each row of the sheet but the blank ones, by the number a spreadsheet shows it on, its cells
    stripped, by column; a sheet that cannot be read raises :class:`AnnotationFileError`."""
    rows = sheet_rows(read_sheet_text(path))
    read: list[tuple[int, dict[str, str]]] = []
    number = 0
    try:
        number, header = next(rows, (1, []))
        missing = [c for c in ("pair_id", "round", *_FILLED) if c not in header]
        if missing:
            semicolons = len(header) == 1 and ";" in header[0]
            hint = "; the fields are separated by ';': save the sheet as CSV UTF-8 (comma delimited)" if semicolons else ""
            raise AnnotationFileError(str(path), [f"row 1: missing column(s) {missing}; the header is {header}{hint}"])
        for number, cells in rows:
            if cells:  # a blank line is a row of the spreadsheet, with nothing in it
                read.append((number, {c: cell.strip() for c, cell in zip(header, cells)}))
    except csv.Error as exc:
        raise AnnotationFileError(str(path), [f"row {number + 1}: malformed CSV: {exc}"]) from None
    return read


def _pairs_shown(wh: Warehouse, rows: Sequence[tuple[int, dict[str, str]]],
                 sheet: Sequence[tuple[int, dict[str, str]]]) -> tuple[list[_Row], dict[int, str]]:
    """The ``rows`` (the filled-in ones of the ``sheet``'s) with the pair each shows (a pair_id a
    spreadsheet turned into a number gives way to the pair the row's claim_id and article_id name),
    and by row number the problem of each row whose cells name none, or whose ids, claim or article
    are another pair's of the sheet than its pair_id names: its decision would be stored on, or kept
    for, no pair or another one."""
    given, problems = recovered_pair_ids(((n, cells.get("pair_id", ""), cells) for n, cells in rows),
                                         partial(store.pair_tasks, wh), partial(store.pair_ids_of, wh))
    named = {n: given.get(n, cells.get("pair_id", "")) for n, cells in rows if n not in problems}
    pairs = ShownPairs(store.pair_tasks(wh, {*named.values(), *(cells.get("pair_id", "") for _, cells in sheet)}),
                       [cells for _, cells in sheet])
    shown = []
    for number, cells in rows:
        if number not in named:
            continue
        pair_id, saved_as = named[number], cells.get("pair_id", "")
        row = _Row(number, cells, pair_id, row_where(number, pair_id, saved_as if number in given else ""),
                   pair_id in pairs.stored)
        problem = pairs.problem(row.where, pair_id, cells)
        if problem:
            problems[number] = problem
        else:
            shown.append(row)
    return shown, problems


@dataclass(frozen=True)
class _Standing:
    """Where the pilot pairs stand now, to tell why a filled-in row's pair is not on its sheet any
    more: each pair's decision, the discussion decisions stored, the gold labels a dataset file
    gave, and the round each pair waiting for discussion is discussed in."""

    decisions: Mapping[str, GoldDecision]
    discussed: Mapping[str, Mapping[str, Any]]
    from_files: Mapping[str, Mapping[str, Any]]
    waiting: Mapping[str, str]

    def left(self, row: _Row) -> str | None:
        """The problem of a filled-in ``row`` whose pair its sheet no longer lists, or None where
        the decision stored for the pair is the row's: then the row has nothing to lose."""
        p, cells = row.pair_id, row.cells
        old = self.discussed.get(p)
        if old is not None and old["label"] == parse_label(cells.get("decision")):
            return None
        decision = self.decisions.get(p)
        if old is not None:
            why = f"pair {p} was decided {old['label']!r} before (from {old['source_file']})"
        elif p in self.from_files:
            why = (f"pair {p}'s gold label {self.from_files[p]['label']!r} comes from a dataset file (`dataset load`), "
                   "which a discussion does not replace")
        elif p in self.waiting:
            why = f"pair {p} is discussed on the sheet of round {self.waiting[p]}"
        elif decision is None:
            why = f"pair {p} has no pilot labels"
        else:
            why = f"pair {p} is {decision.status}" + (f" ({decision.method}, {decision.label!r})" if decision.label else "")
        held = (f"decision {cells['decision']!r}" + (" and its reason" if cells.get("reason") else "")
                if cells.get("decision") else "reason" if cells.get("reason") else "decided_by")
        return (f"{row.where}: {why}, so the sheet no longer lists it: rewriting the sheet would drop the row's "
                f"{held}; clear the row's decision, reason and decided_by")


def _filled_in(wh: Warehouse, sheet: Path, listed: Collection[str], standing: _Standing) -> dict[str, dict[str, str]]:
    """What the discussion already wrote on ``sheet``, by pair (nothing when there is no sheet yet),
    the sheet to list the pairs ``listed``; a sheet that cannot be read back, a filled-in row that
    names no pair or shows another one, or one whose pair is not ``listed`` and whose decision is
    not stored (:meth:`_Standing.left`) raises :class:`UnreadableSheetError`: rewriting the sheet
    would drop what the row holds, or keep it beside another claim and article than it was taken on."""
    if not sheet.is_file():
        return {}
    try:
        read = _read_sheet(sheet)
    except AnnotationFileError as exc:
        raise _unreadable(sheet, exc.problems) from None
    filled = [(n, cells) for n, cells in read if any(cells.get(c) for c in _FILLED)]
    if not filled:
        return {}
    rows, problems = _pairs_shown(wh, filled, read)
    for row in rows:
        if not row.known:
            problems[row.number] = (f"{row.where}: {f'unknown pair {row.pair_id!r}' if row.pair_id else 'no pair_id'}: "
                                    "the row's decision and reason belong to no pair; give the row back its pair_id")
        elif row.pair_id not in listed and (gone := standing.left(row)):
            problems[row.number] = gone
    if problems:
        raise _unreadable(sheet, [problems[n] for n in sorted(problems)])
    return {row.pair_id: row.cells for row in rows}


def _unreadable(sheet: Path, problems: Sequence[str]) -> UnreadableSheetError:
    return UnreadableSheetError(
        f"{sheet}: cannot read the discussion sheet back to keep what was filled in: {'; '.join(problems)}. "
        "Nothing was written and no adjudication round was created; fix the sheet and run `annotate adjudicate` again")


def discussion_sheets(wh: Warehouse, decisions: Sequence[GoldDecision], out_dir: Path) -> dict[Path, str]:
    """The text of one sheet per pilot round with pairs waiting for discussion, keeping what the
    sheets there already hold; an unreadable sheet raises :class:`UnreadableSheetError`.

    Nothing is written: ``adjudicate`` reads every sheet before it stores a round, and writes them
    with that round's files (:func:`write_sheets`)."""
    waiting = {d.pair_id for d in decisions if d.status == "discussion"}
    if not waiting:
        return {}
    labels: dict[tuple[str, str], list[str]] = {}
    for a in store.annotations(wh):
        if a["round_kind"] == "pilot" and a["pair_id"] in waiting:
            labels.setdefault((a["round"], a["pair_id"]), []).append(f"{a['annotator_id']}={a['label']}")
    tasks = store.pair_tasks(wh, waiting)
    standing = _Standing({d.pair_id: d for d in decisions}, {d["pair_id"]: d for d in store.pilot_discussions(wh)},
                         store.gold_not_from_annotations(wh), {p: r for r, p in labels})
    sheets = {}
    for round_name in sorted({r for r, _ in labels}):
        sheet = out_dir / round_name / SHEET_NAME
        filled = _filled_in(wh, sheet, {p for r, p in labels if r == round_name}, standing)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=SHEET_COLUMNS, lineterminator="\n", quoting=SHEET_QUOTING)
        writer.writeheader()
        for (r, pair_id), given in sorted(labels.items()):
            if r != round_name:
                continue
            task = tasks[pair_id]
            kept = {c: (filled.get(pair_id) or {}).get(c) or "" for c in _FILLED}
            writer.writerow({
                "pair_id": pair_id, "round": round_name, "labels": inert_cell("; ".join(sorted(given))), **kept,
                **{c: task.get(c) or "" for c in SHEET_COLUMNS if c in task},
                **{c: inert_cell(task.get(c) or "") for c in WEB_TEXT_COLUMNS},
            })
        sheets[sheet] = buf.getvalue()
    return sheets


def write_sheets(sheets: dict[Path, str]) -> list[Path]:
    """Write the sheets :func:`discussion_sheets` made, with the guidelines beside each; return them."""
    for sheet, text in sheets.items():
        sheet.parent.mkdir(parents=True, exist_ok=True)
        sheet.write_text(text, encoding="utf-8")
        if not (sheet.parent / GUIDELINES_FILE).is_file():
            (sheet.parent / GUIDELINES_FILE).write_text(guidelines_markdown(), encoding="utf-8")
    return list(sheets)


def parse_discussion_sheet(wh: Warehouse, path: Path) -> tuple[list[DiscussionDecision], int]:
    """The decided rows of a sheet and the number still undecided; every problem reported at once,
    in row order, each naming the row as a spreadsheet numbers it and its pair."""
    read = _read_sheet(path)
    rows, unfound = _pairs_shown(wh, [(n, cells) for n, cells in read if cells.get("decision") or cells.get("reason")],
                                 read)
    problems = dict(unfound)
    found: dict[str, DiscussionDecision] = {}
    for row in rows:
        values = {c: row.cells.get(c, "") for c in ("round", *_FILLED)}
        if not values["decision"]:
            problems[row.number] = f"{row.where}: a reason without a decision; fill in decision (one of {', '.join(FOUR_WAY)})"
            continue
        label = parse_label(values["decision"])
        if label is None:
            problems[row.number] = f"{row.where}: unknown decision {values['decision']!r}; expected one of {', '.join(FOUR_WAY)}"
            continue
        if not values["reason"]:
            problems[row.number] = f"{row.where}: decision {label!r} without a reason; the discussion's reason is required"
            continue
        empty = [c for c, v in (("pair_id", row.pair_id), ("round", values["round"])) if not v]
        if empty:
            problems[row.number] = f"{row.where}: missing field(s) {empty}"
            continue
        earlier = found.get(row.pair_id)
        if earlier is not None and earlier.label != label:
            problems[row.number] = f"{row.where}: pair {row.pair_id} decided {label!r}, but {earlier.where} says {earlier.label!r}"
            continue
        found.setdefault(row.pair_id, DiscussionDecision(
            row.pair_id, values["round"], label, values["reason"], values["decided_by"], row.where))
    if problems:
        raise AnnotationFileError(str(path), [problems[n] for n in sorted(problems)])
    return list(found.values()), sum(not cells.get("decision") for _, cells in read)


def import_discussion(wh: Warehouse, path: Path, *, now: datetime | None = None) -> DiscussionImport:
    """Import a filled sheet all-or-nothing: every decided pair must be a disputed pair of that pilot
    round that every annotator the round assigned has labelled (until then it is pending: a late
    label may settle it or change the dispute), and a pair decided before keeps its decision (a
    different one is refused)."""
    decisions, waiting = parse_discussion_sheet(wh, path)
    pilot_labels: dict[tuple[str, str], dict[str, str]] = {}
    for a in store.annotations(wh):
        if a["round_kind"] == "pilot":
            pilot_labels.setdefault((a["round"], a["pair_id"]), {})[a["annotator_id"]] = a["label"]
    assigned = store.assignments_of(wh, (d.pair_id for d in decisions))
    stored = {d["pair_id"]: d for d in store.pilot_discussions(wh)}
    problems = []
    for d in decisions:
        given = pilot_labels.get((d.round, d.pair_id))
        still = sorted(a for rnd, p, a in assigned if (rnd, p) == (d.round, d.pair_id) and a not in (given or {}))
        if given is None:
            problems.append(f"{d.where}: pair {d.pair_id} has no labels in pilot round {d.round!r}")
        elif still:
            problems.append(f"{d.where}: pair {d.pair_id} is pending in {d.round!r}: {', '.join(still)} "
                            "still to label it (a pair is discussed once every annotator its round assigned has "
                            "labelled it; `annotate release` gives up the labels that will not come)")
        elif len(set(given.values())) < 2:
            problems.append(f"{d.where}: pair {d.pair_id}'s annotators agreed in {d.round!r}; there is nothing to discuss")
        old = stored.get(d.pair_id)
        if old is not None and old["label"] != d.label:
            problems.append(f"{d.where}: pair {d.pair_id} was decided {old['label']!r} before (from {old['source_file']})")
    if problems:
        raise AnnotationFileError(str(path), problems)
    when = now or datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    new = store.store_pilot_discussions(wh, [
        {"pair_id": d.pair_id, "round": d.round, "label": d.label, "reason": d.reason,
         "decided_by": d.decided_by or None, "decided_at": when, "source_file": path.name}
        for d in decisions
    ])
    return DiscussionImport(path, len(decisions), new, waiting)
