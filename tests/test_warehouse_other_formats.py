"""A warehouse path that names a file of another format is refused by name, and the file is left as it was.

DuckDB opens more than its own files: a CSV, Parquet or JSON file became an in-memory database with
a view over it (a writer's whole run went into memory and was lost at exit), and for a SQLite file
DuckDB tried to download its sqlite extension (a four-line error with a URL; where the download
works, the warehouse's tables would have been written into that SQLite file).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from warehouse import Warehouse, WarehouseError
from warehouse.lake_copy import open_source

REPO = Path(__file__).resolve().parents[1]


def _sqlite(path: Path) -> None:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE claims (text TEXT)")
        con.execute("INSERT INTO claims VALUES ('سد النهضة يكتمل')")
    con.close()


def _csv(path: Path) -> None:
    path.write_text("claim,label\nسد النهضة يكتمل,false\nارتفاع أسعار الوقود,true\n", encoding="utf-8")


def _parquet(path: Path) -> None:
    pq.write_table(pa.table({"claim": ["سد النهضة يكتمل"], "label": ["false"]}), path)


def _json(path: Path) -> None:
    path.write_text('{"claim": "سد النهضة يكتمل", "label": "false"}\n', encoding="utf-8")


FORMATS: dict[str, tuple[Callable[[Path], None], str]] = {
    "claims.sqlite": (_sqlite, "a file its sqlite_scanner extension reads"),
    "claims.csv": (_csv, "a data file (CSV, Parquet or JSON), read as a view"),
    "claims.parquet": (_parquet, "a data file (CSV, Parquet or JSON), read as a view"),
    "claims.json": (_json, "a data file (CSV, Parquet or JSON), read as a view"),
}


@pytest.mark.parametrize("read_only", [False, True], ids=["writer", "reader"])
@pytest.mark.parametrize("name", FORMATS)
def test_a_file_of_another_format_is_refused_in_one_line_and_left_unchanged(
        name: str, read_only: bool, tmp_path: Path) -> None:
    path = tmp_path / name
    write, what = FORMATS[name]
    write(path)
    before = path.read_bytes()
    with pytest.raises(WarehouseError) as refused:
        Warehouse(path, read_only=read_only, wait_s=0)
    assert str(refused.value) == (f"warehouse {path} is not a DuckDB database file: DuckDB opens it as {what}; name "
                                  "the warehouse's DuckDB file, or a new file")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no published copy, no write-ahead log


def test_an_in_memory_warehouse_still_opens() -> None:
    with Warehouse(":memory:", publish=False) as wh:
        wh.con.execute("CREATE TABLE t AS SELECT 1 AS a")
        assert wh.scalar("SELECT a FROM t") == 1


def test_a_duckdb_file_and_a_new_path_still_open(tmp_path: Path) -> None:
    for path in (tmp_path / "new.csv", tmp_path / "new.duckdb"):  # a new file is DuckDB's, whatever its name
        with Warehouse(path, publish=False) as wh:
            wh.con.execute("CREATE TABLE t AS SELECT 1 AS a")
        with Warehouse(path, read_only=True) as wh:
            assert wh.scalar("SELECT a FROM t") == 1


def test_migrate_on_a_csv_exits_with_the_line_and_keeps_the_csv(tmp_path: Path) -> None:
    # it was: "a DuckDB database of other data (tables claims, file)", of a CSV file
    path = tmp_path / "claims.csv"
    _csv(path)
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-m", "arastance.cli", "warehouse", "migrate"], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), "ARASTANCE_WAREHOUSE_PATH": str(path),
                               "ARASTANCE_WAREHOUSE_BACKEND": "duckdb"})
    assert done.returncode != 0
    assert f"warehouse {path} is not a DuckDB database file" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert path.read_bytes() == before


def test_copy_to_lake_from_a_sqlite_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "claims.db"
    _sqlite(path)
    with pytest.raises(WarehouseError, match=r"^warehouse .*claims\.db is not a DuckDB database file: DuckDB opens "
                                             r"it as a file its sqlite_scanner extension reads;[^\n]*$"):
        with open_source(path, wait_s=0):
            pass
