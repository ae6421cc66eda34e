"""``arastance warehouse clean-lake``: a DuckLake's old snapshots expired and the files nobody reads deleted.

On a real PostgreSQL catalog (:mod:`helpers_lake`). A DuckLake never deletes a data file by itself,
so its data path grew by every rewritten row and every write killed before its commit (a killed
copy-to-lake left its Parquet files there). The snapshots are made old by moving their times back
in the catalog, as days would.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers_lake import lake_env, postgres  # noqa: F401 - the fixtures
from typer.testing import CliRunner

from arastance.cli import app
from warehouse import Warehouse, WarehouseError, open_warehouse
from warehouse.lake_cleanup import clean_lake

runner = CliRunner()


def _sources(prefix: str, n: int) -> list[dict[str, str]]:
    return [{"source_id": f"{prefix}{i}.example", "name": "مصدر", "kind": "news"} for i in range(n)]


def _parquet_files(lake_env: dict[str, str]) -> set[Path]:
    return set(Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"]).rglob("*.parquet"))


@pytest.fixture
def aged_lake(lake_env: dict[str, str]) -> dict[str, set[Path]]:
    """A lake whose data files are: one of rows all deleted ten days ago (only old snapshots read it),
    one of the current rows, and two that no snapshot uses (a write killed before its commit), one
    written two hours ago and one just now."""
    with open_warehouse() as wh:
        wh.insert_rows("sources", _sources("gone", 300))  # enough rows for a Parquet file, not inlined ones
        deleted = _parquet_files(lake_env)
        wh.insert_rows("sources", _sources("kept", 300))
        current = _parquet_files(lake_env) - deleted
        wh.execute("DELETE FROM sources WHERE source_id LIKE 'gone%'")
        wh.con.execute("CALL postgres_execute('lake_lock', "
                       "'UPDATE ducklake_snapshot SET snapshot_time = snapshot_time - interval ''10 days''')")
    folder = next(iter(current)).parent
    killed, killed_now = folder / "ducklake-killed-copy.parquet", folder / "ducklake-being-written.parquet"
    killed.write_bytes(next(iter(deleted)).read_bytes())
    killed_now.write_bytes(b"PAR1")
    two_hours_ago = time.time() - 7200
    os.utime(killed, (two_hours_ago, two_hours_ago))
    return {"deleted": deleted, "current": current, "killed": {killed}, "killed_now": {killed_now}}


def _rows() -> list[str]:
    with open_warehouse(read_only=True) as wh:
        return [r["source_id"] for r in wh.query("SELECT source_id FROM sources ORDER BY source_id")]


def test_a_dry_run_says_what_a_cleanup_frees_and_changes_nothing(aged_lake: dict[str, set[Path]],
                                                                   lake_env: dict[str, str]) -> None:
    files = _parquet_files(lake_env)
    with open_warehouse() as wh:
        snapshots = wh.scalar("SELECT count(*) FROM ducklake_snapshots('lake')")
        done = clean_lake(wh, 7, dry_run=True)
        assert wh.scalar("SELECT count(*) FROM ducklake_snapshots('lake')") == snapshots
    assert done.dry_run and done.snapshots == snapshots - 1  # every one but the current
    assert {Path(p) for p in done.old_files} == aged_lake["deleted"]
    assert {Path(p) for p in done.unreferenced_files} == aged_lake["killed"]
    assert done.bytes == sum(p.stat().st_size for p in aged_lake["deleted"] | aged_lake["killed"])
    assert _parquet_files(lake_env) == files


def test_a_cleanup_deletes_the_files_nobody_reads_and_the_tables_read_as_before(
        aged_lake: dict[str, set[Path]], lake_env: dict[str, str]) -> None:
    before = _rows()
    done = runner.invoke(app, ["warehouse", "clean-lake", "--keep-days", "7"])
    assert done.exit_code == 0, done.output
    assert "expired " in done.output and "deleted 1 file(s) only they used and 1 file(s) no snapshot uses" in done.output
    left = _parquet_files(lake_env)
    assert left == aged_lake["current"] | aged_lake["killed_now"]  # a file written just now may be a commit to come
    assert _rows() == before and len(before) == 300
    with open_warehouse() as wh:
        assert wh.scalar("SELECT count(*) FROM ducklake_snapshots('lake')") == 1
        wh.insert_rows("sources", _sources("after", 2))  # the lake goes on taking writes
    assert len(_rows()) == 302
    again = runner.invoke(app, ["warehouse", "clean-lake"])
    # the snapshot that was current at the first cleanup (ten days old too) goes now; no file was freed since
    assert again.exit_code == 0 and "expired 1 snapshot(s)" in again.output and "deleted 0 file(s)" in again.output
    assert _parquet_files(lake_env) == left


def test_snapshots_younger_than_the_days_kept_stay_readable(lake_env: dict[str, str]) -> None:
    with open_warehouse() as wh:
        wh.insert_rows("sources", _sources("a", 3))
        first = wh.scalar("SELECT max(snapshot_id) FROM ducklake_snapshots('lake')")
        wh.execute("DELETE FROM sources")
        done = clean_lake(wh, 1)
        assert done.snapshots == 0 and done.old_files == []
        assert wh.scalar(f"SELECT count(*) FROM sources AT (VERSION => {first})") == 3  # time travel still works


def test_fewer_than_one_day_kept_is_refused(lake_env: dict[str, str]) -> None:
    with open_warehouse() as wh, pytest.raises(WarehouseError, match="keep_days 0 is below 1"):
        clean_lake(wh, 0)
    done = runner.invoke(app, ["warehouse", "clean-lake", "--keep-days", "0"])
    assert done.exit_code == 2 and "--keep-days" in done.output


def test_a_duckdb_warehouse_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Warehouse(tmp_path / "w.duckdb", publish=False) as wh, pytest.raises(WarehouseError, match="keeps no old files"):
        clean_lake(wh, 7)
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "duckdb")
    done = runner.invoke(app, ["warehouse", "clean-lake"])
    assert done.exit_code == 2
    assert done.output.startswith("error: clean-lake cleans the configured DuckLake") and "keeps no old files" in done.output
