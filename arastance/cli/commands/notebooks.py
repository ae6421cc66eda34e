"""``arastance notebooks``: JupyterLab on ``notebooks/`` with the project's own kernel.

The notebooks are jupytext scripts (``notebooks/*.py``, reviewed as code); jupytext's contents
manager opens them as notebooks. They read the configured warehouse: the settings this command
read reach the kernel (:func:`kernel_environment`), every relative path resolved as this command
resolved it, although Jupyter starts the kernel in notebooks/.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import typer
from pydantic import BaseModel

from arastance.cli.common import console, fail, settings
from arastance.config import Settings
from arastance.config.settings import CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, ENV_PREFIX

#: how a variable names a setting inside a group (``ARASTANCE_MODEL__DATASETS_DIR``)
ENV_NESTED_DELIMITER = Settings.model_config["env_nested_delimiter"]

#: text settings naming a hub id or a local folder: a relative folder goes to the kernel resolved
ENCODER_SETTINGS = ("transformer", "ensemble_encoder")

KERNEL_NAME = "arastance"
KERNEL_DISPLAY_NAME = "AraStance (project .venv)"
NOTEBOOKS_DIR = Path(__file__).resolve().parents[3] / "notebooks"


def ensure_kernel() -> Path:
    """The ``arastance`` kernelspec inside this environment (``sys.prefix``), pointing at this
    interpreter, where the project is installed; installed on first use."""
    from ipykernel.kernelspec import install
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)
        if spec.argv and Path(spec.argv[0]) == Path(sys.executable):
            return Path(spec.resource_dir)
    except NoSuchKernel:
        pass
    return Path(install(kernel_name=KERNEL_NAME, display_name=KERNEL_DISPLAY_NAME, prefix=sys.prefix))


def kernel_environment(s: Settings) -> dict[str, str]:
    """The ``ARASTANCE_*`` variables that make the kernel read the settings this command read.

    Jupyter starts a kernel in its notebook's folder (notebooks/), where ``./arastance.toml`` is not the
    file read here and a relative path names another place: ``ARASTANCE_DATA_DIR`` alone lost the
    file's ``warehouse_path``, DuckLake backend and model settings, and the kernel read another
    warehouse than the one printed. The settings file goes by absolute path, and so does every path
    setting (:func:`path_settings`): ``model.embedding_cache = "cache/e5.sqlite"`` or the default
    ``model.datasets_dir`` (``../shared/datasets``) named another cache and datasets folder in the kernel
    than on the command line. Variables win over the file, and they override the command's own
    ``ARASTANCE_*`` variables, so a relative path given in either reaches the kernel resolved here.
    """
    env = path_settings(s)
    if s.warehouse_data_path is not None and "://" not in s.warehouse_data_path:
        # DuckLake's Parquet folder is text (it may be an object store URL); a local one is relative as the others
        env[f"{ENV_PREFIX}WAREHOUSE_DATA_PATH"] = str(Path(s.warehouse_data_path).resolve())
    for name in ENCODER_SETTINGS:  # a hub id, or a folder that a relative name finds only from here
        folder = Path(getattr(s.model, name)).expanduser()
        if not folder.is_absolute() and folder.is_dir():
            env[f"{ENV_PREFIX}MODEL{ENV_NESTED_DELIMITER}{name.upper()}"] = str(folder.resolve())
    config = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
    if config.is_file():  # settings() already refused an ARASTANCE_CONFIG naming no file
        env[CONFIG_FILE_ENV] = str(config.resolve())
    return env


def path_settings(group: BaseModel, prefix: str = ENV_PREFIX) -> dict[str, str]:
    """Every ``Path`` setting of ``group`` and its sub-groups, as the variable that sets it (``ARASTANCE_MODEL__
    EMBEDDING_CACHE``) and its absolute path, resolved against this process's working directory.

    The settings' values are walked, not a list of names, so a path setting added later travels too; unset ones
    (``None``) are left out, and the kernel derives them from ``data_dir`` as this command did. Derived
    ``warehouse_path`` is set by validation, so it goes as well.
    """
    env: dict[str, str] = {}
    for name, value in group:
        if isinstance(value, BaseModel):
            env |= path_settings(value, f"{prefix}{name.upper()}{ENV_NESTED_DELIMITER}")
        elif isinstance(value, Path):
            env[f"{prefix}{name.upper()}"] = str(value.resolve())
    return env


def lab_command(port: int, browser: bool, extra: list[str]) -> list[str]:
    """JupyterLab on the notebooks folder, on loopback, jupytext opening ``.py`` as notebooks."""
    return [sys.executable, "-m", "jupyter", "lab", f"--notebook-dir={NOTEBOOKS_DIR}", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", f"--ServerApp.open_browser={browser}",
            "--ServerApp.contents_manager_class=jupytext.TextFileContentsManager",
            f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}",
            # containers often run as root; the server listens on loopback only
            *(["--ServerApp.allow_root=True"] if os.geteuid() == 0 else []), *extra]


def notebooks(
    port: int = typer.Option(8888, min=0, max=65535, help="JupyterLab's port on 127.0.0.1 (0: any free port)"),
    browser: bool = typer.Option(True, "--browser/--no-browser", help="open a browser tab"),
    jupyter_args: list[str] = typer.Argument(None, help="more JupyterLab options, after `--`"),
) -> None:
    """Open JupyterLab on notebooks/ with the project's kernel and the configured warehouse."""
    s = settings()
    missing = [m for m in ("jupyterlab", "jupytext", "ipykernel") if importlib.util.find_spec(m) is None]
    if missing:
        fail(f"{', '.join(missing)} not installed: `make notebooks`, or `.venv/bin/pip install -e '.[notebooks]'`")
    if not NOTEBOOKS_DIR.is_dir():
        fail(f"no notebooks folder at {NOTEBOOKS_DIR}: run this from a checkout of the project")
    kernel = ensure_kernel()
    os.environ.update(kernel_environment(s))  # the kernel reads the same settings and warehouse
    console.print(f"JupyterLab on {NOTEBOOKS_DIR} (open a .py notebook with right-click → Open With → Notebook)\n"
                  f"kernel: {KERNEL_DISPLAY_NAME} ({kernel})\nwarehouse: {s.warehouse.resolve()}", highlight=False)
    command = lab_command(port, browser, list(jupyter_args or []))
    os.execv(command[0], command)


def register(app: typer.Typer) -> None:
    app.command("notebooks")(notebooks)
