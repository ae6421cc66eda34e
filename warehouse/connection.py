"""Opening the warehouse: one writer at a time, all-or-nothing batches, typed row access."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import duckdb
import pyarrow as pa

from arastance.base.secrets import redact_secrets
from arastance.base.bounded_wait import wait_for
from arastance.logging import get_logger

if TYPE_CHECKING:
    from arastance.config import Settings

log = get_logger(__name__)

NAME_MAX = 255  # bytes in a file name, on the file systems a warehouse lives on (ext4, XFS, tmpfs, NFS)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class WarehouseError(RuntimeError):
    """A warehouse operation that cannot go ahead; the message says which input is wrong."""


class WarehouseBusyError(WarehouseError):
    """Another process holds the warehouse file's write lock."""


def unusable_path_error(path: Path) -> WarehouseError:
    """Why no warehouse can be opened at ``path``: nothing there yet, or something that is not a
    file (for a directory DuckDB's own error read "Could not read from file …: Is a directory", a
    report said "does not exist", and on a FIFO DuckDB waited for a writer for ever)."""
    if not os.path.exists(path):  # nothing there, or a link to nothing: a writer creates the file
        return WarehouseError(f"warehouse {path} does not exist; run `arastance warehouse migrate`")
    what = "a directory" if os.path.isdir(path) else "a FIFO or a device"
    return WarehouseError(f"warehouse {path} is {what}, not a DuckDB file; set warehouse_path "
                          "(ARASTANCE_WAREHOUSE_PATH, or a flow's warehouse_path parameter) to the file")


def _not_a_warehouse_file(path: Path) -> bool:
    """Something is at ``path`` that DuckDB cannot open as a database file (a dangling link is not:
    a writer creates the file it names)."""
    return os.path.exists(path) and not os.path.isfile(path)


def _is_lock_error(exc: duckdb.Error) -> bool:
    """Whether DuckDB refused the file because another process holds its lock. Its own words, from
    the error's start: "lock" anywhere matched a path too (``/srv/blockchain/…``), so a warehouse
    there that could not be opened for another reason (not a DuckDB file, refused) was waited for
    and then reported as locked by another process, and flows retried it."""
    return str(exc).startswith('IO Error: Could not set lock on file "')


def _lock_holder(exc: duckdb.Error) -> str:
    """The process DuckDB names as the holder of the file's lock ("PID 1234"), for messages."""
    found = re.search(r"\(PID (\d+)\)", str(exc))
    return f"PID {found[1]}" if found else "another process"


def _busy_error(path: Path, read_only: bool, wait_s: float, exc: duckdb.Error) -> WarehouseBusyError:
    """Why the file could not be opened in ``wait_s`` seconds. A reader is kept out by a writer too:
    "only one writer at a time" told someone who only reads (copy-to-lake's source) that they wrote."""
    why = ("is being written by another process (DuckDB opens no file for reading while a process "
           "writes it" if read_only else "is locked by another process (only one writer at a time")
    return WarehouseBusyError(f"warehouse {path} {why}; waited {wait_s:.0f}s): {one_line(exc)}")


_DATA_FILE = "a data file (CSV, Parquet or JSON), read as a view"


def _open_error(path: Path, exc: duckdb.Error) -> WarehouseError:
    """DuckDB's refusal of ``path`` in one line (it added a download URL and a help page below), or,
    where DuckDB took the file for another format, that it is not a warehouse file."""
    needs = re.search(r'Failed to download extension "(\w+)"', str(exc))  # a SQLite file, here without its extension
    if needs:
        return _not_a_database(path, f"a file its {needs[1]} extension reads")
    if "Cannot launch in-memory database in read-only mode" in str(exc):  # a data file, opened to read
        return _not_a_database(path, _DATA_FILE)
    return WarehouseError(f"cannot open warehouse {path}: {one_line(exc)}{_newer_storage_hint(exc)}")


def _refuse_other_format(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Close ``con`` and refuse ``path`` unless DuckDB opened it as a database file of its own.

    DuckDB 1.5 opens more than its own files: a CSV, Parquet or JSON file becomes an in-memory
    database with a view over it, so a warehouse path set to one took a whole run's writes into
    memory and lost them at exit (migrate then said "a DuckDB database of other data"); a SQLite
    file is written through the sqlite extension where that can be installed.
    """
    kind, file = con.execute("SELECT type, path FROM duckdb_databases() WHERE database_name = current_database()"
                             ).fetchone()
    if kind == "duckdb" and (file is not None or str(path) == ":memory:"):  # an in-memory warehouse, asked for
        return
    con.close()
    raise _not_a_database(path, f"a {kind} database" if kind != "duckdb" else _DATA_FILE)


def _not_a_database(path: Path, what: str) -> WarehouseError:
    return WarehouseError(f"warehouse {path} is not a DuckDB database file: DuckDB opens it as {what}; name the "
                          "warehouse's DuckDB file, or a new file")


def _newer_storage_hint(exc: duckdb.Error) -> str:
    if "newer version of DuckDB" not in str(exc):
        return ""
    return (f"\nThe project pins DuckDB {duckdb.__version__} (its CLI and extensions match it). Move the data over with "
            "the DuckDB that wrote the file: EXPORT DATABASE 'export_dir' (FORMAT parquet); then "
            "`.venv/bin/duckdb <new file> -c \"IMPORT DATABASE 'export_dir'\"`.")


def limit_memory(con: duckdb.DuckDBPyConnection, memory_limit: str) -> None:
    """Bound DuckDB's buffers and cache for the database ``con`` is connected to, in this process
    (the ``warehouse_memory_limit`` setting); DuckDB spills what does not fit to its temporary
    directory. Set rather than passed to ``duckdb.connect``: DuckDB refuses a second connection
    to an open file whose configuration differs, and a SET applies to every connection of it."""
    quoted = memory_limit.replace("'", "''")
    try:
        con.execute(f"SET memory_limit = '{quoted}'")
    except duckdb.Error as exc:
        con.close()
        raise WarehouseError(f"warehouse_memory_limit {memory_limit!r} was refused by DuckDB: {exc}") from exc


def one_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (a DuckDB error quotes whole queries and hints below it),
    without a secret the settings hold (a DuckLake catalog's password)."""
    text = str(exc).strip()
    return redact_secrets(text.splitlines()[0] if text else type(exc).__name__)


class Warehouse:
    """A DuckDB connection to the warehouse file with the project's write discipline.

    A second writer in another process waits up to ``wait_s`` seconds for the lock held by the
    first, then fails with :class:`WarehouseBusyError`; DuckDB's own file lock guarantees the
    file is never written by two processes at once. Closing a writing connection publishes the
    read-only copy that readers open (:mod:`warehouse.publish`), unless ``publish`` is false
    (then the next writer's copy brings this connection's changes). ``memory_limit`` bounds
    DuckDB's memory for this file in this process (:func:`limit_memory`).
    :class:`warehouse.ducklake.DuckLakeWarehouse` is the same interface over a shared DuckLake.

    Writes go through :meth:`insert_rows` and :meth:`execute`, or through ``con`` inside
    :meth:`transaction`: each of these runs in a transaction, the caller's or one of its own, and on
    a DuckLake only a transaction holds the catalog's write lock. A write straight on ``con``
    outside one commits beside other hosts' writers there.
    """

    #: Which storage this is (the ``warehouse_backend`` setting): SQL that differs asks.
    backend: Literal["duckdb", "ducklake"] = "duckdb"

    def __init__(
        self, path: str | Path, *, read_only: bool = False, wait_s: float = 30.0, publish: bool = True,
        memory_limit: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.publish = publish and not read_only
        if _not_a_warehouse_file(self.path) or (read_only and not self.path.exists()):
            raise unusable_path_error(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = self._connect(wait_s)
        self._reset_state()
        if memory_limit is not None:
            limit_memory(self.con, memory_limit)

    def _connect(self, wait_s: float) -> duckdb.DuckDBPyConnection:
        """A connection to the file, once no other process holds it (up to ``wait_s`` seconds; the
        wait is logged once, naming the holder: opening a warehouse another run writes waited
        silently); a file DuckDB opens as something other than a database file is refused."""
        refusals: list[duckdb.Error] = []

        def attempt() -> duckdb.DuckDBPyConnection | None:
            try:
                con = duckdb.connect(str(self.path), read_only=self.read_only)
            except duckdb.Error as exc:
                if not _is_lock_error(exc):
                    raise _open_error(self.path, exc) from exc
                refusals[:] = [exc]
                return None
            _refuse_other_format(con, self.path)
            return con

        return wait_for(
            attempt, wait_s=wait_s, every_s=0.2,
            waiting=lambda: log.info("waiting for another process to close the warehouse", extra={
                "warehouse": str(self.path), "holder": _lock_holder(refusals[0]), "wait_s": wait_s}),
            gave_up=lambda: _busy_error(self.path, self.read_only, wait_s, refusals[0]),
        )

    def _reset_state(self) -> None:
        """The per-connection state a freshly opened warehouse starts with."""
        self._columns: dict[str, list[str]] = {}
        self._primary_keys: dict[str, str] = {}
        self._in_transaction = False
        self._closed = False

    @property
    def location(self) -> str:
        """Where the data is, for messages: the file here, the data path of a DuckLake."""
        return str(self.path)

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection; a writer first publishes its read-only copy for the readers.

        The copy needs as much free disk as the warehouse, so on a filling disk it is the write
        that fails first, after the session's work was committed. That failure is logged and
        noted beside the copy, not raised: a load that stored its claims was reported as failed
        (and, raised from a stage's error handler, replaced the stage's own error). Readers then
        say how old their copy is (:func:`warehouse.publish.open_published`); the next writer's
        copy replaces it.
        """
        if self._closed:
            return
        self._closed = True
        try:
            if self.publish:
                from warehouse.publish import publish, record_publish_failure

                try:
                    publish(self)
                except (OSError, duckdb.Error) as exc:
                    log.warning("the read-only copy of the warehouse for readers could not be written; what was "
                                "committed is stored, and readers see the previous copy until a write publishes one",
                                extra={"warehouse": str(self.path), "error": str(exc)})
                    record_publish_failure(self.path, exc)
        finally:
            self.con.close()

    def __enter__(self) -> "Warehouse":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Be the only writer for the block. A DuckDB file has one writing process anyway (its
        file lock); a DuckLake, written from several hosts, takes its catalog's write lock."""
        yield

    @contextmanager
    def checkpoints_every(self, wal_size: str) -> Iterator[None]:
        """Let the write-ahead log grow to ``wal_size`` before DuckDB checkpoints it (default: 16 MiB).

        Page batches commit one by one and each carries ~15 MB of bodies, so at the default every
        commit or two checkpointed, and a checkpoint costs more the larger the table (4-6 s at 100k
        pages): 40k pages took 81 s (18 s CPU) and a file twice their size; with a 256 MB log, 36 s
        (8 s CPU). Rows not yet checkpointed stay in memory, which bounds how large ``wal_size`` may
        be. The previous setting (as DuckDB reports it, to 0.1 MiB) comes back on the way out, failed
        or not; after a write that succeeded, one checkpoint follows.
        """
        before = self.scalar("SELECT current_setting('checkpoint_threshold')")
        self.con.execute(f"SET checkpoint_threshold = '{wal_size}'")
        try:
            yield
        finally:
            self.con.execute(f"SET checkpoint_threshold = '{before}'")
        self.con.execute("CHECKPOINT")

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """Run a write batch as one transaction: all of it is stored, or none of it."""
        if self.read_only:
            raise WarehouseError(f"warehouse {self.path} was opened read-only")
        if self._in_transaction:  # a nested batch joins the outer one: all of it commits, or none
            yield self.con
            return
        self._in_transaction = True
        try:
            with self._outermost() as con:
                yield con
        finally:
            self._in_transaction = False

    @contextmanager
    def _outermost(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """BEGIN, the block, then COMMIT; ROLLBACK if the block fails. The block's own error is the one
        raised: a ROLLBACK that fails too (a DuckLake whose catalog went away) replaced it with a
        traceback of three. A failed COMMIT (a full disk) is a :class:`WarehouseError`, as a failed
        statement is; DuckDB has rolled the transaction back then."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield self.con
        except BaseException:
            with suppress(duckdb.Error):  # nothing to roll back on a lost connection: nothing was committed
                self.con.execute("ROLLBACK")
            raise
        try:
            self.con.execute("COMMIT")
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot commit to warehouse {self.location}: {one_line(exc)}; nothing of "
                                 "this write was stored") from exc

    @contextmanager
    def registered(self, **tables: pa.Table) -> Iterator[None]:
        """Arrow tables visible to SQL under the given names for the duration of a ``with``."""
        for name, table in tables.items():
            self.con.register(name, table)
        try:
            yield
        finally:
            for name in tables:
                with suppress(duckdb.TransactionException):  # an aborted transaction drops it anyway
                    self.con.unregister(name)

    # -- reading ---------------------------------------------------------------------------
    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a statement and return its rows as dictionaries."""
        cur = self.con.execute(sql, params) if params is not None else self.con.execute(sql)
        if cur.description is None:
            return []
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def iter_rows(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None,
                  batch_size: int = 200) -> Iterator[dict[str, Any]]:
        """A statement's rows as dictionaries, fetched in batches: for results too large to hold
        (stored page bodies). Its own cursor, so that the connection stays usable meanwhile; a cursor
        starts in DuckDB's default catalog, so it is moved to the connection's own (a DuckLake's ``lake``,
        where ``claims`` was "no table" to it)."""
        catalog = self.scalar("SELECT current_database()")
        cur = self.con.cursor()
        try:
            cur.execute('USE "{}"'.format(catalog.replace('"', '""')))
            if params is None:
                cur.execute(sql)
            else:
                cur.execute(sql, params)
            names = [d[0] for d in cur.description]
            while batch := cur.fetchmany(batch_size):
                for row in batch:
                    yield dict(zip(names, row))
        finally:
            cur.close()

    def scalar(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        rows = (self.con.execute(sql, params) if params is not None else self.con.execute(sql)).fetchall()
        return rows[0][0] if rows else None

    def tables(self) -> list[str]:
        return [r[0] for r in self.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' "
            "ORDER BY table_name"
        ).fetchall()]

    def table_counts(self) -> dict[str, int]:
        """Exact row count of every table."""
        return {t: int(self.scalar(f'SELECT count(*) FROM "{t}"')) for t in self.tables()}

    def columns(self, table: str) -> list[str]:
        if table not in self._columns:
            if not _IDENT.match(table):
                raise WarehouseError(f"invalid table name {table!r}")
            cols = [r[0] for r in self.con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
                "AND schema_name = 'main' AND table_name = ? ORDER BY column_index", [table]
            ).fetchall()]
            if not cols:
                raise WarehouseError(f"no table {table!r} in warehouse {self.path}")
            self._columns[table] = cols
        return self._columns[table]

    # -- writing ---------------------------------------------------------------------------
    def insert_rows(
        self,
        table: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        on_conflict: Literal["ignore", "update", "error"] = "ignore",
        update_columns: Sequence[str] | None = None,
    ) -> int:
        """Insert a batch by column name and return how many rows are new.

        ``ignore`` keeps the stored row when a key already exists (idempotent loads);
        ``update`` overwrites ``update_columns`` (default: every column given) of the stored row.
        Rows repeating a key inside one batch keep their first occurrence. The batch is one
        transaction of its own, or part of the caller's (:meth:`transaction`, when several tables
        must change together): on a DuckLake its update and anti-join insert then run under the
        catalog's write lock, where on their own two hosts' inserts of one new key both committed.
        """
        if not rows:
            return 0
        known = self.columns(table)
        given = list(rows[0].keys())
        unknown = [c for c in given if c not in known]
        if unknown:
            raise WarehouseError(f"table {table!r} has no column(s) {unknown}; it has {known}")
        for i, row in enumerate(rows):
            if list(row.keys()) != given:
                raise WarehouseError(f"row {i} for table {table!r} has columns {list(row.keys())}, expected {given}")
        try:
            batch = pa.Table.from_pylist([dict(r) for r in rows])
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise WarehouseError(f"cannot write {len(rows)} row(s) to {table!r}: {_unconvertible(rows, given)}: "
                                 f"{exc}") from exc
        batch = batch.append_column("__row", pa.array(range(len(rows)), pa.int64()))  # the batch order
        with self.transaction():
            before = int(self.scalar(f'SELECT count(*) FROM "{table}"'))
            self.con.register("__batch", batch)
            try:
                for sql in self._insert_sql(table, given, on_conflict, list(update_columns or given)):
                    self.con.execute(sql)
            except duckdb.Error as exc:
                raise WarehouseError(f"cannot write {len(rows)} row(s) to {table!r}: {exc}") from exc
            finally:
                with suppress(duckdb.TransactionException):  # an aborted transaction drops it anyway
                    self.con.unregister("__batch")
            return int(self.scalar(f'SELECT count(*) FROM "{table}"')) - before

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> None:
        """Run one write statement (INSERT, UPDATE, DELETE) in the caller's :meth:`transaction`, or in
        one of its own: on a DuckLake that holds the catalog's write lock, which a statement run
        straight on ``con`` does not take."""
        with self.transaction() as con:
            if params is None:
                con.execute(sql)
            else:
                con.execute(sql, params)

    def _insert_sql(self, table: str, given: list[str], on_conflict: str, targets: list[str]) -> list[str]:
        """The statements that insert the registered ``__batch`` (columns ``given``) into ``table``."""
        cols = ", ".join(f'"{c}"' for c in given)
        select = f"SELECT {cols} FROM __batch"
        if on_conflict == "error":
            return [f'INSERT INTO "{table}" ({cols}) {select}']
        if on_conflict == "ignore":
            return [f'INSERT OR IGNORE INTO "{table}" ({cols}) {select}']
        sets = ", ".join(f'"{c}" = excluded."{c}"' for c in targets)
        if table not in self._primary_keys:  # the target DuckDB needs when the table also has UNIQUE constraints
            found = self.con.execute(
                "SELECT constraint_column_names FROM duckdb_constraints() WHERE database_name = current_database() "
                "AND schema_name = 'main' AND table_name = ? AND constraint_type = 'PRIMARY KEY'", [table]).fetchall()
            self._primary_keys[table] = f" ({', '.join(found[0][0])})" if found else ""
        return [f'INSERT INTO "{table}" ({cols}) {select} ON CONFLICT{self._primary_keys[table]} DO UPDATE SET {sets}']


def _unconvertible(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Which column (and first row) of a batch Arrow cannot make one typed column of (a date given as
    text among datetimes), so that the error names the input; found by converting column by column,
    then the shortest failing run of that column's rows (bisection: a batch is converted log2(n) times)."""
    for column in columns:
        values = [row[column] for row in rows]
        if _converts(values):
            continue
        good, bad = 0, len(values)  # values[:good] converts, values[:bad] does not
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if _converts(values[:middle]) else (good, middle)
        return f"column {column!r}, row {bad - 1} ({values[bad - 1]!r})"
    return "the batch"


def _converts(values: list[Any]) -> bool:
    try:
        pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return False
    return True


def warehouse_exists(path: str | Path) -> bool:
    """Whether there is a warehouse to read: the file at ``path``, or on a DuckLake always (the
    catalog is on another machine; attaching it says whether it was created)."""
    from arastance.config import load_settings

    return load_settings().warehouse_backend == "ducklake" or Path(path).is_file()


def hidden_beside(path: Path, suffix: str, reserve: int = 0) -> Path:
    """``.<path's name><suffix>`` beside ``path``: a hidden file about it. Where that name, with
    ``reserve`` bytes more, would pass the file system's limit on a name (a warehouse file name near
    255 bytes; the file itself was written, its copy and notes refused), a digest of ``path``'s name
    stands for it."""
    name = path.name
    if len(os.fsencode(f".{name}{suffix}")) + reserve > NAME_MAX:
        name = hashlib.sha256(os.fsencode(name)).hexdigest()[:32]
    return path.with_name(f".{name}{suffix}")


def create_aside(path: Path) -> list[int]:
    """Build a new warehouse's whole schema in a side file, then link it into place; return the
    migrations applied (none when something is at ``path`` already, or appeared there meanwhile).

    Every writer creates a missing warehouse this way: :func:`open_warehouse`, and ``arastance
    warehouse migrate``, which the errors recommend for creating one (it built the file in place).
    A process killed while creating a warehouse in place can leave a file that no longer opens:
    DuckDB 1.5 cannot replay some schema changes from its write-ahead log (an internal error on
    open; duckdb/duckdb#19712), and the migrations are schema changes. The side file is complete
    and checkpointed (closed) before the link, so ``path`` is either absent or whole. The link
    fails if another process created ``path`` first; its warehouse is kept and this one dropped.
    """
    from warehouse.migrate import apply_migrations

    if path.exists():
        return []
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = hidden_beside(path, f".creating-{os.getpid()}", reserve=len(".wal"))
    side_files = (scratch, scratch.with_name(scratch.name + ".wal"))
    for leftover in side_files:  # a killed process's, of the same pid
        leftover.unlink(missing_ok=True)
    fresh = Warehouse(scratch, publish=False)
    try:
        try:
            applied = apply_migrations(fresh)
        finally:
            fresh.close()
        os.link(scratch, path)
        return applied
    except FileExistsError:
        log.info("warehouse created by another process meanwhile", extra={"warehouse": str(path)})
        return []
    finally:
        for leftover in side_files:
            leftover.unlink(missing_ok=True)


def flow_warehouse(warehouse_path: str | None, settings: Settings) -> Path:
    """The warehouse a flow works on: the configured one, or its ``warehouse_path`` parameter.

    A parameter typed in a deployment's form names a warehouse that must exist: opening a mistyped
    path would create an empty warehouse, and the run would "succeed" on nothing (select no
    headlines, export empty splits, record a model where nobody looks). The configured warehouse is
    created on first use as before; a DuckLake is created by its catalog, not by this path. The
    flow passes the settings it already read, so one run reads them once.
    """
    if not warehouse_path:
        return settings.warehouse
    path = Path(warehouse_path)
    if settings.warehouse_backend == "duckdb" and _not_a_warehouse_file(path):  # refused now, not after training
        raise unusable_path_error(path)
    if (settings.warehouse_backend == "duckdb" and not path.exists()
            and path.resolve() != Path(settings.warehouse).resolve()):
        raise WarehouseError(f"warehouse_path {path} does not exist: a flow works on an existing warehouse; fix the "
                             f"path, or create it with ARASTANCE_WAREHOUSE_PATH={path} arastance warehouse migrate")
    return path


def open_warehouse(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    migrate: bool = True,
    wait_s: float = 30.0,
    publish: bool = True,
) -> Warehouse:
    """Open the warehouse (the configured one by default) and bring its schema up to date.

    A writer publishes the readers' copy when it closes, unless ``publish`` is false. With
    ``warehouse_backend = "ducklake"`` this is the shared DuckLake instead; ``path`` then only
    places this host's stage locks, nothing is published (readers attach the catalog), and a
    writer waits ``warehouse_write_wait_s`` rather than ``wait_s`` for the others.
    """
    from arastance.config import load_settings

    settings = load_settings()
    path = settings.warehouse if path is None else path
    wh: Warehouse
    if settings.warehouse_backend == "ducklake":
        from warehouse.ducklake import DuckLakeWarehouse

        wh = DuckLakeWarehouse.from_settings(settings, path, read_only=read_only)
    else:
        if migrate and not read_only:
            create_aside(Path(path))
        wh = Warehouse(path, read_only=read_only, wait_s=wait_s, publish=publish,
                       memory_limit=settings.warehouse_memory_limit)
    if migrate and not read_only:
        from warehouse.migrate import apply_migrations

        try:
            apply_migrations(wh)
        except BaseException:  # a refused or failed upgrade: let the file go, and publish nothing from it
            wh.publish = False
            wh.close()
            raise
    return wh
