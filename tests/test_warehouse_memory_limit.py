"""``warehouse_memory_limit``: DuckDB's memory for the warehouse in each process, checked at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from arastance.config import SettingsError, load_settings
from arastance.config.settings import memory_bytes
from warehouse import Warehouse, open_warehouse
from warehouse.connection import WarehouseError, limit_memory
from warehouse.publish import open_published, open_report

LIMIT = "current_setting('memory_limit')"


@pytest.mark.parametrize(("size", "expected"), [
    ("4GB", 4 * 10**9), ("512 MiB", 512 * 2**20), (" .5gb ", 5 * 10**8), ("1.5TiB", 3 * 2**39),
    ("128MB", 128 * 10**6), ("4G", None), ("٤GB", None), ("4\u00a0GB", None), ("\t4GB", None), ("100 bytes", None), ("-1GB", None), ("4 gigs", None), ("", None),
])
def test_sizes_are_read_as_duckdb_reads_them(size: str, expected: int | None) -> None:
    assert memory_bytes(size) == expected
    if expected is not None:  # DuckDB takes each size this reads, and the same way
        con = duckdb.connect()
        con.execute(f"SET memory_limit = '{size}'")
        assert con.execute("SELECT current_setting('memory_limit')").fetchone() == \
            duckdb.connect(config={"memory_limit": f"{expected}B"}).execute(f"SELECT {LIMIT}").fetchone()


@pytest.mark.parametrize(("given", "says"), [
    ("4 gigs", "'4 gigs' is not a size: a number and one of KB, MB, GB, TB"),
    ("75%", "'75%' is not a size"),
    ("64MB", "'64MB' is below 128MB"),
    ("99999999TB", "'99999999TB' is refused by DuckDB: Parser Error: Memory value out of range"),
])
def test_a_bad_limit_stops_every_command_naming_the_setting(monkeypatch: pytest.MonkeyPatch, given: str,
                                                            says: str) -> None:
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_MEMORY_LIMIT", given)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert "invalid setting warehouse_memory_limit (ARASTANCE_WAREHOUSE_MEMORY_LIMIT)" in str(raised.value)
    assert says in str(raised.value)


def test_writers_and_readers_take_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    with open_warehouse() as wh:
        default = wh.scalar(f"SELECT {LIMIT}")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_MEMORY_LIMIT", "300MiB")
    with open_warehouse() as wh:
        assert wh.scalar(f"SELECT {LIMIT}") == "300.0 MiB" != default
    primary = load_settings().warehouse
    for opened in (open_published(primary), open_report(primary)):
        with opened as reader:
            assert reader.read_only and reader.scalar(f"SELECT {LIMIT}") == "300.0 MiB"


def test_without_the_setting_duckdb_keeps_its_own_default() -> None:
    with open_warehouse() as wh:
        assert wh.scalar(f"SELECT {LIMIT}") == duckdb.connect().execute(f"SELECT {LIMIT}").fetchone()[0]


def test_the_sql_command_runs_within_the_limit() -> None:
    open_warehouse().close()
    here = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", "from arastance.cli import main; main()", "sql", "--format", "csv",
                           f"SELECT {LIMIT} AS memory_limit"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ARASTANCE_WAREHOUSE_MEMORY_LIMIT": "1GiB", "PYTHONPATH": here})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["memory_limit", "1.0 GiB"]


def test_a_limit_duckdb_refuses_closes_the_connection_and_names_the_setting(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    with pytest.raises(WarehouseError, match=r"warehouse_memory_limit '1 parsec' was refused by DuckDB: .*Unknown unit"):
        limit_memory(con, "1 parsec")
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")
    Warehouse(tmp_path / "w.duckdb").close()  # the file is free for the next writer
