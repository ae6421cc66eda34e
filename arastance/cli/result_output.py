"""Writing a query result as a table, CSV, JSON Lines or Parquet, to a terminal, a pipe or a file.

A terminal gets a folded rich table; anything else (a pipe, a file) gets one line per row and
never a wrapped value, so ``arastance sql … | cut``, ``| jq`` and ``> file`` see whole values.
Rows are streamed in batches: a large result never sits in memory at once.
"""

from __future__ import annotations

import base64
import csv
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from pathlib import Path
from secrets import token_hex
from typing import IO, Any
from uuid import UUID

import duckdb
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

from arastance.cli.shown_text import LiteralConsole, json_visible, shown, visible

_BATCH = 500  # rows per fetch; ten thousand article texts were 120 MB of Python strings
_STREAM_BUFFER = "32KB"


class ResultFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


def _batches(rel: duckdb.DuckDBPyRelation) -> Iterator[list[tuple[Any, ...]]]:
    while batch := rel.fetchmany(_BATCH):
        yield batch


def stream_rows_in_small_buffers(con: duckdb.DuckDBPyConnection) -> None:
    """Keep DuckDB from running ahead of the writers: its streaming buffer (``streaming_buffer_size``,
    about 1 MB) counts a chunk's vectors but not the bytes of its strings, so a result of article texts
    was buffered whole before its first row was written (2.9 GB to write an 880 MB CSV). A buffer this
    small holds a chunk or two whatever their text; numbers stream as fast as before."""
    con.execute(f"SET streaming_buffer_size = '{_STREAM_BUFFER}'")


class UnwritableValueError(ValueError):
    """A value of the result that the chosen format cannot hold; the message names its column."""


def iso_duration(value: timedelta) -> str:
    """An INTERVAL as an ISO 8601 duration of days and time (``P1DT2H30M``, ``PT0.5S``, ``-P1D``):
    what JSON readers parse as a duration, where a number of seconds would lose that it is one. DuckDB
    hands an interval's months to Python as 30 days each, so days are the largest unit."""
    sign, value = ("-", -value) if value < timedelta(0) else ("", value)
    minutes, seconds = divmod(value.seconds, 60)
    hours, minutes = divmod(minutes, 60)
    second_part = f"{seconds}.{value.microseconds:06d}".rstrip("0") if value.microseconds else str(seconds)
    clock = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M")) if n)
    clock += f"{second_part}S" if seconds or value.microseconds else ""
    if not (value.days or clock):
        return "PT0S"
    return f"{sign}P" + (f"{value.days}D" if value.days else "") + (f"T{clock}" if clock else "")


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return iso_duration(value)
    if isinstance(value, Decimal):  # a scale-0 decimal is a whole number (a HUGEINT that came through Arrow)
        return int(value) if value.is_finite() and value.as_tuple().exponent == 0 else float(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"a {type(value).__name__} value has no JSON form")


def _cell(value: Any) -> str:
    """A value on one line: embedded newlines and tabs are escaped, never wrapped, and other
    control characters written as ``\\xNN`` (:func:`arastance.cli.shown_text.visible`)."""
    if value is None:
        return ""
    return visible(str(value).replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))


class _LineFeedRows:
    """What a CSV writer told to end rows with ``\\r\\n`` writes to: each row ends with ``\\n`` instead.

    The writer quotes a value only for the characters of its own row terminator; told ``\\n``, it left a
    bare ``\\r`` (an old Mac line end in scraped text) unquoted, and Python's csv and DuckDB's read_csv
    split the row there. It writes each row, terminator included, in one call."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def write(self, row: str) -> int:
        return self._out.write(row.removesuffix("\r\n") + "\n")


def write_csv(rel: duckdb.DuckDBPyRelation, out: IO[str], *, text: Callable[[str], str] | None = None) -> int:
    """The result as CSV, one line per row; ``text``, when given, rewrites each value and column name
    (:func:`~arastance.cli.shown_text.visible` at a terminal), while a file or a pipe gets them byte for byte."""
    writer = csv.writer(_LineFeedRows(out), lineterminator="\r\n")

    def shown(values: Sequence[Any]) -> Sequence[Any]:
        return values if text is None else [None if v is None else text(str(v)) for v in values]

    writer.writerow(shown(rel.columns))
    n = 0
    for batch in _batches(rel):
        writer.writerows(map(shown, batch))
        n += len(batch)
    return n


def write_json_lines(rel: duckdb.DuckDBPyRelation, out: IO[str], *, text: Callable[[str], str] | None = None) -> int:
    """One JSON object per row (JSON Lines, as ``jq`` and ``pandas.read_json(lines=True)`` read); ``text``,
    when given, rewrites each line (:func:`~arastance.cli.shown_text.json_visible` at a terminal)."""
    names = rel.columns
    n = 0
    for batch in _batches(rel):
        for row in batch:
            line = _json_line(names, row)
            out.write((line if text is None else text(line)) + "\n")
        n += len(batch)
    return n


def _finite(value: Any) -> Any:
    """``value`` with NaN and ±Infinity, at any depth, as None: JSON has no such numbers (``jq``, DuckDB's
    read_json and JavaScript refuse a line holding ``NaN``), and null is its missing number."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _json_text(value: Any) -> str:
    """Standard JSON only: ``allow_nan=False`` refuses a non-finite number :func:`_finite` did not reach."""
    return json.dumps(_finite(value), ensure_ascii=False, default=_json_value, allow_nan=False)


def _json_line(names: list[str], row: tuple[Any, ...]) -> str:
    """One row as a JSON object; a value JSON cannot hold (a map keyed by dates, a type DuckDB hands
    over as a Python object) is one error naming its column, not a traceback."""
    try:
        return _json_text(dict(zip(names, row)))
    except (TypeError, ValueError) as exc:
        for name, value in zip(names, row):
            try:
                _json_text(value)
            except (TypeError, ValueError) as cell:
                raise UnwritableValueError(f"column {name!r} cannot be written as JSON ({cell}); cast it in the "
                                           f'query, e.g. CAST("{name}" AS VARCHAR)') from exc
        raise UnwritableValueError(f"a row cannot be written as JSON ({exc})") from exc


def write_plain_table(rel: duckdb.DuckDBPyRelation, out: IO[str]) -> int:
    """Columns aligned on the widest value, one line per row, values never wrapped or cut."""
    rows = [[_cell(v) for v in row] for row in rel.fetchall()]
    header = [_cell(c) for c in rel.columns]  # PIVOT makes column names of values
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    out.write("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n")
    return len(rows)


def print_rich_table(rel: duckdb.DuckDBPyRelation, console: Console) -> int:
    """A table for a person at a terminal: long values fold to the terminal's width."""
    rows = rel.fetchall()
    table = Table(show_lines=False)
    for c in rel.columns:
        table.add_column(shown(c), overflow="fold")
    for row in rows:
        table.add_row(*[shown(v) for v in row])
    console.print(table)
    return len(rows)


@contextmanager
def _replacing(out: Path) -> Iterator[Path]:
    """A file beside ``out`` that becomes ``out`` only once written whole: a query that fails part-way
    (a row that cannot be converted, an error raised by the query itself) leaves an earlier ``out`` as it was.

    Its name is short and random: ``.<out's name>.partial`` was 9 bytes longer than ``out``, so an
    ``out`` near the file system's 255-byte limit was refused, naming a file the user never gave.
    The writers create it as they would ``out``, with the permissions a new file gets.
    """
    partial = out.with_name(f".arastance-{token_hex(6)}.partial")
    try:
        yield partial
        os.replace(partial, out)
    finally:
        with suppress(OSError):  # a read-only directory refuses even this; its error would hide the first
            partial.unlink(missing_ok=True)


def write_result(
    rel: duckdb.DuckDBPyRelation, fmt: ResultFormat, *, out: Path | None = None, stdout: IO[str] | None = None
) -> int:
    """Write ``rel`` in ``fmt`` to the file ``out`` or to standard output; return the row count."""
    stdout = stdout or sys.stdout
    if fmt is ResultFormat.parquet and out is None:
        raise ValueError("--format parquet writes a binary file: give it --out FILE")
    writers = {ResultFormat.csv: write_csv, ResultFormat.json: write_json_lines, ResultFormat.table: write_plain_table}
    if out is not None:
        with _replacing(out) as partial:
            if fmt is ResultFormat.parquet:
                rel.to_parquet(str(partial))
                return pq.read_metadata(partial).num_rows
            with open(partial, "w", encoding="utf-8", newline="") as fh:
                return writers[fmt](rel, fh)
    if fmt is ResultFormat.table and stdout.isatty():
        return print_rich_table(rel, LiteralConsole(file=stdout))
    if fmt is ResultFormat.csv and stdout.isatty():  # an ESC in a stored value would reach the terminal raw
        return write_csv(rel, stdout, text=visible)
    if fmt is ResultFormat.json and stdout.isatty():
        return write_json_lines(rel, stdout, text=json_visible)
    return writers[fmt](rel, stdout)
