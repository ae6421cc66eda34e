"""`arastance warehouse check` names what is missing; `sql --write` refuses to drop the schema."""

from __future__ import annotations

from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from warehouse import Warehouse, open_warehouse

runner = CliRunner()


def _migrated() -> None:
    open_warehouse(load_settings().warehouse).close()


def test_sql_write_refuses_to_drop_a_schema_table_and_changes_nothing() -> None:
    _migrated()
    done = runner.invoke(app, ["sql", "--write", "DROP TABLE annotation_imports"])
    assert done.exit_code != 0 and "refused" in done.output and "table annotation_imports" in done.output
    with Warehouse(load_settings().warehouse, read_only=True) as wh:
        assert "annotation_imports" in wh.tables()
    renamed = runner.invoke(app, ["sql", "--write", "ALTER TABLE sources RENAME TO sources_old"])
    assert renamed.exit_code != 0 and "table sources" in renamed.output
    ok = runner.invoke(app, ["sql", "--write", "CREATE TABLE scratch AS SELECT 1 AS x; DROP TABLE scratch"])
    assert ok.exit_code == 0, ok.output  # the user's own tables are theirs to drop


def test_check_and_migrate_name_a_table_dropped_by_hand() -> None:
    _migrated()
    assert runner.invoke(app, ["warehouse", "check"]).exit_code == 0
    forced = runner.invoke(app, ["sql", "--write", "--allow-drop", "DROP TABLE annotation_imports; ALTER TABLE claims DROP COLUMN category"])
    assert forced.exit_code == 0, forced.output
    check = runner.invoke(app, ["warehouse", "check"])
    assert check.exit_code != 0
    assert "missing table annotation_imports" in check.output and "missing column claims.category" in check.output
    migrate = runner.invoke(app, ["warehouse", "migrate"])
    assert migrate.exit_code != 0 and "missing table annotation_imports" in migrate.output


RESHAPE = ("CREATE OR REPLACE TABLE sources AS SELECT * FROM sources; CREATE OR REPLACE VIEW v_source_stats AS "
           "SELECT 1 AS x; ALTER TABLE claims ALTER COLUMN published_date TYPE VARCHAR")


def test_check_names_lost_keys_changed_types_and_redefined_views() -> None:
    # it was: "schema matches its migrations", then every idempotent insert into sources failed (no key)
    _migrated()
    forced = runner.invoke(app, ["sql", "--write", "--allow-drop", RESHAPE])
    assert forced.exit_code == 0, forced.output
    check = runner.invoke(app, ["warehouse", "check"])
    said = " ".join(check.output.split())
    assert check.exit_code != 0
    assert "table sources lacks PRIMARY KEY(source_id)" in said and "table sources lacks NOT NULL name" in said
    assert "column claims.published_date is VARCHAR, its migrations make it DATE" in said
    assert "view v_source_stats is not defined as its migrations define it" in said


def test_sql_write_refuses_to_drop_keys_retype_columns_or_redefine_views_and_changes_nothing() -> None:
    _migrated()
    refused = runner.invoke(app, ["sql", "--write", RESHAPE])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "refused" in said and "table sources lacks PRIMARY KEY(source_id)" in said
    assert runner.invoke(app, ["warehouse", "check"]).exit_code == 0  # rolled back whole


def test_sql_write_refuses_a_script_that_controls_its_transaction_and_runs_none_of_it() -> None:
    # it was: COMMIT ended the guard's transaction, so the drop was stored past the guard, reported as a failure
    _migrated()
    for script in ("DROP TABLE pilot_discussions; COMMIT;", "BEGIN; DELETE FROM sources", "UPDATE sources SET name = 'x'; rollback"):
        refused = runner.invoke(app, ["sql", "--write", script])
        said = " ".join(refused.output.split())
        assert refused.exit_code == 2 and "controls the transaction itself; nothing was run" in said, (script, said)
    assert "'COMMIT'" in " ".join(runner.invoke(app, ["sql", "--write", "SELECT 1; COMMIT"]).output.split())
    with Warehouse(load_settings().warehouse, read_only=True) as wh:
        assert "pilot_discussions" in wh.tables()
    assert runner.invoke(app, ["warehouse", "check"]).exit_code == 0
