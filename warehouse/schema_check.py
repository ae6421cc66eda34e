"""Is this warehouse's schema the one its migrations build? And SQL that cannot drop it by accident.

Migrations run once each, so a table dropped by hand (``arastance sql --write "DROP TABLE ..."``)
stays dropped: ``schema_version`` still lists the migration that created it. The check builds
the expected schema by applying every migration to an empty in-memory database, then names each
missing table, view or column of the real one, and each column type or default, key, NOT NULL or
CHECK constraint and view definition that differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from warehouse.connection import Warehouse, WarehouseError

_OBJECTS = """
SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE schema_name = 'main'
UNION ALL
SELECT view_name, 'view' FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal
"""
_COLUMNS = "SELECT table_name, column_name, data_type, column_default FROM duckdb_columns() WHERE schema_name = 'main'"
_CONSTRAINTS = ("SELECT table_name, constraint_type, constraint_column_names, constraint_text FROM duckdb_constraints() "
                "WHERE schema_name = 'main'")
_VIEWS = "SELECT view_name, sql FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal"


@dataclass(frozen=True)
class _Schema:
    """What of a database's schema the check compares. ``columns`` maps a table column to its type
    and default, ``constraints`` holds each table's keys, NOT NULL and CHECK constraints, ``views``
    each view's definition with its whitespace collapsed. Comparing names only passed a warehouse
    whose ``sources`` had lost its primary key (``CREATE OR REPLACE TABLE sources AS SELECT ...``;
    every idempotent insert into it then failed), a date column retyped VARCHAR, and a view redefined
    as ``SELECT 1``."""

    objects: dict[str, str]  # name -> "table" | "view"
    columns: dict[tuple[str, str], str]  # (table, column) -> "DATE" or "VARCHAR DEFAULT 'x'"
    constraints: set[tuple[str, str]]  # (table, "PRIMARY KEY(source_id)" | "NOT NULL claim_id" | "CHECK(...)")
    views: dict[str, str]


def _schema(con: duckdb.DuckDBPyConnection, *, detailed: bool = True) -> _Schema:
    """The schema of ``con``'s database; names only unless ``detailed``: a DuckLake stores no keys nor
    CHECK constraints, and restates types and views in its own words (:mod:`warehouse.lake_schema`)."""
    objects = {name: kind for name, kind in con.execute(_OBJECTS).fetchall()}
    columns = {(t, c): _column_form(dtype, default) if detailed else ""
               for t, c, dtype, default in con.execute(_COLUMNS).fetchall() if objects.get(t) == "table"}
    if not detailed:
        return _Schema(objects, columns, set(), {})
    constraints = {(table, text if kind != "NOT NULL" else f"NOT NULL {', '.join(names)}")
                   for table, kind, names, text in con.execute(_CONSTRAINTS).fetchall()}
    views = {name: " ".join(sql.split()) for name, sql in con.execute(_VIEWS).fetchall()}
    return _Schema(objects, columns, constraints, views)


def _column_form(dtype: str, default: str | None) -> str:
    return dtype if default is None else f"{dtype} DEFAULT {default}"


def expected_schema(*, detailed: bool = True) -> _Schema:
    """The schema that applying every migration to an empty database yields."""
    from warehouse.migrate import available_migrations

    con = duckdb.connect(":memory:")
    try:
        for mig in available_migrations():
            con.execute(mig.sql)
        return _schema(con, detailed=detailed)
    finally:
        con.close()


@dataclass
class SchemaReport:
    """What the warehouse lacks compared with its migrations (empty lists: it is complete)."""

    missing_objects: list[str] = field(default_factory=list)  # "table claims", "view v_source_stats"
    missing_columns: list[str] = field(default_factory=list)  # "claims.status"
    changed: list[str] = field(default_factory=list)  # "table sources lacks PRIMARY KEY(source_id)"
    pending_migrations: list[str] = field(default_factory=list)
    newer_migrations: list[str] = field(default_factory=list)  # applied by a newer version of the product

    @property
    def ok(self) -> bool:
        return not (self.missing_objects or self.missing_columns or self.changed or self.pending_migrations
                    or self.newer_migrations)

    def lines(self) -> list[str]:
        return ([f"missing {o}" for o in self.missing_objects] + [f"missing column {c}" for c in self.missing_columns]
                + self.changed
                + [f"migration {m} not applied (run `arastance warehouse migrate`)" for m in self.pending_migrations]
                + [f"migration {m} applied by a newer version of AraStance Pipeline (upgrade this installation)"
                   for m in self.newer_migrations])


def _compare(have: _Schema, want: _Schema) -> SchemaReport:
    """What ``have`` lacks of ``want``: objects, columns, and what a present table or view has otherwise
    than its migrations make it (a column's type or default, a key or constraint, a view's definition)."""
    changed = [f"column {t}.{c} is {have.columns[t, c]}, its migrations make it {made}"
               for (t, c), made in sorted(want.columns.items()) if have.columns.get((t, c), made) != made]
    changed += [f"table {table} lacks {constraint}" for table, constraint in sorted(want.constraints - have.constraints)
                if have.objects.get(table) == "table"]
    changed += [f"view {name} is not defined as its migrations define it" for name, sql in sorted(want.views.items())
                if have.objects.get(name) == "view" and have.views.get(name) != sql]
    return SchemaReport(
        missing_objects=sorted(f"{kind} {name}" for name, kind in want.objects.items() if have.objects.get(name) != kind),
        missing_columns=sorted(f"{t}.{c}" for t, c in want.columns.keys() - have.columns.keys() if t in have.objects),
        changed=changed,
    )


def _detailed(wh: Warehouse) -> bool:
    return wh.backend == "duckdb"


def check_schema(wh: Warehouse) -> SchemaReport:
    """Compare ``wh`` with what its migrations build."""
    from warehouse.migrate import available_migrations, newer_migrations

    applied = {int(v) for (v,) in wh.con.execute("SELECT version FROM schema_version").fetchall()} \
        if "schema_version" in wh.tables() else set()
    report = _compare(_schema(wh.con, detailed=_detailed(wh)), expected_schema(detailed=_detailed(wh)))
    shipped = available_migrations()
    report.pending_migrations = [f"{m.version:03d}_{m.name}" for m in shipped if m.version not in applied]
    report.newer_migrations = newer_migrations(wh, applied, shipped)
    return report


def _refuse_transaction_control(con: duckdb.DuckDBPyConnection, statement: str) -> None:
    """Refuse a script that begins, commits or rolls back a transaction itself: its COMMIT ended the
    guard's transaction, so what came before it was stored however it changed the schema (a dropped
    table past the guard) and the guard's own COMMIT then failed (a stored change reported as failed).
    DuckDB's own parser splits the script and says which statements are transaction control."""
    for parsed in con.extract_statements(statement):
        if parsed.type == duckdb.StatementType.TRANSACTION:
            raise WarehouseError(
                f"refused: {parsed.query.strip().rstrip(';').rstrip()!r} controls the transaction itself; nothing was run. `sql --write` "
                "runs the whole script as one transaction (all of it is stored, or none): leave out BEGIN, COMMIT, "
                "ROLLBACK and the like")


def run_guarded(wh: Warehouse, statement: str, *, allow_drop: bool = False) -> pa.Table | None:
    """Run ad-hoc SQL in one transaction; refuse (roll back) if it leaves the schema unlike its migrations
    in a new way (a schema table, view or column removed, a key lost, a type or a view changed). Return
    the result of the script's last statement (None: it has none).

    Works whatever the statement's form (DROP, ALTER ... RENAME, CREATE OR REPLACE, a script of
    several), because it compares the schema before and after rather than parsing the SQL. Only the
    statements that control the transaction are picked out, by DuckDB's parser, and refused.
    """
    _refuse_transaction_control(wh.con, statement)
    wanted = expected_schema(detailed=_detailed(wh))
    before = set(_compare(_schema(wh.con, detailed=_detailed(wh)), wanted).lines())
    with wh.transaction():
        cursor = wh.con.execute(statement)
        result = None if cursor.description is None else cursor.to_arrow_table()
        lost = [d for d in _compare(_schema(wh.con, detailed=_detailed(wh)), wanted).lines() if d not in before]
        if lost and not allow_drop:
            raise WarehouseError(
                f"refused: the statement would leave the warehouse schema unlike its migrations ({'; '.join(lost)}); "
                "nothing was changed (pass --allow-drop to do it anyway, then `arastance warehouse migrate` cannot "
                "bring it back)"
            )
    return result
