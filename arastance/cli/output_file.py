"""Whether a command may write its result to the file a user named, checked before any work.

A result written to the warehouse's own file replaced the database with it: ``arastance sql
"SELECT 1" -f csv -o <data_dir>/warehouse.duckdb`` left a 4-byte CSV where the warehouse was (with
``--write``, the readers' copy was then published from that CSV too), and ``retrieve compare --out``
truncated the warehouse to a Markdown report. A FIFO named as the file blocked the command for ever.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from secrets import token_hex
from typing import BinaryIO

from arastance.base.input_paths import blocked_directory, not_a_file
from arastance.base.std_streams import was_closed
from arastance.config import Settings
from warehouse.publish import warehouse_files

_DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 11 of every DuckDB database file
_DESCRIPTOR_FOLDER = re.compile(r"/proc/(\d+)(?:/task/\d+)?/fd")  # /dev/fd and /proc/self/fd lead here


def output_file_refusal(option: str, out: Path, settings: Settings) -> str | None:
    """Why the file ``out``, given as ``option``, must not be written (a message naming both), or None.

    Refused: a path whose directory (a link's target's) is missing or blocked by a file, a directory, a
    socket or block device (an open descriptor such as ``/dev/stdout`` takes the result, whatever it
    holds), one of the warehouse's files (the writer's file, its published copy, their write-ahead logs),
    a file in a DuckLake's data path, and any existing DuckDB database (another warehouse, a
    benchmark's): a result never replaces a database. A FIFO that no process reads is refused when the
    write begins (:func:`opened_stream`).
    """
    descriptor = _descriptor(out)
    folder = out.parent if descriptor is not None else Path(os.path.realpath(out)).parent  # a link's target's
    if not folder.is_dir():  # the nearest one in the way, e.g. a file two levels up
        blocked = blocked_directory(folder)
        return f"{option} {out}: " + (f"{blocked[0]} {blocked[1]}" if blocked else f"{folder} does not exist")
    if out.is_dir():
        return f"{option} {out} is a directory; give a file name"
    if descriptor is not None and descriptor[0] == os.getpid() and (why := _unwritable_descriptor(descriptor[1])):
        return f"{option} {out} names descriptor {descriptor[1]}, which {why}; give a file name"
    if os.path.islink(out) and not_a_file(out) == "is a loop of symbolic links":
        return f"{option} {out} is a loop of symbolic links; give a file name"
    if descriptor is None and os.path.exists(out) and not out.is_file() and (why := _unwritable_special(out)):
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
    no process reads is refused when the write begins: :func:`opened_stream`)."""
    mode = os.stat(out).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return None
    return "is neither a regular file nor a device or FIFO to write to (a socket, a block device)"


def _unwritable_descriptor(fd: int) -> str | None:
    """Why this process cannot write its descriptor ``fd`` (not open, open for reading only: ``/dev/stdin``
    gave a traceback once the query had run), or None. A standard stream the process was started without
    is not open, though ``/dev/null`` holds its place (:mod:`arastance.base.std_streams`)."""
    if was_closed(fd):
        return "is not open"
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError:
        return "is not open"
    return "is open for reading only" if flags & os.O_ACCMODE == os.O_RDONLY else None


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


def is_stream(out: Path) -> bool:
    """Whether ``out`` is written as it is, never replaced: a device (``/dev/null``, a terminal), a FIFO
    (``>(gzip > r.gz)``) or an open descriptor (``/dev/stdout``, ``/dev/fd/3``), whatever it leads to."""
    return _descriptor(out) is not None or (os.path.exists(out) and not out.is_file())


def is_terminal(out: Path) -> bool:
    """Whether ``out`` leads to a terminal: ``/dev/tty``, ``/dev/pts/N``, or a descriptor (``/dev/stdout``)
    that holds one. A binary result written there reaches the terminal raw, ESC sequences of stored text
    included (a changed title, a cleared screen), where a text format is escaped.

    A device is opened to ask (as the write would open it anyway), without becoming the process's
    controlling terminal and without waiting for a serial line's carrier; one that cannot be opened is no
    terminal here, and its write fails with its own error.
    """
    descriptor = _descriptor(out)
    if descriptor is not None and descriptor[0] == os.getpid():
        return os.isatty(descriptor[1])
    try:
        if not stat.S_ISCHR(os.stat(out).st_mode):
            return False
        fd = os.open(out, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


@contextmanager
def replacing(out: Path) -> Iterator[Path]:
    """A file the block writes, which becomes ``out`` only once written whole: a query that fails part-way
    (a row that cannot be converted, an error raised by the query itself) leaves an earlier ``out`` as it was.

    Its name is short and random: ``.<out's name>.partial`` was 9 bytes longer than ``out``, so an
    ``out`` near the file system's 255-byte limit was refused, naming a file the user never gave.
    The writers create it as they would ``out``, with the permissions a new file gets. A link is written
    through, as the shell's ``>`` does: the file it points to is replaced, and the link kept. A stream
    (:func:`is_stream`) cannot be renamed over: the file is written in the temporary directory and copied
    into it whole (as root, ``-o /dev/stdout`` into a file replaced the system's ``/dev/stdout`` link).
    """
    if is_stream(out):
        with opened_stream(out) as stream, tempfile.TemporaryDirectory(prefix="arastance-") as folder:
            staged = Path(folder) / "result"
            yield staged
            with open(staged, "rb") as written:
                shutil.copyfileobj(written, stream)
        return
    target = Path(os.path.realpath(out))
    partial = target.with_name(f".arastance-{token_hex(6)}.partial")
    try:
        yield partial
        os.replace(partial, target)
    finally:
        with suppress(OSError):  # a read-only directory refuses even this; its error would hide the first
            partial.unlink(missing_ok=True)


@contextmanager
def opened_stream(out: Path) -> Iterator[BinaryIO]:
    """The stream ``out`` names (:func:`is_stream`), open for writing as it is.

    This process's own descriptor (``/dev/stdout``) is written at its offset, as a print would be: opened
    anew, a file the shell had opened lost what came before the result (``>>``) or had it written over.
    Any other is added to, never truncated; a FIFO that no process reads is refused at once (a write would
    wait for ever), and its write end is held from then on, so that its reader does not see the end of
    the stream before the result comes.
    """
    descriptor = _descriptor(out)
    if descriptor is not None and descriptor[0] == os.getpid():
        fd = os.dup(descriptor[1])
    elif stat.S_ISFIFO(os.stat(out).st_mode):
        fd = _fifo_write_end(out)
    else:
        fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    with os.fdopen(fd, "wb") as stream:
        yield stream


def _fifo_write_end(out: Path) -> int:
    """A write end of the FIFO ``out``, or an error at once when no process reads it."""
    try:
        fd = os.open(out, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:  # ENXIO: no reader
        raise OSError(errno.ENXIO, "a FIFO that no process reads, where a write would wait for ever; start its "
                      "reader first", str(out)) from exc
    os.set_blocking(fd, True)  # a reader slower than the query makes the writes wait, not fail
    return fd


def _descriptor(out: Path) -> tuple[int, int] | None:
    """The process and the descriptor that ``out`` names through ``/dev/stdout``, ``/dev/fd/N`` or
    ``/proc/PID/fd/N``, or None. Such a path leads to whatever the descriptor holds (a file the shell
    opened, a pipe, a terminal), which only the descriptor reaches as the process holding it does."""
    path = os.path.abspath(out)
    for _ in range(40):  # the kernel's own bound on the links one path may follow
        folder = os.path.realpath(os.path.dirname(path))
        if (found := _DESCRIPTOR_FOLDER.fullmatch(folder)) and os.path.basename(path).isdigit():
            return int(found.group(1)), int(os.path.basename(path))
        if not os.path.islink(path):
            return None
        path = os.path.join(folder, os.readlink(path))
    return None
