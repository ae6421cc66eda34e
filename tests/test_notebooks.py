"""The notebooks run, as notebooks, against the demo warehouse, so they never go stale.

Each jupytext script becomes an nbformat notebook executed by a real ``python3`` kernel; the
test then reads what the cells displayed and, through probe cells appended at the end, the
tables the notebook built in the kernel.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jupytext
import pytest
from helpers_demo import DemoRun, demo  # noqa: F401 (the shared demo fixture)
from ipykernel.kernelspec import install as install_kernelspec
from nbclient import NotebookClient
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from tasks.stance.labels import FOUR_WAY
from warehouse import open_warehouse
from warehouse.model_runs import evaluations, model_runs

pytestmark = pytest.mark.slow

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PROBE = "PROBE:"


@pytest.fixture(autouse=True)
def venv_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``python3`` kernelspec for this interpreter, found first: a user-wide kernelspec of the same
    name may point at another Python, where the project is not installed."""
    spec = Path(install_kernelspec(prefix=str(tmp_path / "jupyter"), kernel_name="python3"))
    monkeypatch.setenv("JUPYTER_PATH", str(spec.parents[1]))  # .../share/jupyter, searched before all others
    return spec


def execute(name: str, cwd: Path, probe: str) -> tuple[NotebookNode, dict[str, Any]]:
    """Execute ``notebooks/<name>.py``; ``probe`` is an expression evaluated in the kernel
    afterwards, returned as JSON (and the kernel must run in this venv, where the project is)."""
    nb = jupytext.read(NOTEBOOKS / f"{name}.py")
    report = f"{{'prefix': _s.prefix, 'probe': {probe}}}"
    nb.cells.append(new_code_cell(f"import json as _j, sys as _s\nprint({PROBE!r} + _j.dumps({report}, default=str))"))
    NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(cwd)}}).execute()
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    found = json.loads(printed.split(PROBE, 1)[1])
    assert found["prefix"] == sys.prefix, f"the kernel runs in {found['prefix']}, not in the project venv"
    return nb, found["probe"]


def outputs(nb: NotebookNode, mime: str) -> list[str]:
    """Every displayed value of type ``mime`` in the notebook's own cells."""
    return [o["data"][mime] for cell in nb.cells[:-1] if cell.cell_type == "code"
            for o in cell.outputs if o.output_type in ("execute_result", "display_data") and mime in o["data"]]


def test_dataset_statistics_notebook(demo: DemoRun, tmp_path: Path) -> None:
    probe = ("{'sources': per_source['source'].tolist(), 'splits': per_split['split'].tolist(),"
             " 'pairs': per_source.set_index('source')['pairs'].to_dict(),"
             " 'split_pairs': per_split.set_index('split')['pairs'].to_dict()}")
    nb, state = execute("dataset_statistics", tmp_path, probe)
    assert state["sources"] == ["araanews", "dabegad", "norumors", "reuters", "total"]
    assert state["splits"] == ["train", "dev", "test", "total"]
    assert state["pairs"]["total"] == state["split_pairs"]["total"] > 0
    tables = outputs(nb, "text/html")
    assert any("araanews" in t and "reuters" in t for t in tables)  # the per-source table is shown
    assert len(outputs(nb, "image/png")) == 1  # the label-distribution charts


def test_model_results_notebook(demo: DemoRun, tmp_path: Path) -> None:
    with open_warehouse(demo.warehouse, read_only=True) as wh:
        run = model_runs(wh)[0]
        stored = {r["metric"]: r["value"] for r in evaluations(wh, run["run_id"])
                  if r["split"] == "test" and not r["label"]}
    probe = ("{'rows': [list(i) for i in results.index], 'columns': [list(c) for c in results.columns],"
             " 'values': results.to_numpy().ravel().tolist(), 'split': split, 'pairs': len(examples),"
             " 'confusion': evaluation.confusion.tolist(), 'macro_f1': evaluation.macro_f1,"
             " 'errors': errors.to_dict('records'), 'labels': list(model.labels)}")
    nb, state = execute("model_results", tmp_path, probe)
    assert state["rows"] == [[run["model_name"], run["run_id"]]]
    groups = {c[0] for c in state["columns"]}
    assert groups == {"warehouse dev", "warehouse test"}
    assert [c[1] for c in state["columns"] if c[0] == "warehouse test"] == [*FOUR_WAY, "Acc", "macro-F1"]
    assert state["values"] and all(0 <= v <= 1 for v in state["values"])
    # the saved model was reloaded and re-scored on the test split, with a confusion matrix
    assert state["split"] == "test"
    assert sum(map(sum, state["confusion"])) == state["pairs"] > 0
    assert state["macro_f1"] == pytest.approx(stored["macro_f1"])  # it predicts what was recorded
    assert any(run["model_name"] in m and "warehouse test" in m for m in outputs(nb, "text/markdown"))
    assert len(outputs(nb, "image/png")) == 1
    # errors: only misclassified pairs, at most three per gold class, texts truncated
    wrong = sum(map(sum, state["confusion"])) - sum(row[i] for i, row in enumerate(state["confusion"]))
    errors = state["errors"]
    assert len(errors) == sum(min(3, sum(row) - row[i]) for i, row in enumerate(state["confusion"])) <= wrong
    assert all(e["gold"] != e["predicted"] and len(e["claim"]) <= 120 and len(e["article"]) <= 200 for e in errors)
    assert all(e["gold"] in state["labels"] for e in errors)


def test_notebooks_say_what_is_missing_on_a_warehouse_without_data(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "data" / "warehouse.duckdb").close()  # migrated, nothing crawled yet
    stats, state = execute("dataset_statistics", tmp_path, "{'sources': len(per_source), 'splits': len(per_split)}")
    assert state == {"sources": 0, "splits": 0}
    assert "no claim left out" in " ".join(outputs(stats, "text/plain"))
    results, state = execute("model_results", tmp_path, "{'latest': latest is None, 'errors': errors}")
    assert state == {"latest": True, "errors": None}
    assert "'no model to inspect'" in outputs(results, "text/plain")
