"""A command's result is never written over the warehouse, a database or something that is no file.

``arastance sql … -o <data_dir>/warehouse.duckdb`` replaced the warehouse with a 4-byte CSV (with
``--write``, the readers' copy was then published from it too), ``retrieve compare --out`` truncated
the warehouse to a Markdown report, a FIFO named as the file blocked either command for ever, and
``sql -f parquet -o /dev/stdout`` at a terminal wrote the Parquet bytes to it raw.
"""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from warehouse import open_warehouse
from warehouse.publish import published_path

runner = CliRunner()


@pytest.fixture
def warehouse() -> Path:
    """The configured warehouse, with a source stored and its readers' copy published."""
    path = load_settings().warehouse
    with open_warehouse(path) as wh:
        wh.insert_rows("sources", [{"source_id": "a.example", "name": "مصدر", "kind": "news"}])
    return path


def _refused(args: list[str], message: str) -> None:
    done = runner.invoke(app, args)
    assert done.exit_code == 2, done.output
    assert message in done.output.replace("\n", ""), done.output


@pytest.mark.parametrize("command", [["sql", "SELECT 1 AS a", "-f", "csv"], ["sql", "--write", "SELECT 1 AS a"],
                                     ["retrieve", "compare"]], ids=["sql", "sql --write", "retrieve compare"])
@pytest.mark.parametrize("target", ["writer's file", "published copy", "write-ahead log"])
def test_no_file_of_the_warehouse_is_written_over(warehouse: Path, command: list[str], target: str) -> None:
    out = {"writer's file": warehouse, "published copy": published_path(warehouse),
           "write-ahead log": warehouse.with_name(f"{warehouse.name}.wal")}[target]
    files = {p: p.read_bytes() for p in (warehouse, published_path(warehouse))}
    _refused([*command, "--out", str(out)], f"--out {out} is a file of the warehouse {warehouse}")
    assert {p: p.read_bytes() for p in files} == files
    assert not warehouse.with_name(f"{warehouse.name}.wal").exists()  # no log for DuckDB to replay a result from
    with open_warehouse(warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM sources") == 1


def test_a_link_to_the_warehouse_is_the_warehouse(warehouse: Path, tmp_path: Path) -> None:
    link = tmp_path / "result.csv"
    link.symlink_to(warehouse)
    _refused(["sql", "SELECT 1 AS a", "-f", "csv", "--out", str(link)], "is a file of the warehouse")


def test_another_duckdb_database_is_not_replaced(warehouse: Path, tmp_path: Path) -> None:
    other = tmp_path / "benchmark.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE t AS SELECT 42 AS answer")
    before = other.read_bytes()
    _refused(["sql", "SELECT 1 AS a", "-f", "csv", "--out", str(other)], f"--out {other} is a DuckDB database")
    assert other.read_bytes() == before


def test_a_fifo_no_process_reads_is_refused_rather_than_waited_on(warehouse: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = runner.invoke(app, ["sql", "SELECT 1 AS a", "-f", "csv", "--out", str(fifo)])
    assert done.exit_code == 2
    assert done.output == f"error: a FIFO that no process reads, where a write would wait for ever; start its reader " \
                          f"first: {fifo}\n"


def test_a_fifo_being_read_and_a_device_take_the_result(warehouse: Path, tmp_path: Path) -> None:
    # as `--out >(gzip > r.gz)` and `--out /dev/null` give them: written as they are, not renamed over
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reading process, there before the command
    try:
        done = runner.invoke(app, ["sql", "SELECT source_id FROM sources", "-f", "csv", "--out", str(fifo)])
        assert done.exit_code == 0, done.output
        assert os.read(reader, 4096) == b"source_id\na.example\n" and fifo.is_fifo()
    finally:
        os.close(reader)
    assert runner.invoke(app, ["sql", "SELECT 1 AS a", "-f", "csv", "--out", "/dev/null"]).exit_code == 0
    assert Path("/dev/null").is_char_device()


def test_a_file_in_the_lakes_data_path_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lake = tmp_path / "lake"
    (lake / "main" / "claims").mkdir(parents=True)
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", "postgres:dbname=lake host=127.0.0.1 port=1")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(lake))
    out = lake / "main" / "claims" / "ducklake-0001.parquet"
    _refused(["sql", "SELECT 1 AS a", "-f", "parquet", "--out", str(out)],
             f"--out {out} lies in the DuckLake's data path {lake}")
    assert not out.exists()


def test_an_ordinary_file_is_still_replaced_whole(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "result.csv"
    out.write_text("an earlier result\n", encoding="utf-8")
    done = runner.invoke(app, ["sql", "SELECT source_id FROM sources", "-f", "csv", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert out.read_text(encoding="utf-8") == "source_id\na.example\n"


def test_an_open_descriptor_is_written_at_its_offset_and_never_replaced(warehouse: Path, tmp_path: Path) -> None:
    # `-o /dev/stdout >> result.csv`: as root, the result replaced the system's /dev/stdout link with a file,
    # and the file the shell had opened kept only what came before; the link here stands for /dev/stdout
    shell_file = tmp_path / "result.csv"
    fd = os.open(shell_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, b"header\n")
        stdout = tmp_path / "stdout"
        stdout.symlink_to(f"/proc/self/fd/{fd}")
        for out in (stdout, Path(f"/dev/fd/{fd}")):
            done = runner.invoke(app, ["sql", "SELECT source_id FROM sources", "-f", "csv", "--out", str(out)])
            assert done.exit_code == 0, done.output
        os.write(fd, b"footer\n")  # written after the results, at the descriptor's own offset
    finally:
        os.close(fd)
    assert stdout.is_symlink()
    assert shell_file.read_text(encoding="utf-8") == "header\nsource_id\na.example\nsource_id\na.example\nfooter\n"


def test_a_descriptor_not_open_or_open_for_reading_is_refused(warehouse: Path, tmp_path: Path) -> None:
    fd = os.open("/dev/null", os.O_RDONLY)
    os.close(fd)  # a number this process holds no descriptor for
    _refused(["sql", "SELECT 1 AS a", "-f", "csv", "--out", f"/dev/fd/{fd}"],
             f"--out /dev/fd/{fd} names descriptor {fd}, which is not open")
    kept = tmp_path / "input.txt"
    kept.write_text("kept\n", encoding="utf-8")
    reading = os.open(kept, os.O_RDONLY)  # `-o /dev/stdin < input.txt`: a traceback once the query had run
    try:
        _refused(["sql", "SELECT 1 AS a", "-f", "parquet", "--out", f"/dev/fd/{reading}"],
                 f"--out /dev/fd/{reading} names descriptor {reading}, which is open for reading only")
    finally:
        os.close(reading)
    assert kept.read_text(encoding="utf-8") == "kept\n"


def test_a_loop_of_links_is_refused_in_one_line(warehouse: Path, tmp_path: Path) -> None:
    # it was: "RuntimeError: Symlink loop" and a traceback
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    _refused(["sql", "SELECT 1 AS a", "-f", "csv", "--out", str(tmp_path / "a")],
             f"--out {tmp_path / 'a'} is a loop of symbolic links")


def test_parquet_goes_whole_into_a_device_or_a_fifo(warehouse: Path, tmp_path: Path) -> None:
    # it was written, then read back from the device (a traceback: "Parquet file size is 0 bytes")
    assert runner.invoke(app, ["sql", "SELECT 1 AS a", "-f", "parquet", "--out", "/dev/null"]).exit_code == 0
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        done = runner.invoke(app, ["sql", "SELECT source_id FROM sources", "-f", "parquet", "--out", str(fifo)])
        assert done.exit_code == 0, done.output
        (tmp_path / "got.parquet").write_bytes(os.read(reader, 1 << 16))
    finally:
        os.close(reader)
    assert duckdb.sql(f"SELECT source_id FROM '{tmp_path / 'got.parquet'}'").fetchall() == [("a.example",)]


def test_a_link_is_written_through_and_kept(warehouse: Path, tmp_path: Path) -> None:
    target = tmp_path / "kept" / "result.csv"
    target.parent.mkdir()
    target.write_text("an earlier result\n", encoding="utf-8")
    link = tmp_path / "latest.csv"
    link.symlink_to(target)
    done = runner.invoke(app, ["sql", "SELECT source_id FROM sources", "-f", "csv", "--out", str(link)])
    assert done.exit_code == 0, done.output
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "source_id\na.example\n"
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "missing" / "result.csv")
    _refused(["sql", "SELECT 1 AS a", "-f", "csv", "--out", str(dangling)],
             f"--out {dangling}: {tmp_path / 'missing'} does not exist")


# the title it sets and a cleared screen, as a stored claim may hold them
ESCAPES = "ادعاء\x1b]0;PWNED-TITLE\x07\x1b[2J"
ESCAPES_SQL = " || ".join(f"chr({ord(c)})" for c in ESCAPES)


def _sql_process(args: list[str], stdout: int) -> subprocess.CompletedProcess:
    """``arastance sql`` as its own process, standard output ``stdout`` (a terminal, a pipe), stderr piped."""
    here = str(Path(__file__).resolve().parents[1])  # this checkout's code, also where another one's venv runs it
    return subprocess.run([sys.executable, "-c", "from arastance.cli import main; main()", "sql", *args],
                          stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE, timeout=120,
                          env={**os.environ, "PYTHONPATH": here})


def _drained(leader: int) -> bytes:
    """What the terminal whose leader end is ``leader`` was given, without waiting for more."""
    os.set_blocking(leader, False)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # nothing more (EAGAIN), or no process holds the terminal any more (EIO)
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal's ``(leader, follower)`` descriptors, closed afterwards."""
    leader, follower = pty.openpty()
    try:
        yield leader, follower
    finally:
        for fd in (leader, follower):
            os.close(fd)


def test_parquet_to_stdout_at_a_terminal_is_refused_before_the_query_runs(warehouse: Path,
                                                                          terminal: tuple[int, int]) -> None:
    # it was: the Parquet bytes reached the terminal raw, a stored title change and screen clear with them,
    # where -f csv -o /dev/stdout is escaped and -f parquet without -o is refused
    leader, follower = terminal
    script = f"CREATE TABLE written AS SELECT {ESCAPES_SQL} AS claim; SELECT * FROM written"
    done = _sql_process(["--write", script, "-f", "parquet", "-o", "/dev/stdout"], stdout=follower)
    assert done.returncode == 2
    assert done.stderr.decode().replace("\n", "") == \
        "error: --format parquet writes a binary file, and --out /dev/stdout is a terminal: give it --out FILE"
    assert _drained(leader) == b""
    with open_warehouse(warehouse, read_only=True) as wh:  # the script did not run: --write stores its work
        assert wh.scalar("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'written'") == 0
    piped = _sql_process([f"SELECT {ESCAPES_SQL} AS claim", "-f", "parquet", "-o", "/dev/stdout"],
                         stdout=subprocess.PIPE)
    assert piped.returncode == 0, piped.stderr
    assert pq.read_table(io.BytesIO(piped.stdout)).to_pylist() == [{"claim": ESCAPES}]  # a pipe gets the file


@pytest.mark.parametrize("name", ["device", "descriptor"])
def test_parquet_to_a_terminal_named_as_the_file_is_refused(warehouse: Path, terminal: tuple[int, int],
                                                            name: str) -> None:
    leader, follower = terminal
    out = os.ttyname(follower) if name == "device" else f"/dev/fd/{follower}"  # -o /dev/pts/3, -o /dev/fd/1
    _refused(["sql", f"SELECT {ESCAPES_SQL} AS claim", "-f", "parquet", "--out", out],
             f"--format parquet writes a binary file, and --out {out} is a terminal: give it --out FILE")
    assert _drained(leader) == b""
    done = runner.invoke(app, ["sql", f"SELECT {ESCAPES_SQL} AS claim", "-f", "csv", "--out", out])
    assert done.exit_code == 0, done.output  # a text format still goes there, escaped
    shown = _drained(leader)
    assert b"\x1b" not in shown and "ادعاء\\x1b]0;PWNED-TITLE\\x07\\x1b[2J".encode() in shown
