"""Long SQL lives in ``warehouse/sql/*.sql``, and every file there is used.

A statement of more than three lines is easier to read, review and run by hand (``arastance
sql``) as a named ``.sql`` file with a comment saying what it returns and why than as a string
in a Python module; and a ``.sql`` file that no module loads is dead code that still looks
authoritative. Both rules are checked on the source, so a new violation fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from warehouse.sql import load_sql

ROOT = Path(__file__).resolve().parents[1]
WAREHOUSE = ROOT / "warehouse"
SQL_DIR = WAREHOUSE / "sql"
MAX_LINES = 3
STATEMENT_START = ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "CREATE")


def _literal_text(node: ast.AST) -> str | None:
    """The text of a string literal; an f-string's replacement fields read as ``{}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def long_sql_literals(source: str, max_lines: int = MAX_LINES) -> list[tuple[int, int]]:
    """``(line, lines)`` of each SQL string literal in ``source`` longer than ``max_lines`` lines.

    A literal is SQL when, stripped, it starts with a statement keyword; its length is counted
    in lines of its stripped text, the lines a reader of the statement sees. Docstrings are skipped.
    """
    tree = ast.parse(source)
    # An f-string's literal parts are Constant nodes too: the f-string is checked as a whole.
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    # Docstrings are prose, even one that opens with "Insert" or "Update".
    parts |= {id(node.body[0].value) for node in ast.walk(tree)
              if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
              and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        text = _literal_text(node)
        if text is None or id(node) in parts:
            continue
        stripped = text.strip()
        lines = len(stripped.splitlines())
        if stripped.upper().startswith(STATEMENT_START) and lines > max_lines:
            found.append((node.lineno, lines))
    return found


def _modules() -> list[Path]:
    return sorted(WAREHOUSE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("module", _modules(), ids=_rel)
def test_no_long_sql_string_in_warehouse_modules(module: Path) -> None:
    found = long_sql_literals(module.read_text(encoding="utf-8"))
    assert not found, (f"{_rel(module)} holds SQL strings of more than {MAX_LINES} lines at "
                       f"{', '.join(f'line {line} ({n} lines)' for line, n in found)}: "
                       "move each into warehouse/sql/<name>.sql and read it with load_sql")


@pytest.mark.parametrize("source, expected", [
    ('Q = """\nSELECT a\nFROM t\nWHERE x = ?\nORDER BY a\n"""\n', [(1, 4)]),
    ('Q = """\n  with q AS (SELECT 1)\nSELECT *\nFROM q\nORDER BY 1\n"""\n', [(1, 4)]),
    ('Q = f"""\nUPDATE t SET\n  a = 1\nWHERE {W}\n  AND b = 2\n"""\n', [(1, 4)]),
    ('Q = f"""\nSELECT a\nFROM t\nWHERE x = 1\nORDER BY {K}\n"""\n', [(1, 4)]),
    ('Q = """\nSELECT a\nFROM t\nWHERE x = ?\n"""\n', []),
    ('D = """Pick the rows.\n\nA text\nthat is\nnot SQL."""\n', []),
    ('def f():\n    """Insert a batch.\n\n    Rows\n    by name.\n    """\n', []),
])
def test_long_sql_literals_finds_statements(source: str, expected: list[tuple[int, int]]) -> None:
    """The scan catches plain and f-string statements of 4+ lines, lower-case keywords too, not prose."""
    assert long_sql_literals(source) == expected


def _sql_names() -> list[str]:
    return sorted(p.stem for p in SQL_DIR.glob("*.sql"))


def _project_sources() -> str:
    """Every Python source of the project (production code, benchmarks, notebooks' helpers)."""
    roots = ("arastance", "spiders", "tasks", "warehouse", "flows", "snapshots", "benchmarks", "notebooks")
    return "\n".join(p.read_text(encoding="utf-8") for r in roots if (ROOT / r).is_dir()
                     for p in sorted((ROOT / r).rglob("*.py")))


@pytest.mark.parametrize("name", _sql_names())
def test_every_sql_file_is_loaded_by_a_module(name: str) -> None:
    assert re.search(rf"""load_sql\(\s*["']{re.escape(name)}["']""", _project_sources()), (
        f"warehouse/sql/{name}.sql is loaded by no module: use it or delete it")


@pytest.mark.parametrize("name", _sql_names())
def test_every_sql_file_opens_with_a_comment(name: str) -> None:
    """Each file says what it returns and why before the statement."""
    text = load_sql(name)
    assert text.startswith("-- ") and len(text.splitlines()[0]) > 20, f"{name}.sql lacks its opening comment"


#: Modules outside ``warehouse/`` that hold SQL of their own store, not the warehouse's.
OWN_STORES = {"tasks/stance/embeddings.py": "the embedding cache is a SQLite file of its own"}


def _sql_statements(source: str) -> list[int]:
    """Lines of the string literals in ``source`` that are SQL statements, however short."""
    tree = ast.parse(source)
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    return sorted(node.lineno for node in ast.walk(tree)
                  if id(node) not in parts and (text := _literal_text(node)) is not None
                  and re.match(rf"\s*({'|'.join(STATEMENT_START)})\s", text))


def _caller_modules() -> list[Path]:
    return sorted(p for r in ("tasks", "flows", "spiders") for p in (ROOT / r).rglob("*.py")
                  if _rel(p) not in OWN_STORES)


@pytest.mark.parametrize("module", _caller_modules(), ids=_rel)
def test_tasks_flows_and_spiders_ask_the_warehouse_through_warehouse_modules(module: Path) -> None:
    """Flows orchestrate and tasks hold logic; the questions they ask the warehouse, even one line
    long, are named functions of ``warehouse/`` that a reader finds in one place."""
    found = _sql_statements(module.read_text(encoding="utf-8"))
    assert not found, (f"{_rel(module)} holds SQL at line(s) {', '.join(map(str, found))}: "
                       "move it into a function of a warehouse/ module")


def test_sql_statements_finds_one_line_queries_not_prose() -> None:
    source = ('a = wh.scalar("SELECT count(*) FROM claims WHERE veracity = ?", [v])\n'
              'b = f"DELETE FROM {t} WHERE x = ?"\n'
              'c = "Select the rows a run wrote"\n'
              'd = "SELECTED"\n')
    assert _sql_statements(source) == [1, 2]
