"""The published read-only copy of the warehouse: readers and the pipeline never block each other.

DuckDB locks a database file per process: while a flow writes ``warehouse.duckdb`` no other
process can open it, not even read-only, and a process that holds it open read-only keeps every
writer out. So readers never open the writer's file. Whenever a writing connection closes, the
writer checkpoints, copies the file to a temporary name beside the published copy and renames
it over ``published/<name>.duckdb`` (``os.replace`` is atomic on POSIX). A reader that opened
the old copy keeps reading that inode, consistent and unlocked by anyone else; the next reader
gets the new one. The copy costs disk (one more warehouse file; none until blocks change on a file
system that shares them, XFS or btrfs) and one sequential copy per write session, in the kernel, by
a process of its own (:mod:`warehouse.file_copy`: a descriptor of the file closed in the writer's
process would drop DuckDB's lock); a session that changed nothing leaves the file's size and mtime
alone and is not copied.

Readers (``arastance sql``, ``stats``, notebooks, the duckdb CLI, ``duckdb.connect(...,
read_only=True)``) see the warehouse as of the last finished write session.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import duckdb

from arastance.logging import get_logger
from warehouse import file_copy
from warehouse.connection import (Warehouse, WarehouseBusyError, WarehouseError, hidden_beside, open_warehouse,
                                  unusable_path_error)

log = get_logger(__name__)

PUBLISHED_DIR = "published"
_RANDOM_PART = len("XXXXXXXX.tmp")  # what mkstemp adds to a partial copy's prefix
_PUBLISHING = threading.Lock()  # one copy at a time in a process (its writers share the file lock)
_MIB = 1 << 20


def published_path(primary: str | Path) -> Path:
    """Where the read-only copy of the warehouse file ``primary`` is published."""
    primary = Path(primary)
    return primary.parent / PUBLISHED_DIR / primary.name


def warehouse_files(primary: str | Path) -> list[Path]:
    """The files a DuckDB warehouse ``primary`` lives in: the writer's file, its published copy, and
    each one's write-ahead log (which commands must never write over)."""
    files = [Path(primary), published_path(primary)]
    return [*files, *(f.with_name(f"{f.name}.wal") for f in files)]


def _partial_prefix(target: Path) -> str:
    """The name of a copy of ``target`` being written beside it, up to mkstemp's random part and ``.tmp``."""
    return hidden_beside(target, ".", reserve=_RANDOM_PART).name


def _stamp_path(primary: Path) -> Path:
    return hidden_beside(published_path(primary), ".source")


def _failure_paths(primary: Path) -> tuple[Path, Path]:
    """Where a writer notes that it could not refresh the copy: beside the copy, else beside the
    writer's file (the copy's directory may be what refused, read-only)."""
    published = published_path(primary)
    return hidden_beside(published, ".failed"), hidden_beside(primary, ".publish-failed")


def record_publish_failure(primary: str | Path, error: BaseException) -> None:
    """Note that a writer could not refresh the copy, for readers to say so (best effort: the failed
    copy's partial file is gone by now, which leaves room for these few bytes)."""
    note = json.dumps({"at": datetime.now().isoformat(sep=" ", timespec="seconds"), "error": str(error)})
    for path in _failure_paths(Path(primary)):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(note, encoding="utf-8")
            return
        except OSError:
            continue
    log.warning("could not note that the read-only copy is stale either; readers will not be warned",
                extra={"warehouse": str(primary)})


def _stamp(primary: Path) -> dict[str, int]:
    st = primary.stat()
    return {"inode": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def is_current(primary: str | Path) -> bool:
    """Whether the published copy was taken from the primary file as it is now."""
    primary = Path(primary)
    stamp_file = _stamp_path(primary)
    if not published_path(primary).is_file() or not stamp_file.is_file():
        return False
    try:
        return json.loads(stamp_file.read_text(encoding="utf-8")) == _stamp(primary)
    except (OSError, ValueError):
        return False


def _remove_partial_copies(target: Path) -> None:
    """Remove the temporary files of publishes that were killed mid-copy (kill -9, out of memory):
    nothing else did, so each such kill kept up to a warehouse's size on the disk for good.

    Safe because only the writer publishes, holding the warehouse file's lock (:func:`publish`
    refuses a read-only connection), so no other process is copying at the same time; the writers
    of one process publish one at a time (``_PUBLISHING``).
    """
    for partial in target.parent.glob(glob.escape(_partial_prefix(target)) + "*.tmp"):
        partial.unlink(missing_ok=True)


def publish(wh: Warehouse) -> Path | None:
    """Checkpoint the writer's file and swap a copy of it in as the published copy.

    Runs under the writer's lock (the connection is open read-write), so the file cannot change
    while it is copied. Returns the published path, or None when the copy was already current.
    """
    if wh.read_only:
        raise WarehouseError(f"warehouse {wh.path} is open read-only; only its writer can publish it")
    wh.con.execute("CHECKPOINT")
    if is_current(wh.path):
        return None
    target = published_path(wh.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _PUBLISHING:
        _remove_partial_copies(target)
        _copy(wh.path, target)
    _stamp_path(wh.path).write_text(json.dumps(_stamp(wh.path)), encoding="utf-8")
    for note in _failure_paths(wh.path):
        note.unlink(missing_ok=True)
    log.info("published read-only warehouse copy", extra={"warehouse": str(wh.path), "published": str(target)})
    return target


def _copy(primary: Path, target: Path) -> None:
    """Copy ``primary`` to a temporary file beside ``target``, then rename it over ``target``.

    The bytes are copied by a process of its own (:mod:`warehouse.file_copy`): this process holds
    the warehouse open, and closing a descriptor of the file here would drop DuckDB's lock on it.
    The copy gets the primary's permission bits: ``mkstemp`` makes the file 0600 and the rename
    keeps that, so no user but the writer could read the copy that exists for the other users.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=_partial_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, stat.S_IMODE(os.stat(primary).st_mode))
        os.close(fd)
        copied = subprocess.run([sys.executable, "-I", "-S", file_copy.__file__, str(primary), tmp_name],
                                capture_output=True, text=True)
        if copied.returncode != 0:
            raise _copy_error(copied.stderr, primary)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _copy_error(stderr: str, primary: Path) -> OSError:
    """The error that ended the copying process, from its traceback's last line: the system's own
    (``[Errno 28] No space left on device``: a full disk is told as such), else one naming the file."""
    lines = stderr.strip().splitlines()
    last = lines[-1] if lines else "no message"
    found = re.match(r"^[\w.]*(?:Error|Exception): \[Errno (\d+)\] (.*)$", last)
    if found:
        return OSError(int(found[1]), found[2])
    return OSError(f"copying warehouse {primary} for readers failed: {last}")


def open_published(primary: str | Path) -> Warehouse:
    """A read-only connection to the published copy of ``primary``; it never waits for a writer.

    A warehouse written before copies were published gets its first copy now, when no writer
    holds the file; while one does, its copy appears when it finishes. A copy that a writer could
    not refresh (a full disk) is read with a warning saying so and since when (it read the old
    counts with no word); the next writer's copy ends it. A reader never copies an existing copy
    again itself: that took the writer's lock for as long as the copy lasted, and the disk's space.
    A copy of other data (one that an earlier version published from a file of other data) is
    refused, so that ``sql`` does not answer from it as if it were the warehouse. DuckDB hands a
    process that still holds a connection to the copy that connection's database again, so a reader
    sees a newer copy once its earlier connections are closed.
    """
    from arastance.config import load_settings
    from warehouse.migrate import refuse_foreign_database

    settings = load_settings()
    if settings.warehouse_backend == "ducklake":  # readers attach the shared catalog itself
        return open_warehouse(primary, read_only=True)
    memory_limit = settings.warehouse_memory_limit
    primary = Path(primary)
    target = published_path(primary)
    if not target.is_file():
        if not primary.is_file():
            raise unusable_path_error(primary)
        try:
            writer = Warehouse(primary, wait_s=0, memory_limit=memory_limit)
            try:  # a DuckDB file of other data is not copied for this project's readers
                refuse_foreign_database(writer)
            finally:
                writer.close()  # closing a writer publishes
        except WarehouseBusyError as exc:
            raise WarehouseError(
                f"warehouse {primary} has no published read-only copy yet and a writer holds it; "
                "the copy appears when that writer finishes"
            ) from exc
        if not target.is_file():
            raise WarehouseError(f"warehouse {primary} has no published read-only copy, and it could not be written to "
                                 f"{target} (see the warning above; once that is mended, run this again)")
    elif any(note.is_file() for note in _failure_paths(primary)):
        _warn_stale(primary, target)
    return _checked(Warehouse(target, read_only=True, memory_limit=memory_limit),
                    lambda copy: refuse_foreign_database(copy, f"the readers' copy of warehouse {primary} ({target})"))


def open_report(primary: str | Path) -> Warehouse:
    """:func:`open_published` for a report of this installation's (``stats``, ``annotate status``, …),
    on a schema this installation knows.

    Right after an upgrade the readers' copy keeps the older schema until a writer migrates it (a
    report reading a view or column added since crashed with DuckDB's catalog error, and was then
    refused until someone who can write ran a migration). The report now reads a private copy
    brought up to date (:func:`_migrated_private_copy`). A copy that was never migrated is refused.
    Queries of the user's own (``sql``) and ``warehouse status`` read any schema."""
    from warehouse.migrate import SchemaBehindError, require_current_schema

    wh = open_published(primary)
    copy = Path(wh.location) == published_path(primary)
    try:
        return _checked(wh, lambda opened: require_current_schema(
            opened, f"the readers' copy of warehouse {primary} ({opened.location})" if copy else None))
    except SchemaBehindError as behind:
        if not copy:  # the writer's own file (a DuckLake): its next writer migrates it
            raise
        return _migrated_private_copy(Path(primary), published_path(primary), behind)


def _migrated_private_copy(primary: Path, published: Path, behind: WarehouseError) -> Warehouse:
    """A read-only connection to a private copy of ``published`` with this installation's migrations.

    The shared copy is left as it is: a user who can only read cannot change it, and the next
    writer migrates the warehouse and publishes it anew. The private file, in a temporary
    directory, is removed as soon as it is open (the open connection keeps reading it), so a report
    killed after that leaves nothing behind; it costs the warehouse's size on that disk meanwhile,
    and is not started on a disk without that room (:func:`_require_room`).
    """
    from arastance.config import load_settings
    from warehouse.migrate import apply_migrations

    memory_limit = load_settings().warehouse_memory_limit
    log.warning("the readers' copy is older than this installation: this report reads a private copy brought up to "
                "date (the migrations below); the shared one is brought up to date by the next write (`arastance "
                "warehouse migrate` is one that changes nothing else)",
                extra={"warehouse": str(primary), "published": str(published)})
    where = "the temporary directory"
    try:
        where = tempfile.gettempdir()  # raises where no directory is usable
        _require_room(published, where)
        with tempfile.TemporaryDirectory(prefix="arastance-report-", dir=where, ignore_cleanup_errors=True) as scratch:
            private = Path(scratch) / published.name
            shutil.copyfile(published, private)
            with Warehouse(private, publish=False, wait_s=0, memory_limit=memory_limit) as writer:
                apply_migrations(writer)
            quoted = where.replace("'", "''")  # DuckDB's default temp_directory, beside the file, goes with it
            wh = _checked(Warehouse(private, read_only=True, memory_limit=memory_limit),
                          lambda opened: opened.con.execute(f"SET temp_directory = '{quoted}'"))
    except (OSError, WarehouseError, duckdb.Error) as exc:
        raise WarehouseError(f"{behind}; a private copy brought up to date for this report could not be made in "
                             f"{where} either ({exc})") from exc
    return wh


def _require_room(published: Path, where: str) -> None:
    """Refuse a private copy of ``published`` that the disk under ``where`` has no room for.

    A copy that fills the disk fails anyway, only later, and one that just fits leaves it all but
    full: meanwhile every other program writing to that shared temporary directory goes without
    space. The margin is for the migrations, which add about 1 MiB of tables and views, and for
    DuckDB's write-ahead log.
    """
    needed = published.stat().st_size
    needed += max(needed // 10, 8 * _MIB)
    free = shutil.disk_usage(where).free
    if free < needed:
        raise WarehouseError(f"it needs about {-(-needed // _MIB)} MiB there and that disk has {free // _MIB} MiB free; "
                             "set TMPDIR to a directory on a disk with room")


def _checked(wh: Warehouse, check: Callable[[Warehouse], None]) -> Warehouse:
    """``wh`` once ``check`` has passed on it; closed when it does not, so no refused copy stays open."""
    try:
        check(wh)
    except BaseException:
        wh.close()
        raise
    return wh


def _warn_stale(primary: Path, target: Path) -> None:
    failed = {}
    notes = [note for note in _failure_paths(primary) if note.is_file()]
    for note in sorted(notes, key=lambda n: n.stat().st_mtime, reverse=True):  # the latest failure first
        try:
            failed = json.loads(note.read_text(encoding="utf-8"))
            break
        except (OSError, ValueError):
            continue
    taken = datetime.fromtimestamp(target.stat().st_mtime).isoformat(sep=" ", timespec="seconds")
    log.warning("reading an older read-only copy of the warehouse: a later write could not refresh it, so what was "
                "written since is not in it; the next write refreshes it (`arastance warehouse migrate` is one that "
                "changes nothing)", extra={"published": str(target), "taken": taken, "failed_at": failed.get("at"),
                                           "error": failed.get("error")})
