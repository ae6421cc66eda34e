"""Fixtures of a DuckLake warehouse on a real PostgreSQL catalog, for the test modules that import them.

One PostgreSQL server per module (:func:`postgres`); each test's :func:`lake_env` gets its own
catalog database and data path.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_postgres import PostgresServer, postgres_bin_dir, start_postgres


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (initdb): install the Debian package postgresql (.ci/run does)")
    root = Path(tempfile.mkdtemp(prefix="arastance-pg-"))  # not under pytest's root-only tmp: the server runs as postgres
    server = start_postgres(bin_dir, root)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


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
