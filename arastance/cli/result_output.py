"""Writing a query result as a table, CSV, JSON Lines or Parquet, to a terminal, a pipe or a file.

A terminal gets a folded rich table; anything else (a pipe, a file) gets one line per row and
never a wrapped value, so ``arastance sql … | cut``, ``| jq`` and ``> file`` see whole values.
Rows are streamed in batches, the aligned table through a spill file and Parquet in row groups of a
bounded size: a large result never sits in memory at once (only a terminal's rich table holds its rows).
"""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import IO, Any
from uuid import UUID

import duckdb
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

from arastance.cli.output_file import is_stream, is_terminal, opened_stream, replacing
from arastance.cli.shown_text import LiteralConsole, json_visible, shown, visible

_BATCH = 500  # rows per fetch; ten thousand article texts were 120 MB of Python strings
_STREAM_BUFFER = "32KB"
_ROW_GROUP_BYTES = "16MB"  # DuckDB's own Parquet row group, 122,880 rows, was 1.3 GB of article texts
_SPILL_IN_MEMORY = 32 * 2**20  # a table's cells held before they spill to a file (its columns' widths need them all)


class ResultFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


_BINARY = frozenset({ResultFormat.parquet})  # bytes no terminal may be given: they are written, never escaped


def destination_refusal(fmt: ResultFormat, out: Path | None) -> str | None:
    """Why the result in ``fmt`` cannot go to ``out`` (standard output when None), a message naming both, or None.

    A binary format needs a file: on standard output, or at a terminal named as the file (``-o /dev/stdout``
    at a terminal, ``-o /dev/tty``), its bytes reached the terminal raw, ESC sequences of stored text
    included, where CSV and JSON are escaped there. Asked before the query runs (``--write`` stores its work).
    """
    if fmt not in _BINARY:
        return None
    if out is None:
        return f"--format {fmt.value} writes a binary file: give it --out FILE"
    if is_terminal(out):
        return f"--format {fmt.value} writes a binary file, and --out {out} is a terminal: give it --out FILE"
    return None


def _batches(rel: duckdb.DuckDBPyRelation) -> Iterator[list[tuple[Any, ...]]]:
    while batch := rel.fetchmany(_BATCH):
        yield batch


def prepare_output(con: duckdb.DuckDBPyConnection, fmt: ResultFormat) -> None:
    """Set the command's connection for writing ``fmt`` without holding the result, before its result is
    fetched (after a script's own statements, whose ``SET`` would undo it).

    DuckDB's streaming buffer (``streaming_buffer_size``, about 1 MB) counts a chunk's vectors but not the
    bytes of its strings, so a result of article texts was buffered whole before its first row was written
    (2.9 GB to write an 880 MB CSV). A buffer this small holds a chunk or two whatever their text; numbers
    stream as fast as before. Parquet runs the query on one thread without ``preserve_insertion_order``
    (:func:`write_parquet`), which ``current_setting`` in it then shows.
    """
    con.execute(f"SET streaming_buffer_size = '{_STREAM_BUFFER}'")
    if fmt is ResultFormat.parquet:
        con.execute("SET threads = 1")
        con.execute("SET preserve_insertion_order = false")


_PENDING_FAILED = "Invalid Input Error: Attempting to execute an unsuccessful or closed pending query result"


def query_error(exc: duckdb.Error) -> str:
    """The query's own error: one that fails after its first rows were streamed comes from DuckDB as
    its wrapper ("… unsuccessful or closed pending query result") with ``Error: <cause>`` on the next line."""
    text = str(exc)
    first, _, cause = text.partition("\n")
    if first == _PENDING_FAILED and cause.startswith("Error: "):
        return cause.removeprefix("Error: ")
    return text


class UnwritableValueError(ValueError):
    """A value of the result that the chosen format cannot hold; the message names its column."""


class SpillError(RuntimeError):
    """The aligned table's spill file could not be written; the message names where it was."""


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
    """Columns aligned on the widest value, one line per row, values never wrapped or cut.

    The widths are known only once the last row is read, and the query is not run twice (``now()`` or
    ``random()`` would differ the second time): each row's cells are kept while the widths are measured,
    and aligned from there. Holding them all took a million article texts into memory, so beyond
    :data:`_SPILL_IN_MEMORY` they go to an unnamed file in the temporary directory (``TMPDIR``), gone when
    closed, also when the query fails part-way; a disk too small for it is an error naming it.
    """
    header = [_cell(c) for c in rel.columns]  # PIVOT makes column names of values
    widths = [len(h) for h in header]
    n = 0
    with tempfile.SpooledTemporaryFile(_SPILL_IN_MEMORY, "w+", encoding="utf-8", newline="\n") as spill:
        with _spilling():
            for batch in _batches(rel):
                for row in batch:
                    cells = [_cell(v) for v in row]  # no tab nor newline: _cell writes them as \t and \n
                    widths = list(map(max, widths, map(len, cells)))
                    spill.write("\t".join(cells) + "\n")
                n += len(batch)
            spill.seek(0)  # writes what the file still buffers
        out.write(_aligned(header, widths))
        out.write("  ".join("-" * w for w in widths) + "\n")
        for line in spill:
            out.write(_aligned(line.removesuffix("\n").split("\t"), widths))
    return n


@contextmanager
def _spilling() -> Iterator[None]:
    """A write of the table's spill file; the disk refusing it is an error naming the directory."""
    try:
        yield
    except OSError as exc:
        raise SpillError(f"the table's rows could not be kept in the temporary directory "
                         f"{tempfile.gettempdir()} to size its columns ({exc.strerror or exc}); set TMPDIR to a "
                         "disk with room, or use --format csv or json, which need none") from exc


def _aligned(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() + "\n"


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


def write_parquet(rel: duckdb.DuckDBPyRelation, path: Path) -> int:
    """The result as a Parquet file in row groups of about 16 MB, by DuckDB's own writer; returns its row
    count. The connection must be set for it first (:func:`prepare_output`).

    DuckDB holds a whole row group before writing it, 122,880 rows by default: over a GB of article texts.
    Its bound in bytes (``ROW_GROUP_SIZE_BYTES``) is refused while it keeps rows in order
    (``preserve_insertion_order``), and a bound in rows did not help: to keep the order with several threads,
    it gathers each batch of the scan whole first (386 MB to write 150 MB of texts in row groups of 2,048 rows).
    With one thread the rows arrive in order and are written as they come, so the query runs on one thread,
    order kept without the setting (an ORDER BY is kept whatever the setting). A row group still holds at
    least one vector of DuckDB's (2,048 rows). pyarrow's writer, fed batch by batch, was no way out: it has
    no Parquet INTERVAL, and writes a HUGEINT, UUID, ENUM or UNION as other types than DuckDB's writer.
    """
    rel.to_parquet(str(path), row_group_size_bytes=_ROW_GROUP_BYTES)
    return pq.read_metadata(path).num_rows


def write_result(
    rel: duckdb.DuckDBPyRelation, fmt: ResultFormat, *, out: Path | None = None, stdout: IO[str] | None = None
) -> int:
    """Write ``rel`` in ``fmt`` to the file ``out`` or to standard output; return the row count."""
    stdout = stdout or sys.stdout
    if refusal := destination_refusal(fmt, out):
        raise ValueError(refusal)
    writers = {ResultFormat.csv: write_csv, ResultFormat.json: write_json_lines, ResultFormat.table: write_plain_table}
    if out is not None and fmt is not ResultFormat.parquet and is_stream(out):  # rows go out as they come
        with opened_stream(out) as stream:
            text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
            try:  # as standard output is written: a terminal (-o /dev/tty) gets no stored ESC raw
                return write_result(rel, fmt, stdout=text)
            finally:
                text.flush()
                text.detach()  # the stream is closed by its own block
    if out is not None:
        with replacing(out) as partial:
            if fmt is ResultFormat.parquet:
                return write_parquet(rel, partial)
            with open(partial, "w", encoding="utf-8", newline="") as fh:
                return writers[fmt](rel, fh)
    if fmt is ResultFormat.table and stdout.isatty():
        return print_rich_table(rel, LiteralConsole(file=stdout))
    if fmt is ResultFormat.csv and stdout.isatty():  # an ESC in a stored value would reach the terminal raw
        return write_csv(rel, stdout, text=visible)
    if fmt is ResultFormat.json and stdout.isatty():
        return write_json_lines(rel, stdout, text=json_visible)
    return writers[fmt](rel, stdout)
