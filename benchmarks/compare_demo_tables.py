"""Check that a refactor kept the demo's output: run the demo at two revisions and compare the tables.

Issue 17 asks for a refactor that keeps behaviour identical, "the demo's tables are identical before
and after". This script checks each revision out into a temporary ``git worktree`` (the working tree
itself for ``--after`` by default), runs ``arastance demo`` there in a fresh data directory with its
own Prefect home, then compares every table both warehouses have: row counts and row contents, as
multisets (the demo writes rows in no guaranteed order), leaving out the columns that differ between
any two runs by nature (timestamps, run ids, paths, code versions: ``RUN_SPECIFIC_COLUMNS``).
Strings are compared after the run's data directory and the snapshot server's random loopback port
are replaced by placeholders, since both change from run to run and say nothing about behaviour;
ids hashed from such a value (a crawled page's id, from its URL) are compared through the row they
name (``DERIVED_KEYS``).

Tables or columns on one side only are reported, not failed on: a refactor may add a table.
Exits 1 when a table both sides have differs, 0 otherwise.

    /work/main/.venv/bin/python benchmarks/compare_demo_tables.py --before 5dae815 --after a1afbf9 \\
        --retrieve-limit 10 [--before-python P] [--after-python P] [--env KEY=VALUE ...]

Old revisions may need another DuckDB than the current code (a file written by DuckDB 2.0 cannot be
read by 1.5): each side's warehouse is therefore exported to Parquet by that side's own interpreter,
and the comparison reads the Parquet files.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

REFACTOR_BASE = "5dae815"  # main just before issue 17's phase 1: the default "before" is HEAD's merge-base with it

# Columns whose values differ between two runs of the same code, so they say nothing about behaviour.
# Found by name, on any table that has them (listed explicitly rather than guessed from the type,
# because a DATE such as claims.published_date is content):
RUN_SPECIFIC_COLUMNS: frozenset[str] = frozenset({
    # wall-clock times (TIMESTAMP columns) of the run that wrote the row
    "assigned_at", "imported_at", "created_at", "annotated_at", "fetched_at", "reviewed_at",
    "updated_at", "first_seen", "last_seen", "started_at", "finished_at", "flagged_at",
    "decided_at", "applied_at", "searched_at", "retrieved_at",
    # run ids: new for each crawl, selection and model run (uuids or time-based)
    "run_id",
    # paths under the run's data directory, the checkout's commit
    "staging_path", "artifact_path", "source_file", "code_version",
    # Scrapy's crawl statistics: start/finish times, elapsed seconds, memory use
    "stats",
})
# Also left out: any column of a TIMESTAMP type whatever its name (a time of writing, never content).
RUN_SPECIFIC_TYPES = ("TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS")

# Ids hashed from a run-specific value, compared through what they stand for instead: a crawled page's
# id is stable_id(url, content_hash), and its URL holds the snapshot server's random port, so two runs
# of the same code give every crawled page another id. Each such column (wherever it appears: the page
# itself, the claims and articles that point to it) is replaced by the normalised natural key of the
# row it names; an id that names no row is kept as it is.
# column -> (the table it is the key of, that table's natural-key columns)
DERIVED_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "page_id": ("raw_pages", ("url", "content_hash")),
}

DATA_DIR_PLACEHOLDER = "<DATA_DIR>"
LOOPBACK = re.compile(r"(127\.0\.0\.1|localhost):\d+")  # the snapshot server listens on a random port


@dataclass(frozen=True)
class TableComparison:
    """One table both warehouses have: its row counts, and how the compared rows differ."""

    table: str
    rows_before: int
    rows_after: int
    compared_columns: tuple[str, ...]
    ignored_columns: tuple[str, ...]
    only_before_columns: tuple[str, ...] = ()
    only_after_columns: tuple[str, ...] = ()
    only_before_rows: int = 0  # rows (as multisets of compared values) missing after
    only_after_rows: int = 0
    example: str = ""  # the first differing row, or the column that differs in it

    @property
    def identical(self) -> bool:
        return self.only_before_rows == 0 and self.only_after_rows == 0


@dataclass(frozen=True)
class Comparison:
    """Every table compared, and the tables found on one side only."""

    tables: list[TableComparison]
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return all(t.identical for t in self.tables)


def normalise(value: Any, data_dirs: Sequence[str]) -> Any:
    """A value with what varies between runs (data directory, loopback port) replaced by placeholders;
    lists and dicts (DuckDB LIST/STRUCT/MAP) normalised element by element."""
    if isinstance(value, str):
        for data_dir in data_dirs:
            if data_dir:
                value = value.replace(data_dir, DATA_DIR_PLACEHOLDER)
        return LOOPBACK.sub(r"\1:PORT", value)
    if isinstance(value, (list, tuple)):
        return tuple(normalise(v, data_dirs) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), repr(normalise(v, data_dirs))) for k, v in value.items()))
    return value


def _columns(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> dict[str, str]:
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_catalog = ? AND table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
        [schema, table],
    ).fetchall()
    return dict(rows)


def _tables(con: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Base tables and, for a Parquet export, the views over its files (views of a warehouse file are
    derived from its tables, so comparing them again would only repeat a difference)."""
    kinds = ("BASE TABLE", "VIEW") if schema.startswith("parquet_") else ("BASE TABLE",)
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = ? AND table_schema = 'main' "
        f"AND table_type IN {kinds!r} ORDER BY table_name",
        [schema],
    ).fetchall()
    return [r[0] for r in rows]


def _ignored(name: str, data_type: str) -> bool:
    return name in RUN_SPECIFIC_COLUMNS or data_type.upper() in RUN_SPECIFIC_TYPES


Translations = dict[str, dict[Any, Any]]  # column -> {id: the natural key it stands for}


def _translations(con: duckdb.DuckDBPyConnection, schema: str, data_dirs: Sequence[str]) -> Translations:
    """For each of ``DERIVED_KEYS`` whose table this side has: every id, with its row's natural key."""
    found: Translations = {}
    tables = set(_tables(con, schema))
    for column, (table, natural) in DERIVED_KEYS.items():
        if table in tables and {column, *natural} <= set(_columns(con, schema, table)):
            select = ", ".join(f'"{c}"' for c in (column, *natural))
            rows = con.execute(f'SELECT {select} FROM "{schema}".main."{table}"').fetchall()
            found[column] = {row[0]: ("key", *(normalise(v, data_dirs) for v in row[1:])) for row in rows}
    return found


def _rows(con: duckdb.DuckDBPyConnection, schema: str, table: str, columns: Sequence[str],
          data_dirs: Sequence[str], translations: Translations) -> Counter[tuple[Any, ...]]:
    if not columns:  # nothing left to compare but the count
        (n,) = con.execute(f'SELECT count(*) FROM "{schema}".main."{table}"').fetchone()
        return Counter({(): n})
    select = ", ".join(f'"{c}"' for c in columns)
    rows = con.execute(f'SELECT {select} FROM "{schema}".main."{table}"').fetchall()
    maps = [translations.get(c, {}) for c in columns]
    return Counter(tuple(normalise(m.get(v, v) if m else v, data_dirs) for m, v in zip(maps, row)) for row in rows)


def _example(columns: Sequence[str], before: Counter[tuple[Any, ...]], after: Counter[tuple[Any, ...]]) -> str:
    """The first differing row; when a row on the other side has the same first column (an id),
    the columns whose values differ, which says far more than two long rows."""
    missing, extra = sorted(before - after, key=repr), sorted(after - before, key=repr)
    by_key = {row[0]: row for row in extra} if columns else {}
    for row in missing:
        other = by_key.get(row[0]) if columns else None
        if other is not None:
            diffs = [f"{c}: {_short(a)} -> {_short(b)}" for c, a, b in zip(columns, row, other) if a != b]
            return f"{columns[0]}={_short(row[0])}: " + "; ".join(diffs)
    if missing:
        return "only before: " + _short(dict(zip(columns, missing[0])))
    if extra:
        return "only after: " + _short(dict(zip(columns, extra[0])))
    return ""


def _short(value: Any, width: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def compare_table(con: duckdb.DuckDBPyConnection, table: str, before: str = "before", after: str = "after",
                  data_dirs: Sequence[str] = (), translations: tuple[Translations, Translations] = ({}, {}),
                  ) -> TableComparison:
    """Compare ``table`` of the catalogs ``before`` and ``after`` attached to ``con``; ``translations``:
    each side's derived ids with what they stand for (see ``DERIVED_KEYS``)."""
    cols_before, cols_after = _columns(con, before, table), _columns(con, after, table)
    common = [c for c in cols_before if c in cols_after]
    ignored = tuple(c for c in common if _ignored(c, cols_before[c]) or _ignored(c, cols_after[c]))
    compared = tuple(c for c in common if c not in ignored)
    rows_before = _rows(con, before, table, compared, data_dirs, translations[0])
    rows_after = _rows(con, after, table, compared, data_dirs, translations[1])
    return TableComparison(
        table=table,
        rows_before=sum(rows_before.values()),
        rows_after=sum(rows_after.values()),
        compared_columns=compared,
        ignored_columns=ignored,
        only_before_columns=tuple(c for c in cols_before if c not in cols_after),
        only_after_columns=tuple(c for c in cols_after if c not in cols_before),
        only_before_rows=sum((rows_before - rows_after).values()),
        only_after_rows=sum((rows_after - rows_before).values()),
        example=_example(compared, rows_before, rows_after),
    )


@contextmanager
def attached(before: Path, after: Path) -> Iterator[tuple[duckdb.DuckDBPyConnection, str, str]]:
    """An in-memory connection with both sides attached read-only: a warehouse file as itself, a
    directory of Parquet files (one per table, see ``export_parquet``) as views over them."""
    con = duckdb.connect()
    names = []
    try:
        for side, path in (("before", before), ("after", after)):
            if path.is_dir():
                name = f"parquet_{side}"
                con.execute(f"ATTACH ':memory:' AS {name}")
                for file in sorted(path.glob("*.parquet")):
                    literal = str(file).replace("'", "''")
                    con.execute(f'CREATE VIEW {name}.main."{file.stem}" AS SELECT * FROM read_parquet(\'{literal}\')')
            else:
                name = side
                literal = str(path).replace("'", "''")
                con.execute(f"ATTACH '{literal}' AS {name} (READ_ONLY)")
            names.append(name)
        yield con, names[0], names[1]
    finally:
        con.close()


def compare_warehouses(before: Path, after: Path, data_dirs: Sequence[str] = ()) -> Comparison:
    """Compare every table ``before`` and ``after`` (warehouse files or Parquet exports) have in common.

    ``data_dirs``: the runs' data directories, replaced in strings by one placeholder.
    """
    with attached(before, after) as (con, b, a):
        tables_before, tables_after = _tables(con, b), _tables(con, a)
        common = [t for t in tables_before if t in tables_after]
        translations = (_translations(con, b, data_dirs), _translations(con, a, data_dirs))
        return Comparison(
            tables=[compare_table(con, t, b, a, data_dirs, translations) for t in common],
            only_before=[t for t in tables_before if t not in tables_after],
            only_after=[t for t in tables_after if t not in tables_before],
        )


def report(comparison: Comparison) -> str:
    """The per-table report: rows before/after, identical or not, the first difference."""
    lines = [f"{'table':<28} {'before':>8} {'after':>8}  identical  first difference",
             "-" * 100]
    for t in comparison.tables:
        lines.append(f"{t.table:<28} {t.rows_before:>8} {t.rows_after:>8}  "
                     f"{'yes' if t.identical else 'NO':<9}  {t.example}")
    lines.append("")
    for t in comparison.tables:
        if t.only_before_columns or t.only_after_columns:
            lines.append(f"{t.table}: columns only before {list(t.only_before_columns)}, "
                         f"only after {list(t.only_after_columns)} (not compared)")
    if comparison.only_before:
        lines.append(f"tables only before (not compared): {', '.join(comparison.only_before)}")
    if comparison.only_after:
        lines.append(f"tables only after (not compared): {', '.join(comparison.only_after)}")
    ignored = sorted({c for t in comparison.tables for c in t.ignored_columns})
    lines.append(f"run-specific columns left out: {', '.join(ignored) or 'none'}")
    lines.append("ids compared through the row they name: " + ", ".join(
        f"{column} as {table}({', '.join(natural)})" for column, (table, natural) in DERIVED_KEYS.items()))
    differing = [t.table for t in comparison.tables if not t.identical]
    lines.append(f"RESULT: {len(comparison.tables) - len(differing)}/{len(comparison.tables)} common tables "
                 f"identical" + (f"; differ: {', '.join(differing)}" if differing else ""))
    return "\n".join(lines)


# --- running the demo at a revision ---------------------------------------------------------------

EXPORT = """
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
          "WHERE table_schema = 'main' AND table_type = 'BASE TABLE'").fetchall()]
for t in tables:
    con.execute(f'COPY (SELECT * FROM "{t}") TO \\'{sys.argv[2]}/{t}.parquet\\' (FORMAT parquet)')
print(len(tables), "tables exported with DuckDB", duckdb.__version__)
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def checkout(repo: Path, rev: str | None, scratch: Path) -> Iterator[Path]:
    """``rev`` checked out into a temporary worktree (removed afterwards); the working tree for None."""
    if rev is None:
        yield repo
        return
    path = scratch / f"tree-{git(repo, 'rev-parse', '--short', rev)}-{len(list(scratch.iterdir()))}"
    git(repo, "worktree", "add", "--detach", str(path), rev)
    try:
        yield path
    finally:
        git(repo, "worktree", "remove", "--force", str(path))


def run_demo(tree: Path, python: str, data_dir: Path, retrieve_limit: int, extra_env: dict[str, str],
             log: Path) -> float:
    """Run ``arastance demo`` from ``tree`` with ``python``; returns its wall time in seconds.

    Its own Prefect home keeps the temporary server's database apart from any other run's, and
    PREFECT_API_URL is unset so that the demo never reports to a real server.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL",) and not k.startswith("ARASTANCE_")}
    env.update(PYTHONPATH=str(tree), PREFECT_HOME=str(data_dir.parent / f"{data_dir.name}-prefect"),
               PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="180")
    env.update(extra_env)
    command = [python, "-c", "from arastance.cli import main; main()", "demo",
               "--data-dir", str(data_dir), "--retrieve-limit", str(retrieve_limit)]
    started = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(command, cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"the demo failed in {tree} (exit {done.returncode}); log {log}:\n{tail}")
    return time.monotonic() - started


def export_parquet(python: str, warehouse: Path, out: Path) -> None:
    """Every base table of ``warehouse`` as ``out/<table>.parquet``, written by ``python`` (the side's
    own DuckDB, which can read the file its demo wrote)."""
    out.mkdir(parents=True)
    subprocess.run([python, "-c", EXPORT, str(warehouse), str(out)], check=True)


def parse_env(pairs: Iterable[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--env {pair!r}: expected KEY=VALUE")
        env[key] = value
    return env


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help=f"revision (default: HEAD's merge-base with {REFACTOR_BASE})")
    parser.add_argument("--after", help="revision (default: the working tree)")
    parser.add_argument("--before-python", default=sys.executable, help="interpreter for the before side")
    parser.add_argument("--after-python", default=sys.executable, help="interpreter for the after side")
    parser.add_argument("--retrieve-limit", type=int, default=10,
                        help="claims that get documents, the same on both sides (0: all; slow)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment variable for both demos, e.g. ARASTANCE_MODEL__CPU_VARIANT=tfidf_sim")
    parser.add_argument("--keep", type=Path, help="keep the data directories, logs and Parquet exports here")
    parser.add_argument("--compare-kept", type=Path, metavar="DIR",
                        help="run no demo: compare again what an earlier run left in its --keep directory")
    args = parser.parse_args(argv)
    if args.compare_kept:
        kept = args.compare_kept.resolve()
        comparison = compare_warehouses(kept / "before-parquet", kept / "after-parquet",
                                        [str(kept / "before-data"), str(kept / "after-data")])
        print(report(comparison))
        return 0 if comparison.identical else 1
    repo = Path(git(Path.cwd(), "rev-parse", "--show-toplevel"))
    before = args.before or git(repo, "merge-base", "HEAD", REFACTOR_BASE)
    extra_env = parse_env(args.env)
    with tempfile.TemporaryDirectory(prefix="compare-demo-") as tmp:
        scratch = (args.keep or Path(tmp)).resolve()
        scratch.mkdir(parents=True, exist_ok=True)
        exports, data_dirs = {}, []
        for side, rev, python in (("before", before, args.before_python), ("after", args.after, args.after_python)):
            data_dir = scratch / f"{side}-data"
            if data_dir.exists():
                raise SystemExit(f"{data_dir} exists: the demo must start from a fresh data directory "
                                 "(give --keep an empty folder)")
            with checkout(repo, rev, scratch) as tree:
                label = rev or "working tree"
                print(f"{side}: {label} ({git(tree, 'rev-parse', '--short', 'HEAD')}) with {python}", flush=True)
                seconds = run_demo(tree, python, data_dir, args.retrieve_limit, extra_env, scratch / f"{side}-demo.log")
                print(f"  demo: {seconds:.0f} s (a shared, loaded machine: timings are noisy)", flush=True)
            exports[side] = scratch / f"{side}-parquet"
            export_parquet(python, data_dir / "warehouse.duckdb", exports[side])
            data_dirs.append(str(data_dir.resolve()))
        comparison = compare_warehouses(exports["before"], exports["after"], data_dirs)
    print(report(comparison))
    return 0 if comparison.identical else 1


if __name__ == "__main__":
    sys.exit(main())
