"""The access layer: idempotent batches, all-or-nothing transactions, one writer at a time."""

import subprocess
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

import pytest

from warehouse import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse

SOURCES = [
    {"source_id": "araanews", "name": "Araanews", "country": "AE", "kind": "fact_check"},
    {"source_id": "dabegad", "name": "Dabegad", "country": "EG", "kind": "fact_check"},
]


def test_loading_the_same_batch_twice_adds_nothing(warehouse: Warehouse) -> None:
    assert warehouse.insert_rows("sources", SOURCES) == 2
    assert warehouse.insert_rows("sources", SOURCES) == 0
    assert warehouse.scalar("SELECT count(*) FROM sources") == 2


def test_repeated_keys_inside_one_batch_are_stored_once(warehouse: Warehouse) -> None:
    assert warehouse.insert_rows("sources", SOURCES + SOURCES[:1]) == 2


def test_update_mode_overwrites_the_named_columns(warehouse: Warehouse) -> None:
    warehouse.insert_rows("sources", SOURCES)
    changed = [{"source_id": "dabegad", "name": "Dabegad (EG)", "country": "EG", "kind": "fact_check"}]
    assert warehouse.insert_rows("sources", changed, on_conflict="update", update_columns=["name"]) == 0
    assert warehouse.scalar("SELECT name FROM sources WHERE source_id = 'dabegad'") == "Dabegad (EG)"


def test_a_batch_that_fails_midway_leaves_no_rows(warehouse: Warehouse) -> None:
    bad_claim = {  # veracity violates the CHECK constraint
        "claim_id": "c1", "source_id": "araanews", "url": "u", "canonical_url": "u",
        "veracity": "maybe", "first_seen": "2016-01-01", "last_seen": "2016-01-01",
    }
    with pytest.raises(WarehouseError, match="claims"):
        with warehouse.transaction():
            warehouse.insert_rows("sources", SOURCES)
            warehouse.insert_rows("claims", [bad_claim])
    assert warehouse.scalar("SELECT count(*) FROM sources") == 0
    assert warehouse.scalar("SELECT count(*) FROM claims") == 0


def test_unknown_columns_and_tables_are_named(warehouse: Warehouse) -> None:
    with pytest.raises(WarehouseError, match="no column.*'colour'"):
        warehouse.insert_rows("sources", [{"source_id": "x", "colour": "red"}])
    with pytest.raises(WarehouseError, match="no table 'nope'"):
        warehouse.insert_rows("nope", [{"a": 1}])


def test_read_only_connections_refuse_write_batches(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    open_warehouse(path).close()
    with Warehouse(path, read_only=True) as wh:
        with pytest.raises(WarehouseError, match="read-only"):
            with wh.transaction():
                pass


def test_missing_file_opened_read_only_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="does not exist"):
        Warehouse(tmp_path / "absent.duckdb", read_only=True)


def test_a_file_under_a_path_that_says_lock_is_refused_at_once_for_what_it_is(tmp_path: Path) -> None:
    # it was: "lock" anywhere in DuckDB's error counted as another writer's lock, so this file was waited
    # for and reported as "locked by another process", and flows retried it as busy
    bad = tmp_path / "blockchain" / "warehouse.duckdb"
    bad.parent.mkdir()
    bad.write_bytes(b"not a DuckDB database file, whatever its name says " * 200)
    started = time.monotonic()
    with pytest.raises(WarehouseError, match="not a valid DuckDB database file") as refused:
        Warehouse(bad, wait_s=5)
    assert not isinstance(refused.value, WarehouseBusyError) and time.monotonic() - started < 3


def test_a_second_writer_process_waits_then_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    with open_warehouse(path) as wh:
        wh.insert_rows("sources", SOURCES)
        script = textwrap.dedent(f"""
            import sys
            from warehouse import Warehouse, WarehouseBusyError
            try:
                Warehouse({str(path)!r}, wait_s=0.5)
            except WarehouseBusyError as exc:
                print("BUSY", exc)
                sys.exit(3)
        """)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert "locked by another process" in done.stdout
    with Warehouse(path, read_only=True) as wh:  # the file is intact
        assert wh.scalar("SELECT count(*) FROM sources") == 2


def test_a_value_arrow_cannot_convert_names_the_table_column_and_row(warehouse: Warehouse) -> None:
    # it was pyarrow's "object of type <class 'str'> cannot be converted to int", naming none of them
    warehouse.con.execute("CREATE TABLE u (k VARCHAR PRIMARY KEY, v DOUBLE, t TIMESTAMP)")
    rows = [{"k": "c", "v": 1.0, "t": datetime(2024, 1, 1)}, {"k": "d", "v": 2.0, "t": "2024-01-02"},
            {"k": "e", "v": 3.0, "t": datetime(2024, 1, 3)}]
    with pytest.raises(WarehouseError, match=r"to 'u': column 't', row 1 \('2024-01-02'\)"):
        warehouse.insert_rows("u", rows)
    assert warehouse.scalar("SELECT count(*) FROM u") == 0


def test_a_write_whose_commit_meets_a_full_disk_is_a_warehouse_error_and_stores_nothing(tmp_path: Path) -> None:
    # it was (once insert_rows ran in a transaction of its own): DuckDB's own TransactionException from the
    # COMMIT reached the caller, which catches WarehouseError
    from arastance.base.disk_full import full_disk_error
    from helpers_disk import small_disk

    with small_disk(tmp_path, 3) as disk, Warehouse(disk.root / "w.duckdb", publish=False) as wh:
        wh.con.execute("CREATE TABLE t (k VARCHAR PRIMARY KEY, v VARCHAR)")
        wh.con.execute("CHECKPOINT")
        disk.fill(leave=4096)
        with pytest.raises(WarehouseError, match=r"^cannot commit to warehouse .*: .*; nothing of this write was "
                                                 r"stored$") as refused:
            wh.insert_rows("t", [{"k": f"k{i}", "v": "x" * 2000} for i in range(2000)])
        assert full_disk_error(refused.value) is not None  # the CLI still says the disk is full
        disk.free()
        assert wh.scalar("SELECT count(*) FROM t") == 0
