"""Schema migrations: applied once, in order, never dropping data."""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pytest

from warehouse import Warehouse, WarehouseError
from warehouse.migrate import Migration, applied_versions, apply_migrations, available_migrations
from warehouse.publish import published_path

REPO = Path(__file__).resolve().parents[1]

EVERY_ENTITY = {
    "sources", "crawl_runs", "raw_pages", "claims", "claim_clusters", "queries", "search_hits",
    "articles", "claim_article_pairs", "annotations", "gold_labels", "splits", "model_runs",
    "evaluations", "schema_version",
}


def test_empty_file_gets_every_migration_then_reapplying_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        done = apply_migrations(wh)
        assert done == [m.version for m in available_migrations()]
        assert EVERY_ENTITY <= set(wh.tables())
    with Warehouse(path) as wh:
        assert apply_migrations(wh) == []
        assert set(applied_versions(wh)) == set(done)


def test_upgrading_a_warehouse_that_holds_data_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        apply_migrations(wh, up_to=1)
        wh.insert_rows("sources", [{"source_id": "dabegad", "name": "Dabegad", "kind": "fact_check"}])
        wh.insert_rows("claims", [{
            "claim_id": "c1", "source_id": "dabegad", "url": "http://x/1", "canonical_url": "http://x/1",
            "veracity": "false", "first_seen": "2016-01-01 00:00:00", "last_seen": "2016-01-01 00:00:00",
        }])
    with Warehouse(path) as wh:
        assert apply_migrations(wh)  # the later migrations
        assert wh.query("SELECT claim_id, source_id FROM claims") == [{"claim_id": "c1", "source_id": "dabegad"}]
        assert wh.scalar("SELECT count(*) FROM sources") == 1


def test_a_changed_migration_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        apply_migrations(wh)
        wh.con.execute("UPDATE schema_version SET checksum = 'edited' WHERE version = 1")
        with pytest.raises(WarehouseError, match="001_core.sql changed"):
            apply_migrations(wh)


def test_a_duckdb_file_of_other_data_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings

    path = load_settings().warehouse  # the configured warehouse, pointed at someone else's database
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE orders (id INTEGER, total DOUBLE)")
        con.execute("INSERT INTO orders VALUES (1, 9.5)")
    with Warehouse(path, publish=False) as wh:
        with pytest.raises(WarehouseError, match="a DuckDB database of other data \\(tables orders\\)"):
            apply_migrations(wh)
    # readers too: they published a copy of it for this project's readers, and then crashed on a missing table
    for command in (["annotate", "status"], ["stats"], ["sql", "SELECT 1"], ["warehouse", "migrate"]):
        refused = CliRunner().invoke(app, command)
        assert refused.exit_code == 2 and "not an AraStance warehouse" in refused.output, (command, refused.output)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SHOW TABLES").fetchall() == [("orders",)]
        assert con.execute("SELECT * FROM orders").fetchall() == [(1, 9.5)]
    assert not published_path(path).exists()  # readers are not handed a copy of it either


def test_a_warehouse_migrated_by_a_newer_version_is_refused_for_writing_and_left_unchanged() -> None:
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings
    from warehouse import open_warehouse

    path = load_settings().warehouse
    with open_warehouse(path) as wh:
        wh.con.execute("INSERT INTO schema_version VALUES (999, 'from_the_future', 'abcd', now()::TIMESTAMP)")
        wh.con.execute("INSERT INTO sources (source_id, name, kind, base_url) VALUES ('s1', 'Site', 'fact_check', 'https://s.example')")
    before = published_path(path).stat().st_mtime_ns
    newest = available_migrations()[-1].version
    # it was: "applied 0 migration(s)" and "schema matches its migrations", and an older version went on writing
    with pytest.raises(WarehouseError, match=f"migrated by a newer version of AraStance Pipeline \\(migrations "
                                             f"999_from_the_future; this installation knows up to {newest:03d}\\)"):
        open_warehouse(path)
    for command in (["warehouse", "migrate"], ["warehouse", "check"], ["annotate", "adjudicate"]):
        refused = CliRunner().invoke(app, command)
        assert refused.exit_code == 2 and "999_from_the_future" in refused.output, (command, refused.output)
    assert CliRunner().invoke(app, ["annotate", "status"]).exit_code == 0  # a report reads the readers' copy
    with open_warehouse(path, read_only=True) as wh:  # reading it is not refused
        assert wh.scalar("SELECT count(*) FROM sources") == 1 and wh.scalar("SELECT max(version) FROM schema_version") == 999
    assert published_path(path).stat().st_mtime_ns == before  # nothing republished from a refused open


def test_a_report_on_a_readers_copy_older_than_the_installation_reads_a_private_copy_brought_up_to_date(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # right after an upgrade, before any writer: `stats` crashed with DuckDB's catalog error on a view added since,
    # then was refused until someone who can write migrated the warehouse
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings

    path = load_settings().warehouse
    path.parent.mkdir(parents=True, exist_ok=True)
    with Warehouse(path) as wh:  # as an earlier version left it, and published it
        apply_migrations(wh, up_to=63)
        wh.con.execute("INSERT INTO sources (source_id, name, kind, base_url) VALUES ('s1', 'Site', 'fact_check', 'https://s.example')")
    shared = published_path(path)
    before = (shared.stat().st_mtime_ns, path.stat().st_mtime_ns)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    for command in (["stats"], ["annotate", "status"]):
        report = CliRunner().invoke(app, command)
        said = " ".join(report.output.split())
        assert report.exit_code == 0, (command, report.output)
        assert "the readers' copy is older than this installation: this report reads a private copy" in said
    assert (shared.stat().st_mtime_ns, path.stat().st_mtime_ns) == before, "neither the shared copy nor the warehouse changed"
    with duckdb.connect(str(shared), read_only=True) as con:
        assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (63,)
    assert list(scratch.iterdir()) == [], "the private copy is gone once the report has opened it"

    # where no private copy can be made, the report says both what is wrong and what to run
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-dir"))
    pending = ", ".join(f"{m.version:03d}_{m.name}" for m in available_migrations() if m.version > 63)
    refused = CliRunner().invoke(app, ["stats"])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and f"lacks migrations this installation ships ({pending}); run `arastance " \
                                      f"warehouse migrate`" in said, refused.output
    assert f"a private copy brought up to date for this report could not be made in {tmp_path / 'no-such-dir'} either" in said

    def none_usable() -> str:  # what tempfile says where no directory is usable (review: the message was lost)
        raise FileNotFoundError(2, "No usable temporary directory found in ['/tmp', '/var/tmp']")

    with monkeypatch.context() as patched:  # undone alone: monkeypatch.undo() also undid the isolated data directory
        patched.setattr(tempfile, "gettempdir", none_usable)
        said = " ".join(CliRunner().invoke(app, ["stats"]).output.split())
    assert f"lacks migrations this installation ships ({pending})" in said and "could not be made in the temporary " \
        "directory either ([Errno 2] No usable temporary directory found in ['/tmp', '/var/tmp'])" in said, said
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert CliRunner().invoke(app, ["warehouse", "migrate"]).exit_code == 0
    for command in (["stats"], ["annotate", "status"]):
        report = CliRunner().invoke(app, command)
        assert report.exit_code == 0 and "private copy" not in report.output, command


def test_a_report_after_an_upgrade_makes_no_private_copy_on_a_temporary_disk_without_room_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the copy went ahead while that disk had room for it alone (leaving the shared disk all but full), or
    # filled it to the last byte before failing, so every other program writing there failed meanwhile; the error
    # named a vanished file and did not say where else a copy could go
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings
    from helpers_disk import small_disk

    path = load_settings().warehouse
    path.parent.mkdir(parents=True, exist_ok=True)
    with Warehouse(path) as wh:  # about 9 MiB, as an earlier version left it
        apply_migrations(wh, up_to=63)
        wh.con.execute("INSERT INTO sources (source_id, name, kind, base_url) SELECT 's' || i, md5(i::VARCHAR) || "
                       "md5((i * 7)::VARCHAR), 'fact_check', 'https://s.example/' || md5((i * 3)::VARCHAR) "
                       "FROM range(60000) t(i)")
    size = published_path(path).stat().st_size
    with small_disk(tmp_path, 48) as disk:
        monkeypatch.setattr(tempfile, "tempdir", str(disk.root))
        disk.fill(leave=size + (4 << 20))  # room for the copy, but the disk would be left all but full
        free = disk.available()
        refused = CliRunner().invoke(app, ["stats"])
        said = " ".join(refused.output.split())
        assert refused.exit_code == 2 and "lacks migrations this installation ships" in said, refused.output
        needed = -(-(size + (8 << 20)) // (1 << 20))
        assert f"could not be made in {disk.root} either (it needs about {needed} MiB there and that disk has " \
               f"{free >> 20} MiB free; set TMPDIR to a directory on a disk with room)" in said, said
        assert sorted(p.name for p in disk.root.iterdir()) == [".filler"]

        disk.free()  # with the margin's room, the report reads its private copy
        disk.fill(leave=size + (10 << 20))
        report = CliRunner().invoke(app, ["stats"])
        assert report.exit_code == 0 and "Claims, articles and stances per source" in report.output, report.output
        assert sorted(p.name for p in disk.root.iterdir()) == [".filler"]


def test_a_report_on_a_copy_with_no_arastance_schema_says_so() -> None:
    # it was: DuckDB's "Table with name schema_version does not exist!" as a traceback
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings

    path = load_settings().warehouse
    path.parent.mkdir(parents=True, exist_ok=True)
    duckdb.connect(str(path)).close()  # an empty file: never migrated
    refused = CliRunner().invoke(app, ["stats"])
    assert refused.exit_code == 2 and f"the readers' copy of warehouse {path}" in " ".join(refused.output.split())
    assert "was never migrated; run `arastance warehouse migrate`" in " ".join(refused.output.split())
    path.unlink()
    with duckdb.connect(str(path)) as con:  # other data, copied for readers by an earlier version
        con.execute("CREATE TABLE orders (id INTEGER)")
    published_path(path).unlink()
    with duckdb.connect(str(published_path(path))) as con:
        con.execute("CREATE TABLE orders (id INTEGER)")
    # sql and warehouse status answered from it as if it were the warehouse (sql: the orders table)
    for command in (["stats"], ["annotate", "status"], ["sql", "SELECT count(*) AS n FROM orders"], ["warehouse", "status"]):
        refused = CliRunner().invoke(app, command)
        said = " ".join(refused.output.split())
        assert refused.exit_code == 2 and "is a DuckDB database of other data (tables orders)" in said, (command, said)
        assert f"the readers' copy of warehouse {path} ({published_path(path)})" in said, (command, said)


def test_a_process_killed_right_after_its_migrations_leaves_a_warehouse_that_opens(tmp_path: Path) -> None:
    # DuckDB 1.5 cannot replay some schema changes from its write-ahead log (an internal error on
    # open); each migration is checkpointed, so the log never holds one.
    path = tmp_path / "w.duckdb"
    child = (
        "import os, sys\n"
        "from warehouse import open_warehouse\n"
        "wh = open_warehouse(sys.argv[1], publish=False)\n"
        "with wh.transaction():  # a stage's first write after the migrations\n"
        "    wh.con.execute('CREATE TEMP TABLE t (x INTEGER)')\n"
        "os._exit(0)  # no close, no checkpoint at exit: as if killed\n"
    )
    done = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-2000:]
    with duckdb.connect(str(path), read_only=True) as con:  # as a user's Python or the duckdb CLI opens it
        applied = {row[0] for row in con.execute("SELECT version FROM schema_version").fetchall()}
    assert applied == {m.version for m in available_migrations()}


def test_a_process_killed_while_creating_the_warehouse_leaves_none_or_a_whole_one(tmp_path: Path) -> None:
    # Killed between a migration's commit and its checkpoint, a warehouse created in place would not
    # open again (DuckDB 1.5 cannot replay the schema change); it is built aside and linked whole.
    child = ("import sys\nfrom warehouse import open_warehouse\n"
             "open_warehouse(sys.argv[1], publish=False).close()\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", child, str(tmp_path / "timing.duckdb")], check=True, env=env, timeout=120)
    took = time.monotonic() - started
    every = {m.version for m in available_migrations()}
    outcomes = set()
    for i, fraction in enumerate((0.5, 0.65, 0.8, 0.9, 0.97)):
        path = tmp_path / f"w{i}.duckdb"
        process = subprocess.Popen([sys.executable, "-c", child, str(path)], env=env)
        time.sleep(took * fraction)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        existed = path.exists()
        outcomes.add(existed)
        if existed:  # whole: every migration applied, opened as a user's duckdb would
            with duckdb.connect(str(path), read_only=True) as con:
                applied = {row[0] for row in con.execute("SELECT version FROM schema_version").fetchall()}
            assert applied == every, f"killed at {fraction:.0%} of the creation"
        with Warehouse(path) as wh:  # opening again and migrating always works
            assert set(apply_migrations(wh)) == (set() if existed else every)
    assert False in outcomes  # some kills landed while the schema was being built


def test_warehouse_migrate_builds_a_new_warehouse_aside_so_a_failed_creation_leaves_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # it was built in place (open_warehouse(migrate=False)): a migrate killed part-way left a half schema at the
    # path, which the next `sql` published
    from typer.testing import CliRunner

    import warehouse.migrate as migrate_module
    from arastance.cli import app
    from arastance.config import load_settings

    path = load_settings().warehouse
    shipped = available_migrations()
    failing = Migration(shipped[-1].version + 1, "fails_part_way", "CREATE TABLE half (x INTEGER); SELECT error('killed')")
    with monkeypatch.context() as patched:  # (undo() would also undo the test's own directory and settings)
        patched.setattr(migrate_module, "available_migrations", lambda: [*shipped, failing])
        failed = CliRunner().invoke(app, ["warehouse", "migrate"])
    assert failed.exit_code != 0
    assert not path.exists() and list(path.parent.iterdir()) == []  # no warehouse, no side file
    done = CliRunner().invoke(app, ["warehouse", "migrate"])
    assert done.exit_code == 0, done.output
    assert f"applied {len(shipped)} migration(s)" in done.output
    with duckdb.connect(str(path), read_only=True) as con:
        assert {v for (v,) in con.execute("SELECT version FROM schema_version").fetchall()} == {m.version for m in shipped}


def test_warehouse_status_of_a_file_never_migrated_is_one_line_saying_to_migrate() -> None:
    # it was a traceback ending "Catalog Error: Table with name schema_version does not exist"
    from typer.testing import CliRunner

    from arastance.cli import app
    from arastance.config import load_settings

    path = load_settings().warehouse
    path.parent.mkdir(parents=True, exist_ok=True)
    duckdb.connect(str(path)).close()  # opened once with duckdb: an empty file
    refused = CliRunner().invoke(app, ["warehouse", "status"])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and refused.exception is not None and not isinstance(refused.exception, duckdb.Error)
    assert f"warehouse {path} was never migrated" in said and "run `arastance warehouse migrate`" in said


def test_experiment_cells_are_the_newest_run_of_each_experiment_and_run_cells_every_run(tmp_path: Path) -> None:
    # it was every stored run: a second run of cross-dataset doubled the matrix
    with Warehouse(tmp_path / "w.duckdb") as wh:
        apply_migrations(wh)
        runs = [("e1", "cross-dataset", "2026-01-01", 0.5), ("e2", "cross-dataset", "2026-02-01", 0.7),
                ("i1", "imbalance", "2026-01-15", 0.6)]
        wh.insert_rows("experiment_runs", [{"experiment_id": e, "experiment": kind, "started_at": day, "finished_at": day}
                                           for e, kind, day, _ in runs])
        wh.insert_rows("experiment_results", [
            {"experiment_id": e, "row_key": "a", "column_key": key, "scheme": "4way", "metric": "macro_f1", "label": "",
             "value": f1} for e, _, _, f1 in runs for key in ("a", "b")])
        newest = wh.query("SELECT experiment, experiment_id, column_key, macro_f1 FROM v_experiment_cells ORDER BY ALL")
        every = wh.scalar("SELECT count(DISTINCT experiment_id) FROM v_experiment_run_cells")
    assert newest == [
        {"experiment": "cross-dataset", "experiment_id": "e2", "column_key": "a", "macro_f1": 0.7},
        {"experiment": "cross-dataset", "experiment_id": "e2", "column_key": "b", "macro_f1": 0.7},
        {"experiment": "imbalance", "experiment_id": "i1", "column_key": "a", "macro_f1": 0.6},
        {"experiment": "imbalance", "experiment_id": "i1", "column_key": "b", "macro_f1": 0.6},
    ]
    assert every == 3


def _warehouse_before_query_duplicates(path: Path, queries: int) -> None:
    """A warehouse at migration 021 holding ``queries`` queries, as the first days' versions left one."""
    with Warehouse(path) as wh:
        apply_migrations(wh, up_to=21)
        wh.con.execute("INSERT INTO queries SELECT 'q' || range, 'c' || (range // 5), 'claim', 'نص ' || range, "
                       "NULL, NULL, 'none', TIMESTAMP '2026-11-30 10:00:00' FROM range(?)", [queries])


def test_migration_030_upgrades_a_warehouse_of_more_than_2048_queries(tmp_path: Path) -> None:
    # it was: ADD COLUMN … DEFAULT [] in one step hit a DuckDB internal error past 2,048 rows and left the
    # warehouse unwritable, a 98-line traceback from every command
    path = tmp_path / "w.duckdb"
    _warehouse_before_query_duplicates(path, 2100)
    with Warehouse(path) as wh:
        assert 30 in apply_migrations(wh)
        assert wh.scalar("SELECT count(*) FROM queries WHERE also_kinds = []") == 2100
        wh.con.execute("INSERT INTO queries (query_id, claim_id, kind, text, analyzer, created_at) "
                       "VALUES ('new', 'c', 'claim', 'نص', 'none', TIMESTAMP '2026-12-05 00:00:00')")
        assert wh.scalar("SELECT also_kinds FROM queries WHERE query_id = 'new'") == []


def test_a_warehouse_that_applied_030_in_its_one_step_form_is_current(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with Warehouse(path) as wh:
        apply_migrations(wh)
        wh.con.execute("UPDATE schema_version SET checksum = '2fe3f4d01bd1634d' WHERE version = 30")
    with Warehouse(path) as wh:
        assert apply_migrations(wh) == []


def test_a_migration_duckdb_fails_on_is_one_error_naming_it_and_the_data_stays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "w.duckdb"
    _warehouse_before_query_duplicates(path, 2100)
    one_step = Migration(30, "query_duplicates", "ALTER TABLE queries ADD COLUMN also_kinds VARCHAR[] DEFAULT [];")
    monkeypatch.setattr("warehouse.migrate.available_migrations",
                        lambda: [m if m.version != 30 else one_step for m in available_migrations()])
    with Warehouse(path, publish=False) as wh, \
            pytest.raises(WarehouseError, match=r"migration 030_query_duplicates\.sql failed on .*w\.duckdb and was not applied"):
        apply_migrations(wh)
    monkeypatch.undo()
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM queries").fetchone() == (2100,)
        assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (21,)


def test_a_failed_migrations_error_shows_no_password_its_statement_quoted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the migration's error took DuckDB's first line as it was, a connection string's password included
    leaking = Migration(99, "attach_catalog", "SELECT CAST('postgres://lake:Ka7-pw_2026@db.example/lake' AS INTEGER);")
    monkeypatch.setattr("warehouse.migrate.available_migrations", lambda: [*available_migrations(), leaking])
    with Warehouse(tmp_path / "w.duckdb", publish=False) as wh, pytest.raises(WarehouseError) as failed:
        apply_migrations(wh)
    message = str(failed.value)
    assert message.startswith("migration 099_attach_catalog.sql failed on ")
    assert "postgres://lake:****@db.example/lake" in message and "Ka7-pw_2026" not in message
