"""Numbered SQL migrations, applied in order, once each, never dropping data."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import resources

import duckdb

from arastance.logging import get_logger
from warehouse.connection import Warehouse, WarehouseError, one_line

log = get_logger(__name__)

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()[:16]


def available_migrations() -> list[Migration]:
    """The migration files shipped in ``warehouse/migrations``, by version."""
    found: dict[int, Migration] = {}
    for entry in resources.files("warehouse.migrations").iterdir():
        m = _NAME.match(entry.name)
        if not m:
            continue
        version = int(m.group(1))
        if version in found:
            raise WarehouseError(f"two migrations share version {version:03d}: {found[version].name}, {m.group(2)}")
        found[version] = Migration(version, m.group(2), entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


#: Checksums a migration had before it was rewritten to the same schema (a form DuckDB could not apply
#: to every warehouse): a warehouse that applied the earlier text is as current as one that applies this.
REWRITTEN: dict[int, frozenset[str]] = {30: frozenset({"2fe3f4d01bd1634d"})}

VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, checksum VARCHAR NOT NULL,"
    " applied_at TIMESTAMP NOT NULL)"
)


def _statements(wh: Warehouse, version: int | None, sql: str) -> list[str]:
    """What creates ``sql``'s schema on this warehouse: the text itself on DuckDB, its constraint-free
    restatement on a DuckLake (``version`` None: the version table)."""
    if wh.backend != "ducklake":
        return [sql]
    from warehouse.lake_schema import lake_schema

    schema = lake_schema()
    return schema.version_table if version is None else schema.migrations[version]


def refuse_foreign_database(wh: Warehouse, what: str | None = None) -> None:
    """A DuckDB file with tables but no ``schema_version`` holds someone else's data (a path set to
    the wrong file): migrating it would add this project's 45 tables to it, so it is refused
    (``what`` names it in the error; default its location)."""
    if wh.backend != "duckdb":
        return
    tables = [name for (name,) in wh.con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
        "ORDER BY table_name").fetchall()]
    if tables and "schema_version" not in tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        wh.publish = False  # nor is a copy of it handed to this project's readers when it closes
        raise WarehouseError(f"{what or wh.location} is a DuckDB database of other data (tables {shown}), not an "
                             "AraStance warehouse; left unchanged. Point the warehouse setting (or ARASTANCE_DATA_DIR) "
                             "elsewhere")


def _ensure_version_table(wh: Warehouse) -> None:
    refuse_foreign_database(wh)
    for statement in _statements(wh, None, VERSION_TABLE):
        wh.con.execute(statement)


def applied_versions(wh: Warehouse) -> dict[int, str]:
    """Version -> checksum of every migration already applied to this warehouse."""
    _ensure_version_table(wh)
    return {int(v): c for v, c in wh.con.execute("SELECT version, checksum FROM schema_version").fetchall()}


def newer_migrations(wh: Warehouse, applied: set[int], shipped: Sequence[Migration]) -> list[str]:
    """The applied migrations this installation does not ship (``075_name``): a newer version of
    the product wrote to this warehouse."""
    unknown = sorted(applied - {mig.version for mig in shipped})
    if not unknown:
        return []
    names = dict(wh.con.execute("SELECT version, name FROM schema_version").fetchall())
    return [f"{v:03d}_{names.get(v, '?')}" for v in unknown]


def _refuse_newer(wh: Warehouse, applied: set[int], shipped: Sequence[Migration]) -> None:
    """A warehouse that a newer version migrated is refused before anything is written: this code
    would write rows without the newer columns' values and rebuild tables in their older shape (an
    older version re-evaluating a model deleted the newer confidence intervals)."""
    newer = newer_migrations(wh, applied, shipped)
    if newer:
        wh.publish = False
        raise WarehouseError(
            f"{wh.location} was migrated by a newer version of AraStance Pipeline (migrations {', '.join(newer)}; "
            f"this installation knows up to {shipped[-1].version:03d}); left unchanged: upgrade this "
            "installation before writing to it (reading it with `arastance sql` works)")


class SchemaBehindError(WarehouseError):
    """A migrated warehouse that lacks migrations this installation ships: right after an upgrade."""


def require_current_schema(wh: Warehouse, what: str | None = None) -> None:
    """Refuse a warehouse (a readers' copy, :func:`warehouse.publish.open_report`; ``what`` names it)
    that lacks migrations this installation ships, or holds no AraStance schema at all."""
    what = what or wh.location
    try:
        applied = {int(v) for (v,) in wh.con.execute("SELECT version FROM schema_version").fetchall()}
    except duckdb.CatalogException:  # a copy of other data never gets here: open_published refuses it
        applied = set()  # an empty database: never migrated
    pending = [f"{m.version:03d}_{m.name}" for m in available_migrations() if m.version not in applied]
    if pending:
        lacks = f"lacks migrations this installation ships ({', '.join(pending)})" if applied else "was never migrated"
        error = SchemaBehindError if applied else WarehouseError
        raise error(f"{what} {lacks}; run `arastance warehouse migrate` (or any command that writes to the "
                    "warehouse) as a user who can write to it, then this again")


def apply_migrations(wh: Warehouse, up_to: int | None = None) -> list[int]:
    """Apply the pending migrations (each in its own transaction); return the versions applied.

    A migration whose file changed after it was applied is an error: its effect on existing
    warehouses would differ from a fresh one. Changes go into a new numbered file. On a DuckLake
    the whole upgrade holds the catalog's write lock, so that hosts starting together apply each
    migration once.
    """
    with wh.exclusive():
        return _apply(wh, up_to)


def _apply(wh: Warehouse, up_to: int | None) -> list[int]:
    applied = applied_versions(wh)
    shipped = available_migrations()
    _refuse_newer(wh, set(applied), shipped)
    done: list[int] = []
    for mig in shipped:
        if up_to is not None and mig.version > up_to:
            break
        if mig.version in applied:
            if applied[mig.version] != mig.checksum and applied[mig.version] not in REWRITTEN.get(mig.version, ()):
                raise WarehouseError(
                    f"migration {mig.version:03d}_{mig.name}.sql changed after it was applied to "
                    f"{wh.location}; put schema changes in a new numbered migration"
                )
            continue
        try:
            with wh.transaction() as con:
                for statement in _statements(wh, mig.version, mig.sql):
                    con.execute(statement)
                con.execute(
                    "INSERT INTO schema_version VALUES (?, ?, ?, ?)",
                    [mig.version, mig.name, mig.checksum, datetime.now(timezone.utc).replace(tzinfo=None)],
                )
        except duckdb.Error as exc:  # a DuckDB internal error was a 98-line traceback from every command
            raise WarehouseError(f"migration {mig.version:03d}_{mig.name}.sql failed on {wh.location} and was not "
                                 f"applied ({one_line(exc)}); the migrations before it are kept") from exc
        # Each migration goes straight into the database file, not only the write-ahead log:
        # DuckDB 1.5 cannot replay an ALTER TABLE of a table whose columns have function defaults
        # (now()) from the WAL (an internal error), so a process killed before its next
        # checkpoint would leave a warehouse that no longer opens. (A DuckLake commit is final, and
        # its CHECKPOINT is maintenance that rewrites files: seconds for nothing here.)
        if wh.backend == "duckdb":
            wh.con.execute("CHECKPOINT")
        log.info("applied migration", extra={"version": mig.version, "migration": mig.name, "warehouse": wh.location})
        done.append(mig.version)
    return done
