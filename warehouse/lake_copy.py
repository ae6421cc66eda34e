"""Moving a DuckDB warehouse file into an empty DuckLake (``arastance warehouse copy-to-lake``).

A team that outgrows one machine moves its whole warehouse: annotations, gold labels, splits,
selection runs, queries and search hits, model runs are in no staging run, so reloading the
staging runs into a new lake would lose them. The file is attached read-only to the lake's
connection and every table the migrations define is copied by column name, in runs of rows of
about :data:`CHUNK_BYTES`, one ``INSERT … SELECT`` each: DuckDB streams the rows from the file
into the lake's Parquet files, and nothing is held in Python. All tables go in one lake
transaction under the catalog's write lock, so a failure or a kill part-way leaves the lake as
empty as it was.

The lake gets no ``schema_version`` rows from the file: it records the migrations applied to
itself. Nothing else needs translating: the migrations declare no sequences (ids are computed
in Python, :mod:`arastance.base.ids`), and a default the lake left out (a list default,
:mod:`warehouse.lake_schema`) only fills a row inserted without that column, never a copied one.
The idempotent inserts of later loads find the copied rows by the migrations' keys, as any other.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.connection import Warehouse, WarehouseError, one_line
from warehouse.migrate import apply_migrations, refuse_foreign_database
from warehouse.schema_check import check_schema, expected_schema
from warehouse.sql import load_sql

#: The name the source file is attached under on the lake's connection, for the copy only.
SOURCE = "copy_source"
#: Bytes of a table's rows per INSERT, and the granularity of the runs in row ids. The lake's
#: Parquet writer holds a statement's rows in memory until it writes them out (a row group, up to
#: 122,880 rows), so a table copied in one statement cost its whole size in memory: 24,000 pages'
#: bodies (323 MiB) took the copy to a 1.4 GiB peak, and under a warehouse_memory_limit of 256MB
#: 8,000 pages failed it (Out of Memory). A run of the file's row ids is read without scanning
#: the rest of the table; each statement writes Parquet files of its own.
CHUNK_BYTES = 32 * 2**20
BLOCK_ROWS = 256
_COLUMN_TYPES = ("SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' "
                 "AND table_name = ? ORDER BY column_index")
_FIXED_WIDTH = frozenset({"BIGINT", "BOOLEAN", "DATE", "DOUBLE", "INTEGER", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE",
                          "UBIGINT"})


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def migration_tables() -> list[str]:
    """The tables the migrations define, by name: what a copy moves (not the views, which the lake's
    own migrations made, nor ``schema_version``, which no migration defines)."""
    return sorted(name for name, kind in expected_schema(detailed=False).objects.items() if kind == "table")


@contextmanager
def open_source(path: Path, *, wait_s: float = 30.0) -> Iterator[Warehouse]:
    """The warehouse file at ``path``, read-only and checked to be at this installation's schema.

    Its read lock, held until the block ends, keeps writers of other processes out during the copy.
    A file behind this installation's migrations is refused rather than upgraded here: a copy
    only reads it, and the migrate command names the file it upgrades by the duckdb backend's
    settings, which this command's (the lake's) are not.
    """
    if not path.is_file():
        raise WarehouseError(f"warehouse file {path} {'is not a file' if os.path.exists(path) else 'does not exist'}")
    src = Warehouse(path, read_only=True, wait_s=wait_s)
    try:
        _check_source(src, f"warehouse file {path}")
        yield src
    finally:
        src.close()


def _check_source(src: Warehouse, what: str) -> None:
    """Refuse a file whose tables are not those the lake's migrations make: another project's data,
    a file never migrated, one behind or ahead of this installation, or one with a table or column
    dropped or changed by hand (its rows would not fit, or would fit wrongly)."""
    refuse_foreign_database(src, what)
    if "schema_version" not in src.tables():
        raise WarehouseError(f"{what} holds no AraStance warehouse (it was never migrated); nothing to copy")
    report = check_schema(src)
    if report.pending_migrations:
        raise WarehouseError(
            f"{what} lacks migrations this installation ships ({', '.join(report.pending_migrations)}); upgrade it "
            f"first with the duckdb backend: ARASTANCE_WAREHOUSE_BACKEND=duckdb ARASTANCE_WAREHOUSE_PATH={src.path} "
            "arastance warehouse migrate")
    if not report.ok:
        raise WarehouseError(f"{what} does not match its migrations ({'; '.join(report.lines())}); nothing was copied")


def copy_to_lake(src: Warehouse, lake: Warehouse) -> dict[str, int]:
    """Copy every migration table of ``src`` (:func:`open_source`) into ``lake``; return each table's rows.

    The lake must hold no row in those tables (refused naming them, before anything changes); a new
    lake is migrated first. The copy and the check that each table holds as many rows as the file's
    run in one transaction under the catalog's write lock, held from the emptiness check on: another
    writer cannot fill the lake in between, and a copy that fails stores nothing.
    """
    tables = migration_tables()
    with lake.exclusive():
        _refuse_filled(lake, tables)
        apply_migrations(lake)
        with _attached(lake, src.path), lake.transaction() as con:
            for table in tables:
                copy_table(con, table, lake.columns(table))
            return _verified_counts(con, tables, f"warehouse file {src.path}")


def _refuse_filled(lake: Warehouse, tables: list[str]) -> None:
    """Refuse a lake holding rows in any of ``tables``: the copy would mix two warehouses' rows, and the
    lake has no keys to keep one claim from being stored twice."""
    present = set(lake.tables())
    filled = {t: int(lake.scalar(f'SELECT count(*) FROM "{t}"')) for t in tables if t in present}
    named = [f"{t} ({n:,} rows)" for t, n in filled.items() if n]
    if named:
        raise WarehouseError(f"the {lake.location} already holds rows in {', '.join(named)}; copy-to-lake only fills "
                             "an empty lake (a new catalog database and data path); nothing was changed")


@contextmanager
def _attached(lake: Warehouse, path: Path) -> Iterator[None]:
    """``path`` attached read-only to the lake's connection as :data:`SOURCE` for the block."""
    lake.con.execute(f"ATTACH {_literal(str(path))} AS {SOURCE} (READ_ONLY)")
    try:
        yield
    finally:
        lake.con.execute(f"DETACH {SOURCE}")


def copy_table(con: duckdb.DuckDBPyConnection, table: str, columns: list[str]) -> None:
    """Stream ``table``'s rows from the attached file into the lake's table of that name, column by name
    (the lake's columns: a file at the same schema has each of them), about :data:`CHUNK_BYTES` a statement."""
    rows = f'{SOURCE}.main."{table}"'
    cols = ", ".join(f'"{c}"' for c in columns)
    insert = f'INSERT INTO "{table}" ({cols}) SELECT {cols} FROM {rows} WHERE rowid >= $first AND rowid < $past'
    try:
        for first, past in copy_runs(con, table):
            con.execute(insert, {"first": first, "past": past})
    except duckdb.Error as exc:  # a full disk, a lost catalog: one line, without the catalog's password
        raise WarehouseError(f"cannot copy table {table!r} into the lake ({one_line(exc)}); nothing was stored") from exc


def copy_runs(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[int, int]]:
    """The row id ranges ``[first, past)`` of the attached file's ``table`` that hold about :data:`CHUNK_BYTES`
    each, in order; together they hold every row."""
    sql = load_sql("lake_copy_chunks").format(rows=f'{SOURCE}.main."{table}"', row_bytes=_row_bytes(con, table))
    return [(int(first), int(past)) for first, past in
            con.execute(sql, {"bytes": CHUNK_BYTES, "block": BLOCK_ROWS}).fetchall()]


def _row_bytes(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """An SQL expression of the size of a row of the file's ``table``: the length of each binary and
    text value (lists, maps and JSON as their text), 8 bytes for each value of another type."""
    types = con.execute(_COLUMN_TYPES, [SOURCE, table]).fetchall()
    sizes = [f'octet_length("{name}")' if dtype == "BLOB" else f'strlen(CAST("{name}" AS VARCHAR))'
             for name, dtype in types if dtype not in _FIXED_WIDTH]
    fixed = 8 * sum(dtype in _FIXED_WIDTH for _, dtype in types)
    return " + ".join([str(fixed), *(f"coalesce({size}, 0)" for size in sizes)])


def _verified_counts(con: duckdb.DuckDBPyConnection, tables: list[str], what: str) -> dict[str, int]:
    """Each table's rows in the lake, checked equal to the file's (a difference fails the transaction)."""
    try:
        counts = {t: con.execute(f'SELECT (SELECT count(*) FROM {SOURCE}.main."{t}"), (SELECT count(*) FROM "{t}")')
                  .fetchone() for t in tables}
    except duckdb.Error as exc:  # a lost catalog: one line, as for the copy itself
        raise WarehouseError(f"cannot count the rows copied into the lake ({one_line(exc)}); nothing was stored") from exc
    differ = [f"{t} ({given:,} in the file, {copied:,} in the lake)" for t, (given, copied) in counts.items()
              if given != copied]
    if differ:
        raise WarehouseError(f"copying {what} stored other row counts than it holds: {', '.join(differ)}; nothing was stored")
    return {t: copied for t, (_, copied) in counts.items()}
