"""``arastance warehouse`` and ``arastance sql``: schema and ad-hoc queries."""

from pathlib import Path

import duckdb
import typer

from arastance.cli.common import err_console, fail, print_table, require_stdout, settings
from arastance.cli.output_file import output_file_refusal
from arastance.cli.result_output import (ResultFormat, SpillError, UnwritableValueError, destination_refusal,
                                         prepare_output, query_error, write_result)
from arastance.cli.shown_text import shown
from tasks.claim_load.rekey import rekey_claims
from warehouse import WarehouseError, open_published, open_warehouse
from warehouse.connection import create_aside
from warehouse.lake_cleanup import clean_configured_lake
from warehouse.lake_copy import copy_to_lake, open_source
from warehouse.migrate import apply_migrations, applied_versions
from warehouse.schema_check import check_schema, run_guarded

warehouse_app = typer.Typer(help="Create, upgrade and inspect the DuckDB claim warehouse.", no_args_is_help=True)


@warehouse_app.command("migrate")
def migrate() -> None:
    """Apply pending schema migrations (idempotent; never drops data)."""
    s = settings()
    try:  # a new warehouse is built aside and appears whole, as every writer creates one
        created = create_aside(s.warehouse) if s.warehouse_backend == "duckdb" else []
        with open_warehouse(s.warehouse, migrate=False) as wh:
            done = created + apply_migrations(wh)
            version = max(applied_versions(wh), default=0)
            report = check_schema(wh)
    except WarehouseError as exc:
        fail(str(exc))
    print(f"warehouse {wh.location}: applied {len(done)} migration(s) {done}; schema version {version}")
    if not report.ok:  # applied migrations never run again, so what was dropped by hand stays missing
        fail(f"warehouse {wh.location} lacks part of its schema:\n  " + "\n  ".join(report.lines()))


@warehouse_app.command("check")
def check() -> None:
    """Verify the schema against the migrations and name every missing table, view or column."""
    s = settings()
    try:
        with open_warehouse(s.warehouse, read_only=True) as wh:
            report = check_schema(wh)
    except WarehouseError as exc:
        fail(str(exc))
    if not report.ok:
        fail(f"warehouse {wh.location} does not match its migrations:\n  " + "\n  ".join(report.lines()))
    print(f"warehouse {wh.location}: schema matches its migrations")


@warehouse_app.command("status")
def status() -> None:
    """Show the schema version and the row count of every table."""
    require_stdout()
    s = settings()
    try:
        with open_published(s.warehouse) as wh:
            if "schema_version" not in wh.tables():  # a file opened once with duckdb, or never written: any schema reads
                fail(f"warehouse {s.warehouse} was never migrated (its readers' copy {wh.location} has no "
                     "schema_version); run `arastance warehouse migrate`")
            version = wh.scalar("SELECT max(version) FROM schema_version")
            counts = wh.table_counts()
    except WarehouseError as exc:
        fail(str(exc))
    print(f"warehouse {wh.location}, schema version {version}")
    print_table([{"table": t, "rows": n} for t, n in counts.items()])


@warehouse_app.command("rekey-claims")
def rekey_claims_command() -> None:
    """Give claims stored under an old spelling of their URL (http://, http://www., a web.archive.org
    capture) the canonical URL a crawl gives them today, keeping their ids; the old spelling goes
    to claim_former_urls. Claims it would make duplicates are listed and left. Idempotent."""
    s = settings()
    try:
        with open_warehouse(s.warehouse) as wh:
            report = rekey_claims(wh)
    except WarehouseError as exc:
        fail(str(exc))
    print(f"warehouse {wh.location}: re-keyed {len(report.moved)} claim(s) to their current canonical URL; "
          f"{len(report.duplicates)} URL(s) left with duplicate claims; {report.not_web} claim(s) without a web URL left")
    if report.duplicates:
        print_table([{"source": d.source_id, "canonical_url": d.canonical_url, "claim_ids": ", ".join(d.claim_ids)}
                     for d in report.duplicates], title="Duplicates to merge (left as stored)")


@warehouse_app.command("copy-to-lake")
def copy_to_lake_command(
    source: Path | None = typer.Option(None, "--from", help="the DuckDB warehouse file to copy (default: warehouse_path)"),
) -> None:
    """Copy a DuckDB warehouse file, every table of it, into the configured DuckLake, which must be empty.

    One lake transaction: a copy that fails or is killed leaves the lake empty. The file is only read.
    """
    s = settings()
    if s.warehouse_backend != "ducklake":
        fail(f"copy-to-lake copies into the configured DuckLake, and warehouse_backend (ARASTANCE_WAREHOUSE_BACKEND) "
             f"is {s.warehouse_backend!r}: set it to 'ducklake', with warehouse_catalog_url and warehouse_data_path")
    path = source or s.warehouse
    try:  # the file is checked before the lake is attached
        with open_source(path) as src, open_warehouse(s.warehouse, migrate=False) as lake:
            counts = copy_to_lake(src, lake)
    except WarehouseError as exc:
        fail(str(exc))
    print(f"copied {path} into {lake.location}: {sum(counts.values()):,} row(s) in {len(counts)} tables, "
          "each table's row count checked equal")
    print_table([{"table": t, "rows": n} for t, n in counts.items()])


@warehouse_app.command("clean-lake")
def clean_lake_command(
    keep_days: int = typer.Option(7, "--keep-days", min=1, help="keep every snapshot of the last KEEP_DAYS days"),
    dry_run: bool = typer.Option(False, "--dry-run", help="say what would be expired and deleted; change nothing"),
    delete_unreferenced: bool = typer.Option(
        False, "--delete-unreferenced", help="also delete the lake's own files no snapshot uses (a copy or load "
        "killed before its commit), over an hour old; only where this lake alone writes its data path"),
) -> None:
    """Free a DuckLake's storage: expire snapshots older than the one current --keep-days ago and delete the
    files only they used; with --delete-unreferenced, also the lake's own files no snapshot uses.

    Holds the lake's write lock meanwhile; the tables read as before, but time travel to an expired
    snapshot ends.
    """
    try:
        done = clean_configured_lake(settings(), keep_days, dry_run=dry_run, delete_unreferenced=delete_unreferenced)
    except WarehouseError as exc:
        fail(str(exc))
    print(done.summary())


def sql(
    statement: str = typer.Argument(..., help="SQL to run, e.g. \"SELECT * FROM v_source_stats\""),
    fmt: ResultFormat = typer.Option(
        ResultFormat.table, "--format", "-f",
        help="table (folded at a terminal, one line per row when piped), csv, json (JSON Lines) or parquet",
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="write the result to this file instead of stdout"),
    write: bool = typer.Option(False, "--write", help="open the writer's file read-write (default: the published read-only copy)"),
    allow_drop: bool = typer.Option(False, "--allow-drop", help="with --write: allow removing schema tables or views"),
) -> None:
    """Run SQL against the warehouse and print or save the result.

    Reads the published read-only copy, so it never waits for a running flow nor holds one up.
    """
    s = settings()
    if allow_drop and not write:
        fail("--allow-drop only applies with --write (the default reads a read-only copy)")
    if refusal := destination_refusal(fmt, out):  # before the query: --write stores its work
        fail(refusal)
    if out is None and not write:  # a query's result is its only work; --write's is stored
        require_stdout("give --out FILE")
    if out is not None and (refusal := output_file_refusal("--out", out, s)):
        fail(refusal)
    try:
        wh = open_warehouse(s.warehouse, migrate=True) if write else open_published(s.warehouse)
    except WarehouseError as exc:
        fail(str(exc))
    with wh:
        try:
            if write:  # one guarded transaction: a statement that removes part of the schema is rolled back
                result = run_guarded(wh, statement, allow_drop=allow_drop)
                rel = None if result is None else wh.con.from_arrow(result)
            else:  # a script's earlier statements run here, its last (the result) only once written out
                rel = wh.con.sql(statement)
            if rel is None:  # a statement without a result (SET, ...)
                print("ok")
                return
            prepare_output(wh.con, fmt)  # after the write or the script's own statements, whose SET would undo it
            n = write_result(rel, fmt, out=out)
        except duckdb.Error as exc:
            fail(f"SQL failed: {query_error(exc)}")
        except (WarehouseError, UnwritableValueError, SpillError) as exc:
            fail(str(exc))
    if out is not None:
        err_console.print(shown(f"wrote {n:,} row(s) to {out} ({fmt.value})"), highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(warehouse_app, name="warehouse")
    app.command("sql")(sql)
