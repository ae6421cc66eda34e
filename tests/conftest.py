"""Shared fixtures: an isolated configuration and a fresh, migrated warehouse per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from warehouse import Warehouse, open_warehouse


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs in its own directory, with no ARASTANCE_* variables from the outside."""
    for key in list(os.environ):
        if key.startswith("ARASTANCE_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def warehouse(tmp_path: Path) -> Iterator[Warehouse]:
    """A migrated warehouse file in the test's directory, closed afterwards."""
    wh = open_warehouse(tmp_path / "data" / "warehouse.duckdb")
    try:
        yield wh
    finally:
        wh.close()
