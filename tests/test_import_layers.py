"""The layer rules, checked on every import statement of the production code.

From the bottom: the base layer (``arastance.base``) imports no project code; settings and
logging (``arastance.config``, ``arastance.logging``) only the base layer; progress reporting
(``arastance.progress``) those three; the warehouse and the
spiders only those; the tasks the warehouse too; the flows the tasks; the command line anything.
Spiders and tasks never import each other (they meet in the staging contract), nothing imports
a flow but the command line and the demo, and production code never imports the offline world
(``snapshots``): only the demo layer (``snapshots.demo``: the demo flow, its stages, the simulated
annotators) and the command line (``arastance demo`` and the ``--offline`` options, through
``snapshots.offline.offline_world``, the one override that points production flows at the world) do.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("arastance", "spiders", "tasks", "warehouse", "flows", "snapshots")

BASE = {"arastance.base"}
CORE = BASE | {"arastance.config", "arastance.logging", "arastance.progress", "arastance"}
#: Which layers each layer may import (its own always).
ALLOWED: dict[str, set[str]] = {
    "arastance.base": set(),
    "arastance": set(),
    "arastance.config": BASE,
    "arastance.logging": BASE | {"arastance.config"},
    "arastance.progress": BASE | {"arastance.config", "arastance.logging"},
    "warehouse": CORE,
    "spiders": CORE,
    "tasks": CORE | {"warehouse"},
    "flows": CORE | {"warehouse", "tasks"},
    "snapshots": CORE,
    "snapshots.demo": CORE | {"warehouse", "tasks", "flows", "snapshots"},
    "arastance.cli": CORE | {"warehouse", "tasks", "flows", "spiders", "snapshots", "snapshots.demo"},
}


def layer_of(module: str) -> str:
    """``tasks.search.local`` -> ``tasks``; ``arastance.base.urls`` -> ``arastance.base``."""
    parts = module.split(".")
    if parts[0] in ("arastance", "snapshots") and len(parts) > 1 and f"{parts[0]}.{parts[1]}" in ALLOWED:
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import of project code in one file, lazy ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.split(".")[0] in PROJECT]


def violations(root: Path) -> list[str]:
    """Every import that breaks the layer rules under ``root``, as ``file:line: a -> b``."""
    bad = []
    for package in PROJECT:
        for path in sorted((root / package).rglob("*.py")):
            module = ".".join(path.relative_to(root).with_suffix("").parts)
            source = layer_of(module)
            for line, name in imports_of(path):
                target = layer_of(name)
                if target != source and target not in ALLOWED[source]:
                    bad.append(f"{path.relative_to(root)}:{line}: {source} -> {target} ({name})")
    return bad


#: The production layers: what the pipeline runs in production, which never sees the offline world.
PRODUCTION = ("arastance.base", "arastance", "arastance.config", "arastance.logging", "arastance.progress",
              "warehouse", "spiders", "tasks", "flows")


def test_the_production_code_keeps_the_layer_rules() -> None:
    assert violations(ROOT) == []


def test_no_production_layer_may_import_the_offline_world() -> None:
    """Only the command line (its ``--offline`` options and ``arastance demo``) and the demo layer
    reach the world; production flows are pointed at it from outside, by ``offline_world()``."""
    assert set(ALLOWED) - set(PRODUCTION) == {"snapshots", "snapshots.demo", "arastance.cli"}
    for layer in PRODUCTION:
        assert {"snapshots", "snapshots.demo"} & ALLOWED[layer] == set(), layer


@pytest.mark.parametrize(
    ("where", "statement", "arrow"),
    [
        ("spiders/bad.py", "from tasks.claim_cleaning import clean_claim", "spiders -> tasks"),
        ("spiders/bad.py", "import warehouse.claims", "spiders -> warehouse"),
        ("tasks/bad.py", "from spiders.items import page_item", "tasks -> spiders"),
        ("tasks/bad.py", "def f():\n    from flows.pipeline import arastance_pipeline", "tasks -> flows"),
        ("warehouse/bad.py", "from tasks.dedup import cluster_claims", "warehouse -> tasks"),
        ("arastance/base/bad.py", "from arastance.config import load_settings", "arastance.base -> arastance.config"),
        ("flows/bad.py", "from snapshots.server import serve_snapshots", "flows -> snapshots"),
        ("flows/bad.py", "def f():\n    from snapshots.offline import offline_world", "flows -> snapshots"),
        ("flows/bad.py", "from snapshots.demo.flow import arastance_demo", "flows -> snapshots.demo"),
        ("tasks/bad.py", "from snapshots.world import build_world", "tasks -> snapshots"),
        ("tasks/bad.py", "from snapshots.demo.annotators import simulate_export", "tasks -> snapshots.demo"),
        ("warehouse/bad.py", "import snapshots.server", "warehouse -> snapshots"),
        ("spiders/bad.py", "from snapshots.build import SITES", "spiders -> snapshots"),
        ("snapshots/bad.py", "from snapshots.demo.stages import build_world_index", "snapshots -> snapshots.demo"),
        ("flows/bad.py", "from arastance.cli.common import settings", "flows -> arastance.cli"),
    ],
)
def test_a_new_violation_is_reported(tmp_path: Path, where: str, statement: str, arrow: str) -> None:
    for package in PROJECT:
        (tmp_path / package).mkdir()
    (tmp_path / "arastance" / "base").mkdir()
    target = tmp_path / where
    target.write_text(statement + "\n", encoding="utf-8")
    [found] = violations(tmp_path)
    assert found.startswith(f"{where}:") and arrow in found
