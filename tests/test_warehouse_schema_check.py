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
