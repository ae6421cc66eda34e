"""Whether a command may write its result to the file a user named, checked before any work.

A result written to the warehouse's own file replaced the database with it: ``arastance sql
"SELECT 1" -f csv -o <data_dir>/warehouse.duckdb`` left a 4-byte CSV where the warehouse was (with
``--write``, the readers' copy was then published from that CSV too), and ``retrieve compare --out``
truncated the warehouse to a Markdown report. A FIFO named as the file blocked the command for ever.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from secrets import token_hex

from arastance.base.input_paths import blocked_directory
from arastance.config import Settings
from warehouse.publish import warehouse_files

_DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 11 of every DuckDB database file


def output_file_refusal(option: str, out: Path, settings: Settings) -> str | None:
    """Why the file ``out``, given as ``option``, must not be written (a message naming both), or None.

    Refused: a path whose directory is missing or blocked by a file, a directory, a FIFO no process
    reads, a socket or block device, one of the warehouse's files (the writer's file, its
    published copy, their write-ahead logs), a file in a DuckLake's data path, and any existing
    DuckDB database (another warehouse, a benchmark's): a result never replaces a database.
    """
    if not out.parent.is_dir():  # the nearest one in the way, e.g. a file two levels up
        blocked = blocked_directory(out.parent)
        return f"{option} {out}: " + (f"{blocked[0]} {blocked[1]}" if blocked else f"{out.parent} does not exist")
    if out.is_dir():
        return f"{option} {out} is a directory; give a file name"
    if os.path.exists(out) and not out.is_file() and (why := _unwritable_special(out)):
        return f"{option} {out} {why}"
    if any(_same_file(out, f) for f in warehouse_files(settings.warehouse)):
        return f"{option} {out} is a file of the warehouse {settings.warehouse}; give another file name"
    data_path = settings.warehouse_data_path
    if settings.warehouse_backend == "ducklake" and data_path and "://" not in data_path and \
            out.resolve().is_relative_to(Path(data_path).resolve()):
        return f"{option} {out} lies in the DuckLake's data path {data_path}; give a file elsewhere"
    if out.is_file() and _is_duckdb_database(out):
        return f"{option} {out} is a DuckDB database, which the result would replace; give another file name"
    return None


def _unwritable_special(out: Path) -> str | None:
    """Why a path that is no regular file cannot take the result, or None for one that can: a character
    device (``/dev/null``, a terminal) and a FIFO (``>(gzip > r.gz)``) are written as they are (one that
    no process reads is refused when the write begins: :func:`replacing`)."""
    mode = os.stat(out).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return None
    return "is neither a regular file nor a device or FIFO to write to (a socket, a block device)"


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file under any name (a link, a relative path), or would be: a
    write-ahead log that does not exist yet is one DuckDB would replay the result from."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return a.resolve() == b.resolve()


def _is_duckdb_database(path: Path) -> bool:
    """Whether ``path`` starts as a DuckDB database file does. Read only for a file that is none of this
    process's warehouse files (checked first): closing a file drops every POSIX lock the process holds
    on it, DuckDB's included."""
    try:
        with open(path, "rb") as file:
            return file.read(12)[8:12] == _DUCKDB_MAGIC
    except OSError:
        return False


@contextmanager
def replacing(out: Path) -> Iterator[Path]:
    """A file beside ``out`` that becomes ``out`` only once written whole: a query that fails part-way
    (a row that cannot be converted, an error raised by the query itself) leaves an earlier ``out`` as it was.

    Its name is short and random: ``.<out's name>.partial`` was 9 bytes longer than ``out``, so an
    ``out`` near the file system's 255-byte limit was refused, naming a file the user never gave.
    The writers create it as they would ``out``, with the permissions a new file gets. A device or a
    FIFO (``/dev/null``, a pipe) is written as it is: it cannot be renamed over, and holds nothing to keep.
    """
    if os.path.exists(out) and not out.is_file():
        with _reader_waiting(out):
            yield out
        return
    partial = out.with_name(f".arastance-{token_hex(6)}.partial")
    try:
        yield partial
        os.replace(partial, out)
    finally:
        with suppress(OSError):  # a read-only directory refuses even this; its error would hide the first
            partial.unlink(missing_ok=True)


@contextmanager
def _reader_waiting(out: Path) -> Iterator[None]:
    """For a FIFO, hold a write end open while the block writes: one that no process reads is refused at
    once (a write would wait for ever), and probing it without holding the end let its reader see the
    end of the stream before the result came. A device needs nothing."""
    if not stat.S_ISFIFO(os.stat(out).st_mode):
        yield
        return
    try:
        held = os.open(out, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:  # ENXIO: no reader
        raise OSError(errno.ENXIO, "a FIFO that no process reads, where a write would wait for ever; start its "
                      "reader first", str(out)) from exc
    try:
        yield
    finally:
        os.close(held)
