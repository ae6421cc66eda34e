"""``arastance sql --format table|csv|json|parquet --out FILE``: whole values, machine-readable output."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers_disk import read_only, small_disk

from warehouse import open_warehouse

LONG = "لا صحة لما يتم تداوله حول " * 12  # far wider than any terminal
QUERY = (
    "SELECT * FROM (VALUES (1, 'قصير', DATE '2016-05-01', NULL), "
    f"(2, '{LONG}', DATE '2017-01-31', 'a,b\"c')) AS t(n, text, day, note) ORDER BY n"
)


@pytest.fixture
def migrated(tmp_path: Path) -> Path:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()
    return tmp_path


def _sql(*args: str) -> subprocess.CompletedProcess:
    """The installed command, with stdout a pipe (as in ``arastance sql … | cut``)."""
    command = [sys.executable, "-c", "from arastance.cli import main; main()", "sql", *args]
    here = str(Path(__file__).resolve().parents[1])  # this checkout's code, also where another one's venv runs it
    return subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "60", "PYTHONPATH": here})


def test_piped_table_keeps_each_row_on_one_line(migrated: Path) -> None:
    done = _sql(QUERY)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4  # header, rule, two rows: nothing folded at 60 columns
    assert lines[0].split() == ["n", "text", "day", "note"]
    assert LONG.strip() in lines[3] and lines[3].startswith("2")


def test_csv_and_json_lines_carry_exact_values(migrated: Path) -> None:
    as_csv = _sql("--format", "csv", QUERY)
    assert as_csv.returncode == 0, as_csv.stderr
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert rows[1] == {"n": "2", "text": LONG, "day": "2017-01-31", "note": 'a,b"c'}
    as_json = _sql("--format", "json", QUERY)
    assert as_json.returncode == 0, as_json.stderr
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert records == [
        {"n": 1, "text": "قصير", "day": "2016-05-01", "note": None},
        {"n": 2, "text": LONG, "day": "2017-01-31", "note": 'a,b"c'},
    ]


def test_out_writes_files_in_each_format(migrated: Path) -> None:
    for fmt in ("parquet", "csv", "json", "table"):
        out = migrated / f"result.{fmt}"
        done = _sql("--format", fmt, "--out", str(out), QUERY)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "" and f"wrote 2 row(s) to {out}" in done.stderr
    table = pq.read_table(migrated / "result.parquet")
    assert table.column_names == ["n", "text", "day", "note"] and table.column("text").to_pylist()[1] == LONG
    assert (migrated / "result.csv").read_text(encoding="utf-8").splitlines()[0] == "n,text,day,note"
    assert json.loads((migrated / "result.json").read_text(encoding="utf-8").splitlines()[0])["n"] == 1
    assert LONG.strip() in (migrated / "result.table").read_text(encoding="utf-8")


def test_out_takes_a_name_as_long_as_the_file_system_allows(migrated: Path) -> None:
    # it was: "error: file name too long: .rrr….csv.partial", a file the user never gave
    out_dir = migrated / "out"
    out_dir.mkdir()
    for fmt in ("csv", "parquet"):
        out = out_dir / ("r" * (255 - len(fmt) - 1) + f".{fmt}")
        done = _sql("--format", fmt, "--out", str(out), "SELECT 42 AS answer")
        assert done.returncode == 0, done.stderr
    assert (out_dir / ("r" * 251 + ".csv")).read_text(encoding="utf-8").splitlines() == ["answer", "42"]
    assert pq.read_table(out_dir / ("r" * 247 + ".parquet")).column("answer").to_pylist() == [42]
    assert len(list(out_dir.iterdir())) == 2  # no partial file left
    (out_dir / "made-by-open").write_text("", encoding="utf-8")
    modes = {p.name[-8:]: p.stat().st_mode for p in out_dir.iterdir()}
    assert len(set(modes.values())) == 1, modes  # the permissions a new file gets, not a temporary file's 0600


def test_bad_requests_are_named(migrated: Path) -> None:
    parquet_to_stdout = _sql("--format", "parquet", QUERY)
    assert parquet_to_stdout.returncode == 2 and "--out" in parquet_to_stdout.stderr
    no_dir = _sql("--out", str(migrated / "nowhere" / "x.csv"), "--format", "csv", QUERY)
    assert no_dir.returncode == 2 and f"{migrated / 'nowhere'} does not exist" in no_dir.stderr.replace("\n", "")
    (migrated / "a-file").write_text("kept\n", encoding="utf-8")  # it was: "directory …/a-file does not exist"
    for out in (migrated / "a-file" / "x.csv", migrated / "a-file" / "below" / "x.csv"):  # the file is named
        file_dir = _sql("--out", str(out), "--format", "csv", QUERY)
        assert file_dir.returncode == 2 and f"--out {out}: {migrated / 'a-file'} is a file, not a directory" in \
            file_dir.stderr.replace("\n", ""), file_dir.stderr
    bad_sql = _sql("SELECT * FROM no_such_table")
    assert bad_sql.returncode == 2 and "no_such_table" in bad_sql.stderr
    bad_format = _sql("--format", "xml", QUERY)
    assert bad_format.returncode == 2 and "xml" in bad_format.stderr
    drop_alone = _sql("--allow-drop", "DROP TABLE claims")
    assert drop_alone.returncode == 2 and "--allow-drop only applies with --write" in drop_alone.stderr
    a_dir = _sql("--out", str(migrated), QUERY)
    assert a_dir.returncode == 2 and f"--out {migrated} is a directory" in a_dir.stderr.replace("\n", "")


def test_a_query_that_fails_part_way_leaves_an_earlier_out_file_as_it_was(migrated: Path) -> None:
    kept = migrated / "kept.csv"
    kept.write_text("an earlier result\n", encoding="utf-8")
    for fmt in ("csv", "json", "parquet"):
        failed = _sql("--format", fmt, "--out", str(kept), "SELECT error('boom') AS x")
        assert failed.returncode == 2 and "boom" in failed.stderr, failed.stderr
        assert kept.read_text(encoding="utf-8") == "an earlier result\n"
    assert sorted(p.name for p in migrated.iterdir()) == ["data", "kept.csv"]  # no partial file left


def test_a_full_disk_is_one_line_naming_it_and_an_earlier_out_file_stays(migrated: Path) -> None:
    with small_disk(migrated, 2) as disk:
        kept = disk.root / "kept.csv"
        kept.write_text("an earlier result\n", encoding="utf-8")
        disk.fill(leave=0)
        for fmt in ("csv", "json"):  # it was: a traceback ending "OSError: [Errno 28] No space left on device"
            failed = _sql("--format", fmt, "--out", str(kept), "SELECT repeat('x', 1000) AS t FROM range(5000)")
            assert failed.returncode == 2, failed.stderr
            assert failed.stderr.startswith("error: no space left on device") and "Traceback" not in failed.stderr
            assert "free space on that disk and run the command again" in failed.stderr
            assert kept.read_text(encoding="utf-8") == "an earlier result\n"
            assert sorted(p.name for p in disk.root.iterdir()) == [".filler", "kept.csv"]


def test_a_read_only_out_directory_is_one_line_naming_it_and_an_earlier_out_file_stays(migrated: Path) -> None:
    # it was: two tracebacks, the partial file's clean-up refused too and its error over the first
    out_dir = migrated / "out"
    out_dir.mkdir()
    kept = out_dir / "kept.csv"
    kept.write_text("an earlier result\n", encoding="utf-8")
    with read_only(out_dir):
        failed = _sql("--format", "csv", "--out", str(kept), "SELECT 1 AS x")
    assert failed.returncode == 2 and "Traceback" not in failed.stderr, failed.stderr
    assert re.match(rf"error: read-only file system: {re.escape(str(out_dir))}/\.arastance-[0-9a-f]+\.partial", failed.stderr)
    assert "make that disk writable and run the command again" in failed.stderr.replace("\n", " ")
    assert kept.read_text(encoding="utf-8") == "an earlier result\n"


def test_write_honours_out_and_format(migrated: Path) -> None:
    # it was: --out and --format ignored with --write, a table printed, exit 0 and no file
    out = migrated / "written.csv"
    done = _sql("--write", "--format", "csv", "--out", str(out),
                "INSERT INTO sources (source_id, name, kind) VALUES ('s1', 'S', 'news'); SELECT source_id, kind FROM sources")
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").splitlines() == ["source_id,kind", "s1,news"]
    parquet = migrated / "written.parquet"
    done = _sql("--write", "--format", "parquet", "--out", str(parquet), "SELECT source_id FROM sources")
    assert done.returncode == 0, done.stderr
    assert pq.read_table(parquet).column("source_id").to_pylist() == ["s1"]
    as_json = _sql("--write", "--format", "json", "SELECT count(*) AS n FROM sources")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == {"n": 1}, as_json.stderr
    # a HUGEINT (any sum of integers) comes back whole, as without --write (it was: 3.0 and 1.2345678901234568e+22)
    summed = "SELECT sum(x) AS s, 12345678901234567890123::HUGEINT AS h, 2.50::DECIMAL(5, 2) AS d FROM (SELECT 1 x UNION ALL SELECT 2)"
    for extra in ([], ["--write"]):
        done = _sql(*extra, "--format", "json", summed)
        assert done.returncode == 0 and json.loads(done.stdout) == {"s": 3, "h": 12345678901234567890123, "d": 2.5}, extra


def test_json_writes_an_interval_as_an_iso_duration_and_names_a_column_it_cannot_write(migrated: Path) -> None:
    # it was a traceback: "TypeError: cannot write a timedelta value as JSON"
    done = _sql("--format", "json", "SELECT TIMESTAMP '2024-01-02 01:30:00' - TIMESTAMP '2024-01-01' AS duration, "
                "INTERVAL 90 SECOND AS short, INTERVAL 0 SECOND AS nothing, -INTERVAL 1 DAY AS back")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"duration": "P1DT1H30M", "short": "PT1M30S", "nothing": "PT0S", "back": "-P1D"}
    kept = migrated / "kept.json"
    kept.write_text("an earlier result\n", encoding="utf-8")
    refused = _sql("--format", "json", "--out", str(kept), "SELECT 1 AS n, MAP {DATE '2020-01-01': 1} AS by_day")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "column 'by_day' cannot be written as JSON" in " ".join(refused.stderr.split())
    assert kept.read_text(encoding="utf-8") == "an earlier result\n"



def _chars(text: str) -> str:
    """``text`` as a DuckDB expression of ``chr()`` calls: control characters survive the command line."""
    return " || ".join(f"chr({ord(ch)})" for ch in text)


def test_csv_quotes_a_bare_carriage_return_so_readers_keep_the_row(migrated: Path) -> None:
    # it was: a value holding "\r" (an old Mac line end in scraped text) written unquoted, and Python's csv
    # and DuckDB's read_csv split its row in two there
    import duckdb

    values = ["سطر أول\rسطر ثان", "\r", "a\r\nb", "c\nd", 'e,"f"']
    query = "SELECT 1 AS id, " + ", ".join(f"{_chars(v)} AS v{i}" for i, v in enumerate(values))
    out = migrated / "cr.csv"
    done = _sql("--format", "csv", "--out", str(out), query)
    assert done.returncode == 0, done.stderr
    text = out.read_bytes().decode("utf-8")
    assert text.startswith("id,v0,v1,v2,v3,v4\n1,\"سطر أول\rسطر ثان\",\"\r\",") and text.endswith("\n")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["id", "v0", "v1", "v2", "v3", "v4"], ["1", *values]]
    assert duckdb.sql(f"SELECT * FROM read_csv('{out}', all_varchar = true)").fetchall() == [("1", *values)]


def test_json_lines_write_non_finite_numbers_as_null(migrated: Path) -> None:
    # it was: bare NaN and Infinity tokens, which are not JSON: jq, DuckDB's read_json and JavaScript refuse the line
    import duckdb

    def standard_only(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    query = ("SELECT 1 AS id, 'NaN'::DOUBLE AS f, 'inf'::DOUBLE AS x, '-inf'::FLOAT AS y, 2.5::DOUBLE AS z, "
             "['nan'::DOUBLE, 1.0] AS l, {'a': 'inf'::DOUBLE} AS s")
    out = migrated / "nan.jsonl"
    done = _sql("--format", "json", "--out", str(out), query)
    assert done.returncode == 0, done.stderr
    line = out.read_text(encoding="utf-8")
    assert json.loads(line, parse_constant=standard_only) == {"id": 1, "f": None, "x": None, "y": None, "z": 2.5,
                                                             "l": [None, 1.0], "s": {"a": None}}
    assert duckdb.sql(f"SELECT f, x, z FROM read_json('{out}')").fetchall() == [(None, None, 2.5)]


def _sql_at_terminal(*args: str) -> bytes:
    """``arastance sql`` with its standard output a terminal (a pseudo-terminal), and what that terminal got."""
    leader, follower = pty.openpty()
    here = str(Path(__file__).resolve().parents[1])
    proc = subprocess.Popen([sys.executable, "-c", "from arastance.cli import main; main()", "sql", *args],
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": here, "COLUMNS": "200"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert proc.wait(timeout=120) == 0
    os.close(leader)
    return b"".join(chunks)


def test_csv_at_a_terminal_writes_escape_sequences_out_and_a_pipe_keeps_them(migrated: Path) -> None:
    # it was: a stored ESC sequence reached the terminal raw (an OSC 8 link, a cleared screen), while -f table
    # showed it as \x1b
    value = "ادعاء\x1b]8;;https://evil.example\x1b\\رابط\x1b[2J\u202e"
    query = f"SELECT {_chars(value)} AS claim, NULL AS note"
    for out in ([], ["--out", "/dev/stdout"]):  # named as a file, the terminal got the sequences raw
        shown = _sql_at_terminal("--format", "csv", query, *out).decode("utf-8")
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "ادعاء\\x1b]8;;https://evil.example\\x1b\\رابط\\x1b[2J\\u202e," in shown
    piped = _sql("--format", "csv", query)
    assert piped.returncode == 0 and list(csv.reader(io.StringIO(piped.stdout))) == [["claim", "note"], [value, ""]]


def test_json_at_a_terminal_escapes_c1_controls_and_bidi_overrides_and_still_parses(migrated: Path) -> None:
    # it was: JSON escaped only the characters below 0x20, so a one-byte CSI (0x9b) or a RIGHT-TO-LEFT OVERRIDE
    # in a stored claim reached the terminal raw
    value = "ادعاء\x9b2J\u202eرابط\x7f"
    query = f"SELECT {_chars(value)} AS claim"
    shown = _sql_at_terminal("--format", "json", query).decode("utf-8")
    assert "\x9b" not in shown and "\u202e" not in shown and "\x7f" not in shown
    assert "\\u009b2J\\u202e" in shown
    assert json.loads(shown.strip()) == {"claim": value}
    piped = _sql("--format", "json", query)
    assert piped.returncode == 0 and json.loads(piped.stdout) == {"claim": value} and "\u202e" in piped.stdout
