"""``arastance sql -f parquet -o FILE`` and ``-f table`` (to a file or a pipe) on results too large to hold:
Parquet in row groups of a bounded size, the aligned table from a spill file that never outlives the command."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from uuid import UUID

import duckdb
import pyarrow.parquet as pq
import pytest
from helpers_disk import small_disk

from arastance.cli.result_output import ResultFormat, prepare_output, write_result
from warehouse import open_warehouse

HERE = str(Path(__file__).resolve().parents[1])  # this checkout's code, also where another one's venv runs it
ARTICLE = "نص المقال " * 600  # 11 KB of UTF-8, as a stored article
#: Fails on row 3,000 of 5,000, after DuckDB has handed over the first rows.
FAILS_PART_WAY = "SELECT i, CAST(CASE WHEN i < 3000 THEN i::VARCHAR ELSE 'not a number' END AS INTEGER) AS n FROM range(5000) t(i)"


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB file with ``articles``: 6,200 rows of 11 KB, each its own text; results go to ``tmp_path/out``."""
    (tmp_path / "db").mkdir()
    (tmp_path / "out").mkdir()
    con = duckdb.connect(str(tmp_path / "db" / "results.duckdb"))
    con.execute("CREATE TABLE articles AS SELECT i AS id, i::VARCHAR || ? AS body FROM range(6200) t(i)", [ARTICLE])
    return con


def test_parquet_of_long_texts_is_written_in_row_groups_far_smaller_than_the_whole(con: duckdb.DuckDBPyConnection,
                                                                                  tmp_path: Path) -> None:
    # it was one row group of the whole result (DuckDB's 122,880 rows: over a GB of articles), held before written
    out = tmp_path / "out" / "articles.parquet"
    prepare_output(con, ResultFormat.parquet)
    assert write_result(con.sql("SELECT id, body FROM articles"), ResultFormat.parquet, out=out) == 6200
    meta = pq.read_metadata(out)
    sizes = [meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)]
    assert meta.num_rows == 6200 and len(sizes) >= 3 and max(sizes) < sum(sizes) / 2.5, sizes
    written = pq.read_table(out)
    assert written.column("id").to_pylist() == list(range(6200))  # in the order of the table
    assert con.execute("SELECT count(*) FROM read_parquet(?) p JOIN articles a USING (id) WHERE p.body = a.body",
                       [str(out)]).fetchone() == (6200,)


def test_parquet_keeps_each_type_and_value_and_the_order_of_a_sorted_or_large_result(con: duckdb.DuckDBPyConnection,
                                                                                      tmp_path: Path) -> None:
    out = tmp_path / "out" / "types.parquet"
    prepare_output(con, ResultFormat.parquet)
    query = ("SELECT DATE '2016-05-01' AS day, INTERVAL '1 month 2 days 3 hours' AS span, 2.50::DECIMAL(5, 2) AS d, "
             "12345678901234567890123::HUGEINT AS h, '12345678-1234-5678-1234-567812345678'::UUID AS u, "
             "'\\x00\\xFF'::BLOB AS b, [1, NULL] AS l, {'a': 1, 'b': 'x'} AS s, MAP {'k': 1} AS m, "
             "NULL::VARCHAR AS missing")
    assert write_result(con.sql(query), ResultFormat.parquet, out=out) == 1
    back = duckdb.connect().sql(f"SELECT * FROM read_parquet('{out}')")
    assert [str(t) for t in back.types] == [  # as DuckDB wrote them before: a HUGEINT becomes a DOUBLE
        "DATE", "INTERVAL", "DECIMAL(5,2)", "DOUBLE", "UUID", "BLOB", "INTEGER[]", "STRUCT(a INTEGER, b VARCHAR)",
        "MAP(VARCHAR, INTEGER)", "VARCHAR"]
    assert back.fetchall() == [(date(2016, 5, 1), timedelta(days=32, hours=3), Decimal("2.50"), 1.2345678901234568e22,
                                UUID("12345678-1234-5678-1234-567812345678"), b"\x00\xff", [1, None],
                                {"a": 1, "b": "x"}, {"k": 1}, None)]
    con.execute("CREATE TABLE shuffled AS SELECT i FROM range(300000) t(i) ORDER BY hash(i)")  # several row groups
    for query in ("SELECT i FROM shuffled", "SELECT id FROM articles ORDER BY id DESC"):
        write_result(con.sql(query), ResultFormat.parquet, out=out)
        assert pq.read_table(out).column(0).to_pylist() == [r[0] for r in con.sql(query).fetchall()]


def test_a_parquet_write_that_fails_part_way_keeps_the_earlier_file(
        con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    out = tmp_path / "out" / "kept.parquet"
    out.write_text("an earlier result\n", encoding="utf-8")
    prepare_output(con, ResultFormat.parquet)
    with pytest.raises(duckdb.ConversionException, match="not a number"):
        write_result(con.sql(FAILS_PART_WAY), ResultFormat.parquet, out=out)
    assert out.read_text(encoding="utf-8") == "an earlier result\n"
    assert [p.name for p in out.parent.iterdir()] == ["kept.parquet"]


def test_table_of_more_rows_than_a_batch_is_aligned_on_the_widest_value_anywhere(con: duckdb.DuckDBPyConnection,
                                                                                 tmp_path: Path) -> None:
    # rows are fetched 500 at a time: the widest value, in the third batch, still sets the column's width
    query = ("SELECT i AS n, CASE WHEN i = 1150 THEN 'the widest value of them all' WHEN i = 3 THEN NULL "
             "WHEN i = 5 THEN 'a' || chr(9) || 'b' || chr(10) || 'c' || chr(8232) || 'd' ELSE 'x' END AS text, 'z' AS z "
             "FROM range(1200) t(i) ORDER BY i")
    out = tmp_path / "out" / "result.table"
    assert write_result(con.sql(query), ResultFormat.table, out=out) == 1200
    lines = out.read_text(encoding="utf-8").split("\n")  # a LINE SEPARATOR (U+2028) stays in its row
    assert lines[:3] == ["n     text                          z", "----  ----------------------------  -",
                         "0     x                             z"]
    assert lines[5] == "3                                   z" and lines[7] == "5     a\\tb\\nc\u2028d                     z"
    assert lines[1152] == "1150  the widest value of them all  z"
    assert lines[1201] == "1199  x                             z" and lines[1202:] == [""]
    assert [p.name for p in out.parent.iterdir()] == ["result.table"]  # no spill left


def _sql(*args: str, tmp: Path, **popen: object) -> subprocess.Popen:
    """The installed command, with its temporary directory ``tmp`` and standard output a pipe."""
    command = [sys.executable, "-c", "from arastance.cli import main; main()", "sql", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": HERE, "TMPDIR": str(tmp)}, **popen)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads a process's open files from /proc")
def test_piped_table_is_aligned_from_a_spill_file_that_goes_with_the_command(tmp_path: Path) -> None:
    # it was: every row fetched into memory to size the columns (a million article texts at once)
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _sql("SELECT i AS n, repeat('ن', 4000) AS text FROM range(5000) t(i)", tmp=tmp)  # 40 MB: beyond memory
    try:
        header = proc.stdout.readline()  # written once every row is spilled; the rest fills the pipe and waits
        open_files = [os.readlink(fd) for fd in Path(f"/proc/{proc.pid}/fd").iterdir()]
        rest = proc.stdout.read()
    finally:
        proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert [f for f in open_files if f.startswith(f"{tmp}/")], open_files  # the spill, in the temporary directory
    assert header.split() == ["n", "text"] and len(rest.splitlines()) == 5001
    assert rest.splitlines()[-1] == "4999  " + "ن" * 4000
    assert list(tmp.iterdir()) == []


def test_a_table_that_fails_part_way_leaves_no_spill_and_keeps_an_earlier_out_file(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    kept = out_dir / "kept.txt"
    kept.write_text("an earlier result\n", encoding="utf-8")
    for args in (("--out", str(kept)), ()):
        proc = _sql("--format", "table", *args, FAILS_PART_WAY, tmp=tmp)
        stdout, stderr = proc.communicate(timeout=120)
        # one line, the query's own error (DuckDB wraps an error met after the first rows in another)
        assert proc.returncode == 2 and stderr.splitlines()[0] == (
            "error: SQL failed: Conversion Error: Could not convert string 'not a number' to INT32"), stderr
        assert "pending query result" not in stderr and "Traceback" not in stderr
        assert stdout == ""  # nothing of the rows before the failing one
        assert kept.read_text(encoding="utf-8") == "an earlier result\n"
        assert [p.name for p in out_dir.iterdir()] == ["kept.txt"] and list(tmp.iterdir()) == []
    done = _sql("--format", "table", "--out", str(kept), "SELECT 1 AS n", tmp=tmp)
    assert done.communicate(timeout=120)[0] == "" and done.returncode == 0
    assert kept.read_text(encoding="utf-8") == "n\n-\n1\n"
    assert [p.name for p in out_dir.iterdir()] == ["kept.txt"] and list(tmp.iterdir()) == []


def test_a_temporary_directory_too_small_for_the_tables_spill_is_one_line_naming_it(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    out = tmp_path / "kept.txt"
    out.write_text("an earlier result\n", encoding="utf-8")
    with small_disk(tmp_path, 4) as disk:
        disk.fill(leave=1 << 20)  # room to be chosen as the temporary directory, not for the rows
        for args in (("--out", str(out)), ()):
            proc = _sql("--format", "table", *args, "SELECT repeat('x', 10000) AS t FROM range(5000)", tmp=disk.root)
            stdout, stderr = proc.communicate(timeout=120)
            assert proc.returncode == 2 and stdout == "", stderr
            assert stderr.splitlines() == [  # it was: "no space left ... under the data directory or an --out path"
                f"error: the table's rows could not be kept in the temporary directory {disk.root} to size its "
                "columns (No space left on device); set TMPDIR to a disk with room, or use --format csv or json, "
                "which need none"]
            assert out.read_text(encoding="utf-8") == "an earlier result\n"
            assert sorted(p.name for p in disk.root.iterdir()) == [".filler"]


def test_a_small_table_needs_no_disk_beyond_its_output(tmp_path: Path) -> None:
    # a table of a few MB is kept in memory to size its columns, as it always was: a disk with room for the
    # output only, or a full temporary directory, does not stop it
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    query = "SELECT i, repeat('x', 1000) AS t FROM range(3000) t(i)"
    with small_disk(tmp_path, 5) as disk:
        disk.fill(leave=(3 << 20) + (1 << 19))  # the 3 MB table and a little more
        proc = _sql("--format", "table", "--out", str(disk.root / "out.txt"), query, tmp=disk.root)
        assert proc.communicate(timeout=120)[0] == "" and proc.returncode == 0
        assert len((disk.root / "out.txt").read_text(encoding="utf-8").splitlines()) == 3002
        disk.fill(leave=0)
        piped = _sql("--format", "table", query, tmp=disk.root)
        stdout = piped.communicate(timeout=120)[0]
        assert piped.returncode == 0 and len(stdout.splitlines()) == 3002


def test_parquet_holds_the_rows_the_query_gives_in_every_format(tmp_path: Path) -> None:
    # it was: the command's own temporary view among SHOW TABLES' rows, only in Parquet
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb") as wh:
        tables = wh.scalar("SELECT count(*) FROM (SHOW TABLES)")
    for query in ("SHOW TABLES", "SELECT table_name FROM information_schema.tables ORDER BY ALL"):
        out = tmp_path / "tables.parquet"
        proc = _sql("--format", "parquet", "--out", str(out), query, tmp=tmp_path)
        assert proc.communicate(timeout=120)[0] == "" and proc.returncode == 0
        csv = _sql("--format", "csv", query, tmp=tmp_path).communicate(timeout=120)[0]
        names = pq.read_table(out).column(0 if query == "SHOW TABLES" else "table_name").to_pylist()
        assert len(names) == len(csv.splitlines()) - 1 and names == [line.split(",")[0] for line in csv.splitlines()[1:]]
    assert len(names) >= tables > 0


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_a_query_failing_after_rows_were_streamed_is_one_line_with_its_own_error(tmp_path: Path, fmt: str) -> None:
    # it was two lines, DuckDB's "unsuccessful or closed pending query result" first, the cause second
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    query = "SELECT CASE WHEN range < 150000 THEN range ELSE error('boom at ' || range) END AS n FROM range(200000)"
    stdout, stderr = _sql("--format", fmt, query, tmp=tmp_path).communicate(timeout=120)
    assert stderr.splitlines() == ["error: SQL failed: Invalid Input Error: boom at 150000"]


def test_a_scripts_own_settings_do_not_undo_the_parquet_write(tmp_path: Path) -> None:
    # the command's settings came before the script's statements, whose SET then made the write fail
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    out = tmp_path / "n.parquet"
    proc = _sql("--format", "parquet", "--out", str(out),
                "SET preserve_insertion_order = true; SELECT i FROM range(5000) t(i)", tmp=tmp_path)
    stderr = proc.communicate(timeout=120)[1]
    assert proc.returncode == 0, stderr
    assert pq.read_table(out).column("i").to_pylist() == list(range(5000))


def test_an_error_that_only_quotes_duckdbs_wrapper_is_shown_whole(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    own = "Attempting to execute an unsuccessful or closed pending query result"
    stderr = _sql("--format", "csv", f"SELECT error('{own}' || chr(10) || 'my second line')",
                  tmp=tmp_path).communicate(timeout=120)[1]
    assert stderr.splitlines() == [f"error: SQL failed: Invalid Input Error: {own}", "my second line"]
    stderr = _sql("--format", "csv", f'SELECT "{own}" FROM range(1)', tmp=tmp_path).communicate(timeout=120)[1]
    assert stderr.splitlines()[0] == f'error: SQL failed: Binder Error: Referenced column "{own}" not found in FROM clause!'
