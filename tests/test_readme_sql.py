"""The README's SQL section works verbatim with `arastance sql`, Python and the duckdb CLI."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from arastance.cli import app
from warehouse import open_warehouse

README = Path(__file__).resolve().parents[1] / "README.md"
CLI = Path(sys.executable).with_name("duckdb")


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Querying the warehouse")
    return text[start:text.index("\n## ", start + 1)]


def _statements() -> list[str]:
    [block] = re.findall(r"```sql\n(.*?)```", _section(), flags=re.DOTALL)
    body = "\n".join(line for line in block.splitlines() if not line.startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


def test_readme_sql_runs_with_the_command_python_and_the_cli(isolated_settings: Path) -> None:
    open_warehouse(isolated_settings / "data" / "warehouse.duckdb").close()  # migrated, published
    statements = _statements()
    assert len(statements) == 6
    runner = CliRunner()
    for statement in statements:
        result = runner.invoke(app, ["sql", "--format", "csv", statement])
        assert result.exit_code == 0, (statement, result.output)
    published = "data/published/warehouse.duckdb"  # the path the README gives, relative to the project
    con = duckdb.connect(published, read_only=True)
    for statement in statements:
        con.sql(statement).fetchall()
    [python] = re.findall(r"```python\n(.*?)```", _section(), flags=re.DOTALL)
    exec(compile(python, "README.md", "exec"), {})
    views = dict(con.sql(statements[-1]).fetchall())
    assert "v_source_stats" in views and all(views.values())
    con.close()
    script = ";\n".join(statements) + ";\n"
    done = subprocess.run([str(CLI), "-readonly", published], input=script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Error" not in done.stdout + done.stderr, done.stdout + done.stderr
    commands = [line for line in _section().splitlines() if line.startswith(".venv/bin/duckdb -readonly ")]
    assert commands and commands[0].split()[2] == published
