"""The warehouse on DuckLake: a PostgreSQL catalog and Parquet files on shared storage.

For writers on several hosts (Prefect workers), where one DuckDB file cannot serve: every
process attaches the same catalog and data path. DuckLake itself only refuses *conflicting*
commits (two deletes from one data file, a create of a taken name); two transactions that each
insert the rows their anti-join found missing both commit, and a key would be stored twice.
So every write transaction here first takes one PostgreSQL advisory lock of the catalog
database, held on a connection of its own until the DuckLake commit has finished: writers of
every host run one after the other, and each one's reads see all that the previous wrote.
Readers take no lock: they read the snapshot that was current when their query began, while
writers go on. A write outside a transaction takes it too: the write helpers
(:meth:`Warehouse.insert_rows`, :meth:`Warehouse.execute`) run in one of their own when none is open.

DuckLake has no PRIMARY KEY or UNIQUE constraints, so the idempotent inserts the loaders rely
on (``INSERT OR IGNORE``, ``ON CONFLICT DO UPDATE``) are restated as anti-joins and updates on
the keys the migrations declare (:mod:`warehouse.lake_schema`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

import duckdb

from arastance.base.bounded_wait import wait_for
from arastance.base.secrets import register_secrets
from arastance.logging import get_logger
from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, limit_memory, one_line
from warehouse.extensions import load_extension

if TYPE_CHECKING:
    from arastance.config import Settings

log = get_logger(__name__)

#: The advisory lock every writer of the catalog's database takes ("AraS" in ASCII).
WRITE_LOCK_KEY = 0x41726153
_TRY_LOCK = f"SELECT * FROM postgres_query('lake_lock', 'SELECT pg_try_advisory_xact_lock({WRITE_LOCK_KEY})')"
_LOCK_HOLDER = (
    "SELECT * FROM postgres_query('lake_lock', 'SELECT a.pid, coalesce(a.client_addr::text, ''local'') AS addr, "
    "a.xact_start::text AS since FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
    f"WHERE l.locktype = ''advisory'' AND l.objid = {WRITE_LOCK_KEY} AND l.granted')"
)


#: One ``key = value`` pair of a libpq connection string, with the blanks around it: the value in
#: single quotes, or bare up to a blank (a quote inside it is literal); both take backslash escapes.
_PAIR = re.compile(r"\s*(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:(?:[^\s'\\]|\\.)(?:[^\s\\]|\\.)*)?)\s*")
_URI = re.compile(r"postgres(?:ql)?://")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def split_password(dsn: str) -> tuple[str, str | None]:
    """The libpq connection string ``dsn`` without its password, and the password (None without one).

    The extensions quote the connection string they were given in their errors ("Unable to connect
    to Postgres at ..."), in those of every query after the attach too once PostgreSQL restarts or
    fails over; such errors reach ``arastance sql``'s output and Prefect's state messages, which no
    log redaction sees. So the password goes to DuckDB in a secret, and never is in that string.
    A URI with a password becomes key/value pairs: DuckDB adds the secret's password to the string
    as a pair, which a URI cannot take. A string that is neither is left to libpq to refuse.
    """
    if _URI.match(dsn):
        return _uri_pairs(dsn)
    kept: list[str] = []
    password: str | None = None
    pos = 0
    while pos < len(dsn):
        pair = _PAIR.match(dsn, pos)
        if pair is None:
            return dsn, None
        if pair[1] == "password":
            value = pair[2][1:-1] if pair[2].startswith("'") else pair[2]
            password = re.sub(r"\\(.)", r"\1", value)
        else:
            kept.append(pair[0])
        pos = pair.end()
    return "".join(kept).strip(), password


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """A URI's ``key=value&…`` as libpq reads it: percent-decoded, a ``+`` kept as it is (``parse_qsl``,
    HTML forms' reading, made a password's ``+`` a space, and the login failed)."""
    return [(unquote(k), unquote(v)) for k, _, v in (item.partition("=") for item in query.split("&") if item)]


def _uri_pairs(uri: str) -> tuple[str, str | None]:
    """:func:`split_password` of a ``postgresql://user:password@host:port,.../dbname?key=value`` URI."""
    parts = urlsplit(uri)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    user, has_password, password = userinfo.partition(":")
    params = _query_pairs(parts.query)
    query_password = [v for k, v in params if k == "password"]
    if not has_password and not query_password:
        return uri, None
    pairs: dict[str, str] = {"user": unquote(user)} if user else {}
    addresses = [_host_and_port(h) for h in hosts.split(",")] if hosts else []
    if any(host for host, _ in addresses):
        pairs["host"] = ",".join(unquote(host) for host, _ in addresses)
    if any(port for _, port in addresses):
        pairs["port"] = ",".join(port for _, port in addresses)
    if parts.path.strip("/"):
        pairs["dbname"] = unquote(parts.path[1:])
    pairs.update((k, v) for k, v in params if k != "password")
    quoted = " ".join(f"{k}='" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" for k, v in pairs.items())
    return quoted, query_password[-1] if query_password else unquote(password)


def _host_and_port(address: str) -> tuple[str, str]:
    """The host and port of one ``host[:port]`` of a URI (an IPv6 host is in brackets)."""
    if address.startswith("["):
        host, _, rest = address[1:].partition("]")
        return host, rest.removeprefix(":")
    host, _, port = address.partition(":")
    return host, port


def _holder(lock: duckdb.DuckDBPyConnection) -> str:
    """Who holds the catalog's write lock, for messages: its PostgreSQL backend, address and start."""
    holder = lock.execute(_LOCK_HOLDER).fetchall()
    return (f"PostgreSQL backend {holder[0][0]} from {holder[0][1]} since {holder[0][2]}" if holder
            else "a writer that has just finished")


def _attach_hint(exc: duckdb.Error, read_only: bool) -> str:
    """What to do about a refused ATTACH, in the project's settings: DuckLake's own second line for a
    data path other than the catalog's named an option (OVERRIDE_DATA_PATH) the project has no setting
    for, and the same path spelled another way (through a link, relative) is refused alike."""
    if "does not match existing data path" in str(exc):
        return ("; set warehouse_data_path (ARASTANCE_WAREHOUSE_DATA_PATH) to the catalog's data path, spelled as "
                "the lake was created with it")
    return "; a reader needs a catalog that `arastance warehouse migrate` created" if read_only else ""


class DuckLakeWarehouse(Warehouse):
    """The :class:`Warehouse` interface over a DuckLake shared by the processes of several hosts.

    ``path`` is a place on this host only (its stage locks, as for a DuckDB file). Nothing is
    published on close: readers attach the catalog read-only and never wait for a writer.
    """

    backend = "ducklake"

    def __init__(
        self, catalog_url: str, data_path: str, *, path: str | Path, read_only: bool = False, wait_s: float = 30.0,
        memory_limit: str | None = None,
    ) -> None:
        if not catalog_url.startswith("postgres:"):
            raise WarehouseError("warehouse_catalog_url must start with 'postgres:' (a PostgreSQL catalog)")
        self.path = Path(path)
        self.read_only = read_only
        self.publish = False
        self.data_path = data_path
        self.wait_s = wait_s
        self._reset_state()
        self._lock_depth = 0
        dsn, password = split_password(catalog_url[len("postgres:"):])
        register_secrets([catalog_url[len("postgres:"):], dsn, password or ""])  # as the extensions quote them
        self.con = duckdb.connect()  # in memory: the lake is attached, its data lives elsewhere
        if memory_limit is not None:
            limit_memory(self.con, memory_limit)
        try:
            for name in ("ducklake", "postgres_scanner"):
                load_extension(self.con, name)
            if password is not None:  # every PostgreSQL connection of this DuckDB takes it, the catalog's and the lock's
                self.con.execute(f"CREATE SECRET (TYPE postgres, PASSWORD {_literal(password)})")
            options = f"DATA_PATH {_literal(data_path)}" + (", READ_ONLY" if read_only else "")
            attach = f"ATTACH {_literal('ducklake:postgres:' + dsn)} AS lake ({options})"
            if read_only:
                self.con.execute(attach)
            else:
                if "://" not in data_path:
                    Path(data_path).mkdir(parents=True, exist_ok=True)
                self.con.execute(f"ATTACH {_literal(dsn)} AS lake_lock (TYPE postgres)")
                with self.exclusive():  # the first writer creates the catalog's tables, once
                    self.con.execute(attach)
            self.con.execute("USE lake")
        except duckdb.Error as exc:
            self.con.close()
            raise WarehouseError(  # the extensions quote the connection string, registered above
                f"cannot attach the DuckLake warehouse (catalog warehouse_catalog_url, data {data_path}): "
                f"{one_line(exc).rstrip('.')}{_attach_hint(exc, read_only)}"
            ) from exc

    @classmethod
    def from_settings(cls, settings: Settings, path: str | Path, *, read_only: bool = False) -> DuckLakeWarehouse:
        """The DuckLake that ``warehouse_catalog_url`` and ``warehouse_data_path`` name; a writer waits
        ``warehouse_write_wait_s`` for the others (writers queue here, where a DuckDB file refuses them)."""
        assert settings.warehouse_catalog_url is not None and settings.warehouse_data_path is not None  # validated
        return cls(settings.warehouse_catalog_url.get_secret_value(), settings.warehouse_data_path,
                   path=path, read_only=read_only, wait_s=settings.warehouse_write_wait_s,
                   memory_limit=settings.warehouse_memory_limit)

    @property
    def location(self) -> str:
        return f"DuckLake (data {self.data_path})"

    def close(self) -> None:
        """Close the connection; every commit is in the catalog already, so nothing is published."""
        if not self._closed:
            self._closed = True
            self.con.close()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the catalog's write lock (waiting up to ``wait_s`` for another writer); re-entrant.

        The lock is a transaction-scoped advisory lock on a connection of its own, released by
        ending that transaction after the block: after the block's DuckLake commit, never before.
        """
        if self.read_only:
            raise WarehouseError(f"the DuckLake warehouse (data {self.data_path}) was opened read-only")
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        lock = self.con.cursor()
        lock.execute("BEGIN TRANSACTION")
        try:
            self._take_lock(lock)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
        finally:
            with suppress(duckdb.Error):  # a lost catalog: PostgreSQL let go of the lock with the session
                lock.execute("ROLLBACK")
            lock.close()

    def _take_lock(self, lock: duckdb.DuckDBPyConnection) -> None:
        """Take the write lock in ``lock``'s transaction, waiting up to ``wait_s`` for its holder; the
        wait is logged once as it starts, naming the holder, so that a writer that seems stuck says why."""
        wait_for(
            lambda: True if lock.execute(_TRY_LOCK).fetchone()[0] else None, wait_s=self.wait_s, every_s=0.05,
            waiting=lambda: log.info("waiting for another writer of the DuckLake warehouse to commit",
                                     extra={"warehouse": self.location, "holder": _holder(lock), "wait_s": self.wait_s}),
            gave_up=lambda: WarehouseBusyError(
                f"the DuckLake warehouse (data {self.data_path}) is being written by another process "
                f"({_holder(lock)}); waited {self.wait_s:.0f}s for its write lock"),
        )

    @contextmanager
    def checkpoints_every(self, wal_size: str) -> Iterator[None]:
        """Nothing to size: a DuckLake keeps no local write-ahead log (commits go to the catalog and
        Parquet files), and its CHECKPOINT is lake maintenance, not a log flush."""
        yield

    @contextmanager
    def _outermost(self) -> Iterator[duckdb.DuckDBPyConnection]:
        # The lock is taken before BEGIN, so the transaction's snapshot holds every earlier commit.
        with self.exclusive(), super()._outermost() as con:
            yield con

    def _insert_sql(self, table: str, given: list[str], on_conflict: str, targets: list[str]) -> list[str]:
        """``INSERT OR IGNORE`` / ``ON CONFLICT`` restated on the table's declared keys.

        Rows repeating a key inside the batch keep their first occurrence; ``error`` fails on a
        key that is stored already or repeated, as the constraint would.
        """
        from warehouse.lake_schema import lake_schema

        keys = [k for k in lake_schema().keys.get(table, []) if set(k) <= set(given)]
        cols = ", ".join(f'"{c}"' for c in given)
        if not keys:
            return [f'INSERT INTO "{table}" ({cols}) SELECT {cols} FROM __batch ORDER BY __row']
        first = ", ".join(f'"{c}"' for c in keys[0])
        stored = " OR ".join(
            "EXISTS (SELECT 1 FROM \"{t}\" s WHERE {m})".format(t=table, m=" AND ".join(f's."{c}" = b."{c}"' for c in key))
            for key in keys
        )
        batch = f"(SELECT * FROM __batch QUALIFY row_number() OVER (PARTITION BY {first} ORDER BY __row) = 1) b"
        insert = f'INSERT INTO "{table}" ({cols}) SELECT {cols} FROM {batch} WHERE NOT ({stored}) ORDER BY __row'
        if on_conflict == "error":
            message = _literal(f"duplicate key in table {table!r}: a row with the same {keys[0]} exists")
            repeated = " AND ".join(f'd."{c}" = b."{c}"' for c in keys[0])
            check = f"SELECT error({message}) FROM __batch b WHERE {stored} OR (SELECT count(*) FROM __batch d WHERE {repeated}) > 1"
            return [check, insert]
        if on_conflict == "ignore":
            return [insert]
        sets = ", ".join(f'"{c}" = b."{c}"' for c in targets)
        match = " AND ".join(f'"{table}"."{c}" = b."{c}"' for c in keys[0])
        return [f'UPDATE "{table}" SET {sets} FROM {batch} WHERE {match}', insert]
