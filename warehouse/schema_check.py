"""Is this warehouse's schema the one its migrations build? And SQL that cannot drop it by accident.

Migrations run once each, so a table dropped by hand (``arastance sql --write "DROP TABLE ..."``)
stays dropped: ``schema_version`` still lists the migration that created it. The check builds
the expected schema by applying every migration to an empty in-memory database, then names each
missing table, view or column of the real one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from warehouse.connection import Warehouse, WarehouseError

_OBJECTS = """
SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE schema_name = 'main'
UNION ALL
SELECT view_name, 'view' FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal
"""
_COLUMNS = "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main'"


def _schema(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], set[tuple[str, str]]]:
    objects = {name: kind for name, kind in con.execute(_OBJECTS).fetchall()}
    columns = {(t, c) for t, c in con.execute(_COLUMNS).fetchall() if objects.get(t) == "table"}
    return objects, columns


def expected_schema() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Objects and table columns that applying every migration to an empty database yields."""
    from warehouse.migrate import available_migrations

    con = duckdb.connect(":memory:")
    try:
        for mig in available_migrations():
            con.execute(mig.sql)
        return _schema(con)
    finally:
        con.close()


@dataclass
class SchemaReport:
    """What the warehouse lacks compared with its migrations (empty lists: it is complete)."""

    missing_objects: list[str] = field(default_factory=list)  # "table claims", "view v_source_stats"
    missing_columns: list[str] = field(default_factory=list)  # "claims.status"
    pending_migrations: list[str] = field(default_factory=list)
    newer_migrations: list[str] = field(default_factory=list)  # applied by a newer version of the product

    @property
    def ok(self) -> bool:
        return not (self.missing_objects or self.missing_columns or self.pending_migrations or self.newer_migrations)

    def lines(self) -> list[str]:
        return ([f"missing {o}" for o in self.missing_objects] + [f"missing column {c}" for c in self.missing_columns]
                + [f"migration {m} not applied (run `arastance warehouse migrate`)" for m in self.pending_migrations]
                + [f"migration {m} applied by a newer version of AraStance Pipeline (upgrade this installation)"
                   for m in self.newer_migrations])


def check_schema(wh: Warehouse) -> SchemaReport:
    """Compare ``wh`` with what its migrations build."""
    from warehouse.migrate import available_migrations, newer_migrations

    applied = {int(v) for (v,) in wh.con.execute("SELECT version FROM schema_version").fetchall()} \
        if "schema_version" in wh.tables() else set()
    objects, columns = _schema(wh.con)
    want_objects, want_columns = expected_schema()
    shipped = available_migrations()
    report = SchemaReport(
        missing_objects=sorted(f"{kind} {name}" for name, kind in want_objects.items() if objects.get(name) != kind),
        missing_columns=sorted(f"{t}.{c}" for t, c in want_columns - columns if t in objects),
        pending_migrations=[f"{m.version:03d}_{m.name}" for m in shipped if m.version not in applied],
        newer_migrations=newer_migrations(wh, applied, shipped),
    )
    return report


def run_guarded(wh: Warehouse, statement: str, *, allow_drop: bool = False) -> list[dict[str, Any]]:
    """Run ad-hoc SQL in one transaction; refuse (roll back) if it removes a schema table or view.

    Works whatever the statement's form (DROP, ALTER ... RENAME, a script of several), because
    it compares the objects before and after rather than parsing the SQL.
    """
    wanted, _ = expected_schema()
    before, _ = _schema(wh.con)
    with wh.transaction():
        rows = wh.query(statement)
        after, _ = _schema(wh.con)
        lost: Sequence[str] = sorted(f"{kind} {name}" for name, kind in before.items()
                                     if name in wanted and after.get(name) != kind)
        if lost and not allow_drop:
            raise WarehouseError(
                f"refused: the statement removes {', '.join(lost)} of the warehouse schema; nothing was changed "
                "(pass --allow-drop to do it anyway, then `arastance warehouse migrate` cannot bring it back)"
            )
    return rows
