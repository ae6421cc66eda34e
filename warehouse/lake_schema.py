"""The DuckLake form of the migrations: the same schema without what DuckLake cannot store.

DuckLake tables have no PRIMARY KEY, UNIQUE or CHECK constraints, no indexes and no default
values of list type. Rather than keep a second, hand-written schema, each migration is applied to
an in-memory DuckDB database (the "shadow", which has every constraint) and the catalog change it
made there is restated without them: new tables and columns (types, NOT NULL, defaults), views,
comments, and the drops of tables and views (a table made anew is dropped and created). Data
statements of a migration (backfills, clearing derived rows) are not restated: a lake is created
empty at the newest schema, so they have nothing to change there; a lake that already holds rows
and meets a migration that rewrites them must be reloaded (README, "Past one machine"). A
migration whose backfill a reload cannot redo (it tells stored rows apart, as 079 tells a dataset
file's gold labels) puts it after :data:`LAKE_BACKFILL`: the statements below that line run on a
lake too, as written (plain DML). The keys the shadow enforces are kept too: the
DuckLake writer uses them for its idempotent inserts (:mod:`warehouse.ducklake`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import duckdb

from warehouse.connection import WarehouseError

_TABLES = """
SELECT t.table_name, t.comment, t.table_oid FROM duckdb_tables() t
WHERE t.database_name = current_database() AND t.schema_name = 'main' ORDER BY t.table_oid
"""
_COLUMNS = """
SELECT table_name, column_name, data_type, is_nullable, column_default FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name, column_index
"""
_VIEWS = """
SELECT view_name, sql, comment FROM duckdb_views()
WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal ORDER BY view_oid
"""
_KEYS = """
SELECT table_name, constraint_column_names FROM duckdb_constraints()
WHERE database_name = current_database() AND schema_name = 'main' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
ORDER BY table_name, constraint_type <> 'PRIMARY KEY', constraint_index
"""


@dataclass(frozen=True)
class _Catalog:
    tables: dict[str, str | None]  # name -> comment, in creation order
    oids: dict[str, int]  # name -> table oid (a new one when a migration makes the table anew)
    columns: dict[str, list[tuple[str, str, bool, str | None]]]  # table -> (name, type, nullable, default)
    views: dict[str, tuple[str, str | None]]  # name -> (CREATE VIEW statement, comment), in creation order


def _catalog(con: duckdb.DuckDBPyConnection) -> _Catalog:
    tables = con.execute(_TABLES).fetchall()
    columns: dict[str, list[tuple[str, str, bool, str | None]]] = {}
    for table, name, dtype, nullable, default in con.execute(_COLUMNS).fetchall():
        columns.setdefault(table, []).append((name, dtype, bool(nullable), default))
    return _Catalog(
        tables={name: comment for name, comment, _ in tables},
        oids={name: oid for name, _, oid in tables},
        columns=columns,
        views={name: (sql, comment) for name, sql, comment in con.execute(_VIEWS).fetchall()},
    )


#: The line of a migration after which its data statements also run on a lake.
LAKE_BACKFILL = "-- backfill, also on a lake:"


def _lake_backfill(sql: str) -> list[str]:
    """The statements after a migration's :data:`LAKE_BACKFILL` line (none without it), split as DuckDB
    splits them (a ``;`` inside a string literal is no end)."""
    if LAKE_BACKFILL not in sql:
        return []
    return [statement.query.strip() for statement in duckdb.extract_statements(sql.split(LAKE_BACKFILL, 1)[1])]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _column(name: str, dtype: str, nullable: bool, default: str | None) -> str:
    # A list default ([]) is the one default DuckLake refuses; such a column starts out NULL.
    keep_default = default is not None and default != "NULL" and not dtype.endswith("[]")
    return f'"{name}" {dtype}' + ("" if nullable else " NOT NULL") + (f" DEFAULT {default}" if keep_default else "")


def _restated(label: str, before: _Catalog, after: _Catalog) -> list[str]:
    """Constraint-free statements that take a DuckLake from ``before`` to ``after``."""
    # A table made anew (dropped and created again, new oid) is restated as a drop and a create.
    remade = {t for t in after.tables if t in before.tables and before.oids[t] != after.oids[t]}
    statements = [f'DROP VIEW "{v}"' for v in before.views if v not in after.views]
    statements += [f'DROP TABLE "{t}"' for t in before.tables if t not in after.tables or t in remade]
    for table, comment in after.tables.items():
        cols = after.columns[table]
        if table not in before.tables or table in remade:
            statements.append(f'CREATE TABLE IF NOT EXISTS "{table}" ({", ".join(_column(*c) for c in cols)})')
        else:
            old = {c[0]: c for c in before.columns[table]}
            if any(c[0] in old and c != old[c[0]] for c in cols) or len({c[0] for c in cols} & set(old)) < len(old):
                raise WarehouseError(f"{label} changes or drops a column of {table!r}; the DuckLake schema only adds columns")
            statements += [f'ALTER TABLE "{table}" ADD COLUMN {_column(*c)}' for c in cols if c[0] not in old]
        # a table or view made anew has lost its comment, even one the migration set to the same text
        if comment != before.tables.get(table) or (table in remade and comment):
            statements.append(f'COMMENT ON TABLE "{table}" IS {_quote(comment or "")}')
    for view, (sql, comment) in after.views.items():
        made = before.views.get(view, (None, None))[0] != sql
        if made:
            statements.append("CREATE OR REPLACE VIEW" + sql.strip().rstrip(";")[len("CREATE VIEW"):])
        if comment != before.views.get(view, (None, None))[1] or (made and comment):
            statements.append(f'COMMENT ON VIEW "{view}" IS {_quote(comment or "")}')
    return statements


@dataclass(frozen=True)
class LakeSchema:
    """Each migration's DuckLake statements, the version table's, and every table's unique keys."""

    version_table: list[str]
    migrations: dict[int, list[str]]
    keys: dict[str, list[list[str]]]  # table -> its PRIMARY KEY columns first, then each UNIQUE's


@cache
def lake_schema() -> LakeSchema:
    """Replay the version table's DDL and every migration on an in-memory shadow and restate each step."""
    from warehouse.migrate import VERSION_TABLE, available_migrations

    con = duckdb.connect(":memory:")
    try:
        steps: dict[int, list[str]] = {}
        before = _catalog(con)
        con.execute(VERSION_TABLE)
        after = _catalog(con)
        version_table = _restated("the schema_version table", before, after)
        for mig in available_migrations():
            before = after
            con.execute(mig.sql)
            after = _catalog(con)
            steps[mig.version] = _restated(f"migration {mig.version:03d}_{mig.name}.sql", before, after) + _lake_backfill(mig.sql)
        keys: dict[str, list[list[str]]] = {}
        for table, names in con.execute(_KEYS).fetchall():
            keys.setdefault(table, []).append(list(names))
        return LakeSchema(version_table, steps, keys)
    finally:
        con.close()
