"""The published read-only copy of the warehouse: readers and the pipeline never block each other.

DuckDB locks a database file per process: while a flow writes ``warehouse.duckdb`` no other
process can open it, not even read-only, and a process that holds it open read-only keeps every
writer out. So readers never open the writer's file. Whenever a writing connection closes, the
writer checkpoints, copies the file to a temporary name beside the published copy and renames
it over ``published/<name>.duckdb`` (``os.replace`` is atomic on POSIX). A reader that opened
the old copy keeps reading that inode, consistent and unlocked by anyone else; the next reader
gets the new one. The copy costs disk (one more warehouse file; none until blocks change on a file
system that shares them, XFS or btrfs) and one sequential copy per write session, in the kernel; a
session that changed nothing leaves the file's size and mtime alone and is not copied.

Readers (``arastance sql``, ``stats``, notebooks, the duckdb CLI, ``duckdb.connect(...,
read_only=True)``) see the warehouse as of the last finished write session.

A write of several sessions (``build_dataset``: gold labels, then all-unrelated flags, then
splits) holds publication meanwhile (:func:`publication_hold`), so that readers never see it
half done: its own sessions open with ``publish=False``, and a writer of any other process (a
crawl load, a retrieval, ``arastance sql --write``) or of the same one that closes meanwhile
logs why and publishes nothing. Its changes are stored all the same, and the next publish after
the hold, a copy of the whole file, includes them: the flow's writer that follows the block.
The hold is a shared ``flock`` on ``.<warehouse name>.publication-hold`` beside the warehouse
(the way :mod:`tasks.stage_locks` locks a stage), so several multi-step writes may hold it at
once, and the kernel lets go of a holder that dies however it dies (kill -9 included): a
crashed build delays publication only until the next writer closes. A publisher tests the hold
with a non-blocking exclusive ``flock`` under the warehouse file's own lock, which a holder's
steps need too, so a copy never catches a hold's work half done. A DuckLake publishes nothing
(its readers attach the catalog), so the hold changes nothing there.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import shutil
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

import duckdb

from arastance.base.stopping import pause
from arastance.logging import get_logger
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


def _hold_path(primary: Path) -> Path:
    return hidden_beside(primary, ".publication-hold")


@contextmanager
def publication_hold(primary: str | Path, purpose: str) -> Iterator[None]:
    """Publish no copy of ``primary`` while the block runs: for a write of several sessions that
    readers must see whole or not at all (``purpose`` names it in the skipping writers' logs).

    The holder publishes after the block, by closing a writer (``build_dataset``'s statistics
    step); a block that raises lets go too, and the next writer publishes what was stored. The
    file is not the hold, the ``flock`` is; it keeps the latest holder's details for the logs. A
    file another user made (on a shared warehouse) is held read-only, without this holder's
    details; where none can be made or opened the block runs unheld, with a warning: the hold
    only spares readers a half-done view, and must never cost the write itself. A DuckLake publishes no
    copy (its readers attach the catalog), so nothing is held there.
    """
    from arastance.config import load_settings

    if load_settings().warehouse_backend == "ducklake":
        yield
        return
    path = _hold_path(Path(primary))
    fd = _open_hold(path)
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a publisher tests the hold
        me = {"pid": os.getpid(), "host": socket.gethostname(), "purpose": purpose,
              "since": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        with contextlib.suppress(OSError):  # opened read-only: the skipping writers name no holder
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(me).encode("utf-8"), 0)
        yield
    finally:
        os.close(fd)  # lets go of this holder's share of the hold


def _open_hold(path: Path) -> int | None:
    """The hold file, opened to write the holder's details where it may be, else read-only (a
    ``flock`` needs no more); None, logged, where it can be neither made nor opened."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by child processes (PEP 446)
    except OSError:
        try:
            return os.open(path, os.O_RDONLY)
        except OSError as exc:
            log.warning("cannot hold publication of the readers' copy: writers closing meanwhile may publish "
                        "this write half done", extra={"path": str(path), "error": f"{type(exc).__name__}: {exc}"})
            return None


#: Tries of the hold test, 10 ms apart, before a refused lock is taken for a hold (not another's test).
_HOLD_TESTS = 5


def publication_held_by(primary: str | Path) -> str | None:
    """Who holds publication of ``primary``'s copy (:func:`publication_hold`), or None when no live
    process does (a dead holder's hold is gone with it; its details left in the file are not read).

    The test is an exclusive lock taken and let go at once, so another process's test (a reader
    waiting for a build, :func:`wait_for_publication`) makes it fail for an instant: a lock refused
    only counts as a hold when it is still refused after :data:`_HOLD_TESTS` tries (a writer took
    such an instant for a hold and left the readers' copy unpublished, 2 closes in 100)."""
    try:
        fd = os.open(_hold_path(Path(primary)), os.O_RDONLY)
    except OSError:  # no file, or one nobody can open: then nobody holds it either
        return None
    try:
        for _ in range(_HOLD_TESTS):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return None
            except BlockingIOError:
                time.sleep(0.01)
        return _holder_details(fd)
    finally:
        os.close(fd)  # lets go of the test's lock too


class PublicationHeldError(WarehouseError):
    """A write of several steps still held publication when a reader stopped waiting for it."""

    def __init__(self, message: str, held_by: str) -> None:
        super().__init__(message)
        self.held_by = held_by


def wait_for_publication(primary: str | Path, wait_s: float) -> None:
    """Return once no live process holds publication of ``primary``'s copy (:func:`publication_hold`),
    for a reader of the writer's file itself that must not see such a write half done (training on
    the gold data while ``build_dataset`` is between its steps); logs once whom it waits for.

    Raises :class:`PublicationHeldError`, naming the holder, when one still holds it after ``wait_s``
    seconds. The hold can be taken again as soon as this returns: a reader that needs the state to
    stay whole checks :func:`publication_held_by` again once it holds the file open (a holder's
    steps need the file's lock too).
    """
    held_by = publication_held_by(primary)
    if held_by is None:
        return
    log.warning("waiting for a write of several steps to end before reading the warehouse, so as not to read it "
                "half done", extra={"warehouse": str(primary), "held_by": held_by, "wait_s": wait_s})
    deadline = time.monotonic() + wait_s
    while held_by is not None:
        if time.monotonic() >= deadline:
            raise PublicationHeldError(f"{held_by} still holds warehouse {primary} half written after {wait_s:g} s",
                                       held_by)
        pause(0.5)  # a run asked to stop stops waiting (arastance.base.stopping)
        held_by = publication_held_by(primary)


def _holder_details(fd: int) -> str:
    try:
        found = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return f"{found['purpose']}, PID {found['pid']} on {found['host']} since {found['since']}"
    except (OSError, ValueError, TypeError, KeyError):  # a holder still writing them
        return "a process that has not written its details yet"


def publish(wh: Warehouse) -> Path | None:
    """Checkpoint the writer's file and swap a copy of it in as the published copy.

    Runs under the writer's lock (the connection is open read-write), so the file cannot change
    while it is copied. Returns the published path, or None when the copy was already current or
    a multi-step write holds publication (:func:`publication_hold`; logged, and its end publishes
    this session's changes with its own).
    """
    if wh.read_only:
        raise WarehouseError(f"warehouse {wh.path} is open read-only; only its writer can publish it")
    wh.con.execute("CHECKPOINT")
    if is_current(wh.path):
        return None
    held_by = publication_held_by(wh.path)
    if held_by is not None:
        log.warning("not publishing the readers' copy: a write of several steps holds publication so that readers "
                    "never see it half done; what was committed is stored, and the publish after that write "
                    "ends includes it", extra={"warehouse": str(wh.path), "held_by": held_by})
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

    The copy gets the primary's permission bits: ``mkstemp`` makes the file 0600 and the rename
    keeps that, so no user but the writer could read the copy that exists for the other users.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=_partial_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with open(primary, "rb", buffering=0) as src, os.fdopen(fd, "wb") as dst:
            _copy_contents(src, dst)
            os.fchmod(dst.fileno(), stat.S_IMODE(os.fstat(src.fileno()).st_mode))
            os.fsync(dst.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _copy_contents(src: BinaryIO, dst: BinaryIO) -> None:
    """Copy ``src`` into ``dst`` in the kernel (``copy_file_range``): on a file system that shares
    blocks (XFS, btrfs) the copy takes no time and no space until the writer changes a block; on ext4
    it still saves the trip through Python's buffers. Where the kernel cannot (another file system,
    an old kernel), what is left is copied through a buffer."""
    left = os.fstat(src.fileno()).st_size
    with contextlib.suppress(OSError):  # EXDEV, ENOSYS, EOPNOTSUPP...: the buffered copy takes over
        while left > 0:
            copied = os.copy_file_range(src.fileno(), dst.fileno(), min(left, 1 << 30))
            if copied == 0:  # a file system that copies nothing this way
                break
            left -= copied
    shutil.copyfileobj(src, dst, length=16 << 20)  # the rest, from where the kernel's copy stopped
    dst.flush()


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
        if not target.is_file() and (held_by := publication_held_by(primary)) is not None:
            raise WarehouseError(f"warehouse {primary} has no published read-only copy yet and a write of several "
                                 f"steps holds publication ({held_by}); the copy appears when it ends")
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
