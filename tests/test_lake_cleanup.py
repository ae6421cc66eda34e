"""``arastance warehouse clean-lake``: a DuckLake's old snapshots expired and the files nobody reads deleted.

On a real PostgreSQL catalog (:mod:`helpers_lake`). A DuckLake never deletes a data file by itself,
so its data path grew by every rewritten row and every write killed before its commit (a killed
copy-to-lake left its Parquet files there). The snapshots are made old by moving their times back
in the catalog, as days would.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_lake import lake_env, postgres, stoppable_lake  # noqa: F401 - the fixtures
from helpers_postgres import PostgresServer
from helpers_prefect import PrefectServer, api_client, prefect_server
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, FlowFilter, FlowFilterName
from typer.testing import CliRunner

from arastance.cli import app
from flows.clean_lake import clean_lake as clean_lake_flow
from warehouse import Warehouse, WarehouseError, open_warehouse
from warehouse.lake_cleanup import clean_lake

runner = CliRunner()


def _sources(prefix: str, n: int) -> list[dict[str, str]]:
    return [{"source_id": f"{prefix}{i}.example", "name": "مصدر", "kind": "news"} for i in range(n)]


def _parquet_files(lake_env: dict[str, str]) -> set[Path]:
    return set(Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"]).rglob("*.parquet"))


def _age_snapshots(wh: Warehouse) -> None:
    """Move every snapshot of the lake ten days back, as ten quiet days would."""
    wh.con.execute("CALL postgres_execute('lake_lock', "
                   "'UPDATE ducklake_snapshot SET snapshot_time = snapshot_time - interval ''10 days''')")


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
        _age_snapshots(wh)
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
        done = clean_lake(wh, 7, dry_run=True, delete_unreferenced=True)
        assert wh.scalar("SELECT count(*) FROM ducklake_snapshots('lake')") == snapshots
    assert done.dry_run and done.snapshots == snapshots - 1  # every one but the current
    assert {Path(p) for p in done.old_files} == aged_lake["deleted"]
    assert {Path(p) for p in done.unreferenced_files} == aged_lake["killed"]
    assert done.bytes == sum(p.stat().st_size for p in aged_lake["deleted"] | aged_lake["killed"])
    assert _parquet_files(lake_env) == files


def test_a_cleanup_deletes_the_files_nobody_reads_and_the_tables_read_as_before(
        aged_lake: dict[str, set[Path]], lake_env: dict[str, str]) -> None:
    before = _rows()
    done = runner.invoke(app, ["warehouse", "clean-lake", "--keep-days", "7", "--delete-unreferenced"])
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
    # the snapshot current until the insert is kept, however old: a reader may have begun on it
    assert again.exit_code == 0 and "expired 0 snapshot(s)" in again.output and "deleted 0 file(s)" in again.output
    assert _parquet_files(lake_env) == left


def test_a_reader_on_the_snapshot_current_until_a_moment_ago_reads_on(lake_env: dict[str, str]) -> None:
    # it was: that snapshot, made ten days ago (the lake was quiet since), was expired as "older than 7
    # days" though it was current a minute earlier, and the reader's second query met a deleted file
    with open_warehouse() as wh:
        wh.insert_rows("sources", _sources("s", 300))
        _age_snapshots(wh)
    with open_warehouse(read_only=True) as reader:
        reader.con.execute("BEGIN TRANSACTION")  # a long export: it reads the snapshot current now
        assert reader.scalar("SELECT count(*) FROM sources WHERE name = 'مصدر' AND source_id < 's2'") == 112
        with open_warehouse() as wh:
            wh.execute("UPDATE sources SET name = 'مصدر آخر'")  # a load rewrites the rows: a new file
            done = clean_lake(wh, 7)
        assert done.old_files == []
        assert reader.scalar("SELECT count(*) FROM sources WHERE name = 'مصدر' AND source_id >= 's2'") == 188
        reader.con.execute("COMMIT")


def test_files_under_the_data_path_that_are_not_the_lakes_own_are_kept(
        postgres: PostgresServer, lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: DuckLake's orphan deletion took every Parquet file under the data path that the catalog
    # did not list: a backup kept there, and the live data of a second lake whose data path lies inside
    data_path = Path(lake_env["ARASTANCE_WAREHOUSE_DATA_PATH"])
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", postgres.create_database(f"staging_{uuid.uuid4().hex[:12]}"))
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(data_path / "staging"))
    with open_warehouse() as staging:
        staging.insert_rows("sources", _sources("staged", 300))
    backup = data_path / "backup" / "claims_export.parquet"
    backup.parent.mkdir(parents=True)
    backup.write_bytes(next(data_path.rglob("*.parquet")).read_bytes())
    others = set(data_path.rglob("*.parquet"))
    two_hours_ago = time.time() - 7200
    for path in others:
        os.utime(path, (two_hours_ago, two_hours_ago))
    for name, value in lake_env.items():
        monkeypatch.setenv(name, value)
    with open_warehouse() as wh:
        wh.insert_rows("sources", _sources("s", 300))
        assert clean_lake(wh, 7, delete_unreferenced=True).unreferenced_files == []
    assert others <= set(data_path.rglob("*.parquet"))


def test_without_being_asked_no_unreferenced_file_is_deleted(
        postgres: PostgresServer, lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: a second catalog sharing the data path wrote its files into the same table folders, named
    # alike, and this lake's cleanup deleted them as its own unreferenced files (that lake then failed to read)
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", postgres.create_database(f"other_{uuid.uuid4().hex[:12]}"))
    with open_warehouse() as other:
        other.insert_rows("sources", _sources("other", 300))
    theirs = _parquet_files(lake_env)
    two_hours_ago = time.time() - 7200
    for path in theirs:
        os.utime(path, (two_hours_ago, two_hours_ago))
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", lake_env["ARASTANCE_WAREHOUSE_CATALOG_URL"])
    with open_warehouse() as wh:
        wh.insert_rows("sources", _sources("s", 300))
        _age_snapshots(wh)
    done = runner.invoke(app, ["warehouse", "clean-lake"])
    assert done.exit_code == 0, done.output
    assert "files no snapshot uses were not looked for (--delete-unreferenced" in done.output
    assert theirs <= _parquet_files(lake_env)


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


def test_a_catalog_holding_no_lake_is_refused_and_given_none(postgres: PostgresServer, lake_env: dict[str, str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the command opened the lake as a writer, which made a lake there (28 tables), dry run or not
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", postgres.create_database(f"empty_{uuid.uuid4().hex[:12]}"))
    for _ in range(2):  # the second run finds no lake either
        done = runner.invoke(app, ["warehouse", "clean-lake", "--dry-run"])
        assert done.exit_code == 2 and "cannot attach the DuckLake warehouse" in done.output, done.output


def test_a_catalog_lost_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: a 54-line traceback, in which the ROLLBACK's own error replaced the first one
    with stoppable_lake(tmp_path, monkeypatch, "lake") as server:  # a server of its own, to stop
        with open_warehouse() as wh:
            wh.insert_rows("sources", _sources("s", 300))
            server.stop()  # a restart, a network cut
            with pytest.raises(WarehouseError) as lost:
                clean_lake(wh, 7)
    assert str(lost.value).startswith(f"cleaning {wh.location} failed: ") and "\n" not in str(lost.value)
    assert str(lost.value).endswith("; what it had not deleted yet is kept")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def test_the_flow_cleans_the_lake_and_publishes_what_it_freed(aged_lake: dict[str, set[Path]],
                                                               lake_env: dict[str, str], server: PrefectServer) -> None:
    with api_client(server) as client:
        done = clean_lake_flow(keep_days=7, delete_unreferenced=True)
        [run] = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["clean_lake"])))
        published = {a.key: a.data for a in client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))}
    assert (done["old_files"], done["unreferenced_files"]) == (1, 1) and not done["dry_run"]
    assert _parquet_files(lake_env) == aged_lake["current"] | aged_lake["killed_now"]
    rows = published["lake-cleanup"]
    rows = json.loads(rows) if isinstance(rows, str) else rows
    figures = {r["figure"]: r["value"] for r in rows}
    assert figures["files only they used, deleted"] == 1 and figures["files no snapshot uses, deleted"] == 1
    assert figures["snapshots expired"] == done["snapshots"] > 0


def test_the_flow_on_a_duckdb_warehouse_fails_saying_there_is_nothing_to_clean(
        server: PrefectServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "duckdb")
    with api_client(server), pytest.raises(WarehouseError, match="a DuckDB warehouse file keeps no old files"):
        clean_lake_flow(keep_days=7)
