"""``arastance evaluate --model DIR`` refuses a directory that holds no saved model before any flow runs.

It was: the command started a temporary Prefect server (about 15 s), ran the flow, and the error came
three times among the flow run's log lines; ``predict`` checks the same path at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind", ["missing", "empty directory", "a file"])
def test_a_model_path_that_holds_no_model_is_one_line_and_starts_no_flow(kind: str, tmp_path: Path) -> None:
    model = tmp_path / "model"
    if kind == "empty directory":
        model.mkdir()
    elif kind == "a file":
        model.write_text("not a model", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "arastance.cli", "evaluate", "--model", str(model)], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO), "ARASTANCE_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {model}") and done.stderr.count("\n") == 1, done.stderr
    assert "prefect" not in done.stderr.lower()
