"""``arastance warehouse copy-to-lake``: a DuckDB warehouse file moved whole into an empty DuckLake.

On a real PostgreSQL catalog (:mod:`helpers_lake`). The file is built by the loader and the
annotation, dataset and model-run code, so that the copy meets what those stages store, and the
copy is read back from the lake table by table, row by row.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from helpers_annotation import add_gold, add_labelled_pairs
from helpers_crawl_load import StagedPost, write_run
from helpers_lake import lake_env, postgres  # noqa: F401 - the fixtures
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from arastance.config.annotation import AnnotationSettings
from tasks.claim_load.load import load_crawl_run
from tasks.dataset.assemble import assign_claim_splits
from warehouse import Warehouse, lake_copy, open_warehouse
from warehouse.connection import create_aside
from warehouse.lake_copy import migration_tables
from warehouse.migrate import apply_migrations
from warehouse.model_runs import ModelRun, finish_run, start_run, store_evaluation

runner = CliRunner()


def _posts(numbers: range) -> list[StagedPost]:
    return [StagedPost(f"/fact/{i}/", f"ادعاء رقم {i} عن افتتاح جسر في المدينة لم يحدث", title=f"حقيقة {i}")
            for i in numbers]


def _warehouse_file(path: Path, staging: Path) -> Path:
    """A DuckDB warehouse at ``path`` with a loaded crawl run (claims, pages), annotations, gold labels,
    splits and a model run with its metrics; returns the staging run it loaded."""
    run = write_run(staging / "run-1", "araanews", _posts(range(12)))
    create_aside(path)
    with Warehouse(path, publish=False) as wh:
        assert load_crawl_run(wh, run).new_claims == 12
        add_gold(wh, add_labelled_pairs(wh))
        assert assign_claim_splits(wh, AnnotationSettings()).assigned > 0
        with wh.transaction():
            start_run(wh, ModelRun("run-1", "tfidf", "cpu", {"dataset": "arastance"}, "fp-1", "abc123"))
            store_evaluation(wh, "run-1", "arastance", "test", {"accuracy": 0.5, "f1": {"agree": 0.25}})
            finish_run(wh, "run-1", succeeded=True, artifact_path="models/run-1")
    return run


def _rows(wh: Warehouse, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
    cols = ", ".join(f'"{c}"' for c in columns)
    return wh.con.execute(f'SELECT {cols} FROM "{table}" ORDER BY ALL').fetchall()


def _lake_counts() -> dict[str, int]:
    with open_warehouse(read_only=True) as lake:
        return {t: n for t, n in lake.table_counts().items() if t != "schema_version"}


def _copy(*args: str) -> Any:
    return runner.invoke(app, ["warehouse", "copy-to-lake", *args])


def _error_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, (result.exit_code, result.output)
    return lines[0]


def test_a_warehouse_file_is_copied_whole_and_reads_back_equal(lake_env: dict[str, str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    source = load_settings().warehouse
    _warehouse_file(source, tmp_path / "staging")
    monkeypatch.setattr(lake_copy, "CHUNK_BYTES", 2_000)  # runs of a few rows, as a large table's of 32 MiB
    monkeypatch.setattr(lake_copy, "BLOCK_ROWS", 2)
    result = _copy()
    assert result.exit_code == 0, result.output
    with Warehouse(source, read_only=True) as file, open_warehouse(read_only=True) as lake:
        assert lake.backend == "ducklake"
        filled = 0
        for table in migration_tables():
            columns = file.columns(table)
            assert lake.columns(table) == columns, table
            rows = _rows(file, table, columns)
            assert _rows(lake, table, columns) == rows, table
            filled += bool(rows)
            assert re.search(rf"│ {table} +│ {len(rows)} +│", result.output), table  # the printed table
        for table in ("claims", "raw_pages", "annotations", "gold_labels", "splits", "model_runs", "evaluations"):
            assert lake.scalar(f"SELECT count(*) FROM {table}") > 0, table
        assert filled >= 10
        # the lake's own migrations, not the file's rows
        assert lake.scalar("SELECT count(*) FROM schema_version") == file.scalar("SELECT count(*) FROM schema_version")
        assert lake.query("SELECT count(*) AS n FROM v_gold_pairs") == file.query("SELECT count(*) AS n FROM v_gold_pairs")


def test_a_table_is_copied_in_runs_of_rows_of_about_chunk_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: one INSERT a table; the lake's Parquet writer held the whole table in memory (24,000 pages'
    # bodies, 323 MiB: a 1.4 GiB peak; under a 256MB warehouse_memory_limit 8,000 pages failed)
    source = tmp_path / "warehouse.duckdb"
    _warehouse_file(source, tmp_path / "staging")
    monkeypatch.setattr(lake_copy, "CHUNK_BYTES", 2_000)
    monkeypatch.setattr(lake_copy, "BLOCK_ROWS", 1)
    con = duckdb.connect()
    con.execute(f"ATTACH '{source}' AS {lake_copy.SOURCE} (READ_ONLY)")
    runs = lake_copy.copy_runs(con, "raw_pages")
    sizes = con.execute(f"SELECT rowid, {lake_copy._row_bytes(con, 'raw_pages')} FROM {lake_copy.SOURCE}.raw_pages "
                        "ORDER BY rowid").fetchall()
    assert len(runs) > 1 and runs[0][0] == 0 and runs[-1][1] > sizes[-1][0]
    assert all(past == first for (_, past), (first, _) in zip(runs, runs[1:]))  # every row, once
    for first, past in runs:
        run = [size for rowid, size in sizes if first <= rowid < past]
        assert sum(run[:-1]) < lake_copy.CHUNK_BYTES, (first, past, run)  # the last row may pass the mark
    assert lake_copy.copy_runs(con, "pilot_discussions") == []  # an empty table: nothing to insert


def test_after_the_copy_loads_find_the_copied_rows_by_their_keys(lake_env: dict[str, str], tmp_path: Path) -> None:
    source = load_settings().warehouse
    run = _warehouse_file(source, tmp_path / "staging")
    assert _copy("--from", str(source)).exit_code == 0
    copied = _lake_counts()
    overlapping = write_run(tmp_path / "staging" / "run-2", "araanews", _posts(range(6, 18)))
    with open_warehouse() as lake:
        again = load_crawl_run(lake, run)
        assert again.already_loaded and again.new_claims == 0
        assert _lake_counts() == copied
        report = load_crawl_run(lake, overlapping)
        assert (report.new_claims, report.new_pages) == (6, 6)  # the 6 claims the file held are found by their keys
        assert lake.scalar("SELECT count(*) - count(DISTINCT claim_id) FROM claims") == 0
        assert lake.scalar("SELECT count(*) - count(DISTINCT page_id) FROM raw_pages") == 0


def test_a_lake_holding_rows_is_refused_and_left_unchanged(lake_env: dict[str, str], tmp_path: Path) -> None:
    _warehouse_file(load_settings().warehouse, tmp_path / "staging")
    with open_warehouse() as lake:
        load_crawl_run(lake, write_run(tmp_path / "staging" / "other", "dabegad", _posts(range(100, 103))))
    before = _lake_counts()
    line = _error_line(_copy())
    assert "already holds rows in" in line and "claims (3 rows)" in line and "nothing was changed" in line
    assert "annotations" not in line  # only the tables that hold rows are named
    assert _lake_counts() == before


def test_a_copy_failing_part_way_leaves_the_lake_empty(lake_env: dict[str, str], tmp_path: Path) -> None:
    _warehouse_file(load_settings().warehouse, tmp_path / "staging")
    with open_warehouse() as lake:  # a lake whose splits table the file's rows do not fit: its copy fails
        lake.con.execute("ALTER TABLE splits ADD COLUMN moved_by VARCHAR")
    line = _error_line(_copy())
    assert "cannot copy table 'splits' into the lake" in line and "moved_by" in line and "nothing was stored" in line
    assert sorted(migration_tables()).index("splits") > 10  # most tables were copied before it
    assert set(_lake_counts().values()) == {0}
    with open_warehouse() as lake:  # once the lake is mended, the copy goes through
        lake.con.execute("ALTER TABLE splits DROP COLUMN moved_by")
    assert _copy().exit_code == 0
    assert _lake_counts()["splits"] > 0


def test_an_older_warehouse_file_is_refused_naming_how_to_upgrade_it(lake_env: dict[str, str], tmp_path: Path) -> None:
    older = tmp_path / "older.duckdb"
    with Warehouse(older, publish=False) as wh:
        apply_migrations(wh, up_to=78)
    line = _error_line(_copy("--from", str(older)))
    assert f"warehouse file {older} lacks migrations this installation ships (079_gold_label_origin" in line
    assert f"ARASTANCE_WAREHOUSE_BACKEND=duckdb ARASTANCE_WAREHOUSE_PATH={older} arastance warehouse migrate" in line
    assert not Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"]).exists()  # the lake was not even attached


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: p.write_text("claim_id,text\n1,a\n"), "cannot open warehouse"),
    (lambda p: duckdb.connect(str(p)).execute("CREATE TABLE orders (id INTEGER)").close(), "a DuckDB database of other data"),
    (lambda p: duckdb.connect(str(p)).close(), "holds no AraStance warehouse"),
    (lambda p: None, "does not exist"),
    (lambda p: p.mkdir(), "is not a file"),
], ids=["text-file", "other-data", "never-migrated", "missing", "directory"])
def test_a_file_that_is_no_warehouse_is_refused_naming_it(lake_env: dict[str, str], tmp_path: Path, make: Any,
                                                            said: str) -> None:
    path = tmp_path / "given.duckdb"
    make(path)
    line = _error_line(_copy("--from", str(path)))
    assert str(path) in line and said in line
    assert not Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"]).exists()


def test_a_backend_other_than_ducklake_is_refused_in_one_line(tmp_path: Path) -> None:
    open_warehouse().close()  # a DuckDB warehouse to copy is there; the configured backend is still duckdb
    line = _error_line(_copy())
    assert "warehouse_backend (ARASTANCE_WAREHOUSE_BACKEND) is 'duckdb'" in line and "'ducklake'" in line
