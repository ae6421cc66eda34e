"""Every view a user queries is documented: a COMMENT ON in the warehouse, a row in the README, one naming convention."""

from __future__ import annotations

import re
from pathlib import Path

from warehouse import Warehouse

README = Path(__file__).resolve().parents[1] / "README.md"
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
# Bare names the convention replaces: a text is <entity>_text, the stance is `label`, a reason `status_reason`.
VAGUE = {"text", "claim", "article", "stance", "reason"}
# Views that reproduce a table of the paper keep its headers ("Source", "Claims", ...).
PAPER_LAYOUT = "v_paper_table"


def _views(wh: Warehouse) -> dict[str, str | None]:
    return {r["view_name"]: r["comment"] for r in wh.query(
        "SELECT view_name, comment FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'")}


def test_every_view_has_a_comment_and_a_readme_row(warehouse: Warehouse) -> None:
    views = _views(warehouse)
    assert len(views) >= 8
    assert {v for v, comment in views.items() if not (comment or "").strip()} == set()
    documented = set(re.findall(r"^\| `(v_[a-z0-9_]+)` \|", README.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert documented == set(views)


def test_view_columns_follow_one_convention(warehouse: Warehouse) -> None:
    rows = warehouse.query(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name LIKE 'v\\_%' ESCAPE '\\'")
    assert rows
    bad = [(r["table_name"], r["column_name"]) for r in rows
           if not r["table_name"].startswith(PAPER_LAYOUT)
           and (not SNAKE.match(r["column_name"]) or r["column_name"] in VAGUE)]
    assert bad == []
