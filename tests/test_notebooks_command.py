"""``arastance notebooks`` opens JupyterLab on notebooks/ with the project's kernel: the server
lists the kernelspec pointing at this environment's Python, opens the jupytext scripts as
notebooks, and starts that kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers_prefect import free_port, stop_process

REPO = Path(__file__).resolve().parents[1]
TOKEN = "arastance-test"


def _get(url: str, method: str = "GET", body: bytes | None = None) -> dict:
    request = urllib.request.Request(url, data=body, method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        return json.loads(resp.read())


@pytest.mark.slow
def test_jupyterlab_serves_the_notebooks_with_the_project_kernel(tmp_path: Path) -> None:
    pytest.importorskip("jupyterlab", reason="installed by the dev extra (make install)")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arastance.cli", "notebooks", "--no-browser", "--port", str(port), "--",
         f"--IdentityProvider.token={TOKEN}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                specs = _get(f"{base}/kernelspecs")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"JupyterLab did not start:\n{proc.stdout.read().decode() if proc.stdout else ''}")
                time.sleep(0.5)
        assert specs["default"] == "arastance"
        assert specs["kernelspecs"]["arastance"]["spec"]["argv"][0] == sys.executable
        notebook = _get(f"{base}/contents/dataset_statistics.py?type=notebook&content=1")
        assert notebook["type"] == "notebook"
        assert notebook["content"]["metadata"]["kernelspec"]["name"] == "arastance"
        assert any("source_stats" in c["source"] for c in notebook["content"]["cells"])
        kernel = _get(f"{base}/kernels", method="POST", body=json.dumps({"name": "arastance"}).encode())
        assert kernel["name"] == "arastance"
    finally:
        stop_process(proc)



def test_a_port_outside_0_to_65535_is_refused_before_the_command_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: no range check, so jupyter was exec'd and died with a socket traceback
    from typer.testing import CliRunner

    from arastance.cli import app

    # The command's body installs a kernelspec and replaces this process with JupyterLab: a bad setting stops
    # it at its first line, should the option ever pass again.
    monkeypatch.setenv("ARASTANCE_LOG_LEVEL", "LOUD")
    for port, bound in (("-1", "greater than or equal to 0"), ("65536", "less than or equal to 65535")):
        refused = CliRunner().invoke(app, ["notebooks", "--no-browser", "--port", port])
        shown = " ".join(refused.output.replace("│", " ").split())
        assert refused.exit_code == 2 and f"Invalid value for '--port': Input should be {bound}" in shown, shown
