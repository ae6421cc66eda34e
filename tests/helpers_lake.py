"""Fixtures of a DuckLake warehouse on a real PostgreSQL catalog, for the test modules that import them.

One PostgreSQL server per module (:func:`postgres`); each test's :func:`lake_env` gets its own
catalog database and data path.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers_postgres import NO_SERVER, PostgresServer, temporary_postgres


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with temporary_postgres("arastance-pg-") as server:
        if server is None:
            pytest.skip(NO_SERVER)
        yield server


@pytest.fixture
def lake_env(postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Settings (as environment variables) of a fresh DuckLake: a new catalog database, a new data path."""
    env = {
        "ARASTANCE_WAREHOUSE_BACKEND": "ducklake",
        "ARASTANCE_WAREHOUSE_CATALOG_URL": postgres.create_database(f"lake_{uuid.uuid4().hex[:12]}"),
        "ARASTANCE_WAREHOUSE_DATA_PATH": str(tmp_path / "shared" / "lake"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@contextmanager
def stoppable_lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[PostgresServer]:
    """A DuckLake on a PostgreSQL server of its own, for a test that stops the server (a lost catalog):
    the settings point at a new catalog database and a data path under ``tmp_path``."""
    with temporary_postgres(f"arastance-pg-{name}-") as server:
        if server is None:
            pytest.skip(NO_SERVER)
        monkeypatch.setenv("ARASTANCE_WAREHOUSE_BACKEND", "ducklake")
        monkeypatch.setenv("ARASTANCE_WAREHOUSE_CATALOG_URL", server.create_database(name))
        monkeypatch.setenv("ARASTANCE_WAREHOUSE_DATA_PATH", str(tmp_path / "lake"))
        yield server
