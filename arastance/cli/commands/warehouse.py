"""``arastance warehouse`` and ``arastance sql``: schema and ad-hoc queries."""

import duckdb
import typer

from arastance.cli.common import fail, print_table, settings
from warehouse import Warehouse, WarehouseError, open_warehouse
from warehouse.migrate import apply_migrations, applied_versions
from warehouse.schema_check import check_schema, run_guarded

warehouse_app = typer.Typer(help="Create, upgrade and inspect the DuckDB claim warehouse.", no_args_is_help=True)


@warehouse_app.command("migrate")
def migrate() -> None:
    """Apply pending schema migrations (idempotent; never drops data)."""
    s = settings()
    try:
        with Warehouse(s.warehouse) as wh:
            done = apply_migrations(wh)
            version = max(applied_versions(wh), default=0)
            report = check_schema(wh)
    except WarehouseError as exc:
        fail(str(exc))
    print(f"warehouse {s.warehouse}: applied {len(done)} migration(s) {done}; schema version {version}")
    if not report.ok:  # applied migrations never run again, so what was dropped by hand stays missing
        fail(f"warehouse {s.warehouse} lacks part of its schema:\n  " + "\n  ".join(report.lines()))


@warehouse_app.command("check")
def check() -> None:
    """Verify the schema against the migrations and name every missing table, view or column."""
    s = settings()
    try:
        with Warehouse(s.warehouse, read_only=True) as wh:
            report = check_schema(wh)
    except WarehouseError as exc:
        fail(str(exc))
    if not report.ok:
        fail(f"warehouse {s.warehouse} does not match its migrations:\n  " + "\n  ".join(report.lines()))
    print(f"warehouse {s.warehouse}: schema matches its migrations")


@warehouse_app.command("status")
def status() -> None:
    """Show the schema version and the row count of every table."""
    s = settings()
    try:
        with Warehouse(s.warehouse, read_only=True) as wh:
            version = wh.scalar("SELECT max(version) FROM schema_version")
            counts = wh.table_counts()
    except WarehouseError as exc:
        fail(str(exc))
    print(f"warehouse {s.warehouse}, schema version {version}")
    print_table([{"table": t, "rows": n} for t, n in counts.items()])


def sql(
    statement: str = typer.Argument(..., help="SQL to run, e.g. \"SELECT * FROM v_source_stats\""),
    write: bool = typer.Option(False, "--write", help="open read-write (default: read-only)"),
    allow_drop: bool = typer.Option(False, "--allow-drop", help="with --write: allow removing schema tables or views"),
) -> None:
    """Run SQL against the warehouse and print the result as a table."""
    s = settings()
    try:
        wh = open_warehouse(s.warehouse, read_only=not write, migrate=write)
    except WarehouseError as exc:
        fail(str(exc))
    with wh:
        try:
            rows = run_guarded(wh, statement, allow_drop=allow_drop) if write else wh.query(statement)
        except duckdb.Error as exc:
            fail(f"SQL failed: {exc}")
        except WarehouseError as exc:
            fail(str(exc))
    print_table(rows)


def register(app: typer.Typer) -> None:
    app.add_typer(warehouse_app, name="warehouse")
    app.command("sql")(sql)
