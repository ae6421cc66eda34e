"""DuckDB extensions from their pip packages (``duckdb-extension-<name>``), loaded offline.

DuckDB downloads an extension on first ``INSTALL``; offline that fails. The project installs the
extension binaries built for its pinned DuckDB as pip packages instead and loads them by path.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import duckdb

from warehouse.connection import WarehouseError


def extension_path(name: str) -> Path:
    """The ``.duckdb_extension`` file of the installed ``duckdb-extension-<name>`` package."""
    try:
        package = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError:
        raise WarehouseError(f"DuckDB extension {name!r} is not installed (pip package duckdb-extension-{name})") from None
    path = Path(package.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise WarehouseError(f"duckdb-extension-{name} has no build for DuckDB {duckdb.__version__} ({path} missing)")
    return path


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Load an extension into ``con`` from its pip package (a no-op when it is loaded already)."""
    loaded = con.execute("SELECT loaded FROM duckdb_extensions() WHERE extension_name = ?", [name]).fetchone()
    if loaded and loaded[0]:
        return
    con.execute(f"LOAD '{extension_path(name)}'")
