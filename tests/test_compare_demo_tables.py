"""The demo-table comparison (benchmarks/compare_demo_tables.py) on two small warehouses written here.

The script's runs of the demo at two revisions are too slow for the suite; what decides its verdict
is ``compare_warehouses``, tested here on DuckDB files and Parquet exports we write.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from compare_demo_tables import compare_warehouses, report  # noqa: E402

Writer = Callable[[str, list[str]], Path]

CLAIMS = [
    "CREATE TABLE claims (claim_id VARCHAR, url VARCHAR, cleaned_text VARCHAR, run_id VARCHAR, "
    "first_seen TIMESTAMP, published_date DATE, kinds VARCHAR[])",
]


def _rows(run: str, text_of_c2: str = "ب", port: int = 8001, data_dir: str = "/tmp/a") -> list[str]:
    """Two claims as one run writes them: its run id, its clock, its server's port and data directory."""
    return [
        f"INSERT INTO claims VALUES ('c1', 'http://127.0.0.1:{port}/araanews/1', 'أ', '{run}', "
        f"now(), DATE '2016-03-01', ['claim', 'dated'])",
        f"INSERT INTO claims VALUES ('c2', 'file://{data_dir}/pages/2', '{text_of_c2}', '{run}', "
        f"now() - INTERVAL 1 DAY, DATE '2017-05-02', [])",
    ]


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    def write_warehouse(name: str, statements: list[str]) -> Path:
        path = tmp_path / f"{name}.duckdb"
        with duckdb.connect(str(path)) as con:
            for statement in statements:
                con.execute(statement)
        return path

    return write_warehouse


def test_two_runs_of_the_same_code_are_identical(write: Writer) -> None:
    before = write("before", CLAIMS + _rows("run-a", port=8001, data_dir="/tmp/a"))
    after = write("after", CLAIMS + _rows("run-b", port=9002, data_dir="/tmp/b"))
    result = compare_warehouses(before, after, data_dirs=["/tmp/a", "/tmp/b"])
    assert result.identical
    (claims,) = result.tables
    assert (claims.rows_before, claims.rows_after) == (2, 2)
    # run ids and timestamps are left out; a DATE is content and compared
    assert set(claims.ignored_columns) == {"run_id", "first_seen"}
    assert claims.compared_columns == ("claim_id", "url", "cleaned_text", "published_date", "kinds")
    assert "RESULT: 1/1 common tables identical" in report(result)


def test_a_changed_value_is_reported_with_its_row_and_column(write: Writer) -> None:
    before = write("before", CLAIMS + _rows("run-a"))
    after = write("after", CLAIMS + _rows("run-a", text_of_c2="ج"))
    result = compare_warehouses(before, after, data_dirs=["/tmp/a"])
    assert not result.identical
    (claims,) = result.tables
    assert (claims.only_before_rows, claims.only_after_rows) == (1, 1)
    assert claims.example == "claim_id='c2': cleaned_text: 'ب' -> 'ج'"
    assert "differ: claims" in report(result)


def test_a_missing_row_and_a_duplicate_row_differ(write: Writer) -> None:
    before = write("before", CLAIMS + _rows("run-a"))
    after = write("after", CLAIMS + _rows("run-a")[:1] * 2)  # c1 twice, c2 gone: same count
    (claims,) = compare_warehouses(before, after, data_dirs=["/tmp/a"]).tables
    assert (claims.rows_before, claims.rows_after) == (2, 2)
    assert not claims.identical
    assert (claims.only_before_rows, claims.only_after_rows) == (1, 1)


def test_the_data_dir_is_only_ignored_when_given(write: Writer) -> None:
    before = write("before", CLAIMS + _rows("run-a", data_dir="/tmp/a"))
    after = write("after", CLAIMS + _rows("run-a", data_dir="/tmp/b"))
    assert not compare_warehouses(before, after).identical
    assert compare_warehouses(before, after, data_dirs=["/tmp/a", "/tmp/b"]).identical


def test_tables_and_columns_on_one_side_are_reported_not_failed(write: Writer) -> None:
    before = write("before", CLAIMS + _rows("run-a") + ["CREATE TABLE legacy (x INTEGER)"])
    after = write("after", [
        "CREATE TABLE claims (claim_id VARCHAR, url VARCHAR, cleaned_text VARCHAR, run_id VARCHAR, "
        "first_seen TIMESTAMP, published_date DATE, kinds VARCHAR[], note VARCHAR)",
        "CREATE TABLE staging_runs (run_id VARCHAR)",
    ])
    with duckdb.connect(str(after)) as con:  # the same rows, with the new column filled
        for statement in _rows("run-a"):
            con.execute(statement.removesuffix(")") + ", 'n')")
    result = compare_warehouses(before, after, data_dirs=["/tmp/a"])
    assert result.identical
    assert result.only_before == ["legacy"] and result.only_after == ["staging_runs"]
    (claims,) = result.tables
    assert claims.only_after_columns == ("note",) and claims.only_before_columns == ()
    text = report(result)
    assert "tables only before (not compared): legacy" in text
    assert "tables only after (not compared): staging_runs" in text
    assert "claims: columns only before [], only after ['note']" in text


def test_parquet_exports_compare_like_the_files(write: Writer, tmp_path: Path) -> None:
    """The script compares Parquet exports (each side's DuckDB writes its own): same verdict."""
    before = write("before", CLAIMS + _rows("run-a"))
    after = write("after", CLAIMS + _rows("run-a", text_of_c2="ج"))
    exports = []
    for path in (before, after):
        out = tmp_path / f"{path.stem}-parquet"
        out.mkdir()
        with duckdb.connect(str(path), read_only=True) as con:
            con.execute(f"COPY claims TO '{out}/claims.parquet' (FORMAT parquet)")
        exports.append(out)
    result = compare_warehouses(*exports, data_dirs=["/tmp/a"])
    assert [t.table for t in result.tables] == ["claims"]
    assert result.tables[0].example == "claim_id='c2': cleaned_text: 'ب' -> 'ج'"
    assert set(result.tables[0].ignored_columns) == {"run_id", "first_seen"}


PAGES = [
    "CREATE TABLE raw_pages (page_id VARCHAR, url VARCHAR, content_hash VARCHAR)",
    "CREATE TABLE claims (claim_id VARCHAR, page_id VARCHAR)",
]


def _pages(port: int, page_of_c1: str = "1") -> list[str]:
    """Pages whose ids hash the URL, port included (as the crawler's do), and a claim on one of them."""
    return [
        f"INSERT INTO raw_pages VALUES ('p{port}-1', 'http://127.0.0.1:{port}/a/1', 'h1'), "
        f"('p{port}-2', 'http://127.0.0.1:{port}/a/2', 'h2')",
        f"INSERT INTO claims VALUES ('c1', 'p{port}-{page_of_c1}')",
    ]


def test_page_ids_are_compared_through_the_page_they_name(write: Writer) -> None:
    before = write("before", PAGES + _pages(8001))
    same = write("same", PAGES + _pages(9002))
    assert compare_warehouses(before, same).identical  # another port, so other ids: the same pages
    moved = write("moved", PAGES + _pages(9002, page_of_c1="2"))
    result = compare_warehouses(before, moved)
    assert [t.table for t in result.tables if not t.identical] == ["claims"]
    (claims,) = [t for t in result.tables if t.table == "claims"]
    assert claims.example == ("claim_id='c1': page_id: ('key', 'http://127.0.0.1:PORT/a/1', 'h1') -> "
                              "('key', 'http://127.0.0.1:PORT/a/2', 'h2')")
