"""One reduced run of the real demo flow, shared by the demo and notebook tests.

The demo is the slowest thing the suite does (a crawl of four snapshot sites, selection,
retrieval with article fetching, simulated annotation, dataset build and training), so it runs
once per test session and every test that needs it points its settings at the same data
directory. pytest cannot share a session fixture between two test modules without a conftest,
hence the module-level cache keyed by the session's base temporary directory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prefect.testing.utilities import prefect_test_harness

from warehouse import open_warehouse

RETRIEVE_LIMIT = 20  # claims that get documents: enough for every split to have pairs, quick on 2 cores
PREFECT_STARTUP_SECONDS = 180  # a loaded 2-core machine can be slow to start Prefect's temporary server
# The CPU model without e5 embeddings: the demo trains the default, the test a cheaper variant.
TEST_MODEL_VARIANT = "tfidf_sim"
COLLECTION_STAGES = ["crawl", "select", "retrieve"]


@dataclass(frozen=True)
class DemoRun:
    """What the demo produced, and what a second pass over the collection stages changed."""

    data_dir: Path
    result: dict[str, Any]
    counts_after_demo: dict[str, int]
    rerun_stages: list[dict[str, Any]]
    counts_after_rerun: dict[str, int]
    pairs_before_rerun: set[tuple[str, str]]
    pairs_after_rerun: set[tuple[str, str]]
    seconds: float

    @property
    def warehouse(self) -> Path:
        return self.data_dir / "warehouse.duckdb"

    def use(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Point this test's settings (and any subprocess it starts) at the demo's data."""
        monkeypatch.setenv("ARASTANCE_DATA_DIR", str(self.data_dir))
        monkeypatch.setenv("ARASTANCE_WAREHOUSE_PATH", str(self.warehouse))


def _pairs(path: Path) -> set[tuple[str, str]]:
    with open_warehouse(path, read_only=True) as wh:
        rows = wh.query("SELECT claim_id, article_id FROM claim_article_pairs")
    return {(r["claim_id"], r["article_id"]) for r in rows}


def _counts(path: Path) -> dict[str, int]:
    with open_warehouse(path, read_only=True) as wh:
        return wh.table_counts()


def run_demo(root: Path) -> DemoRun:
    """Run ``arastance_demo`` on a reduced scale in ``root``, then the collection stages again."""
    from snapshots.demo.flow import arastance_demo
    from flows.pipeline import arastance_pipeline
    from snapshots.offline import offline_world

    data_dir = root / "data"
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("ARASTANCE_DATA_DIR", str(data_dir))
        mp.setenv("ARASTANCE_MODEL__CPU_VARIANT", TEST_MODEL_VARIANT)
        mp.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", str(PREFECT_STARTUP_SECONDS))
        mp.delenv("PREFECT_API_URL", raising=False)  # the temporary server, never a real one
        with prefect_test_harness(server_startup_timeout=PREFECT_STARTUP_SECONDS):
            result = arastance_demo(retrieve_limit=RETRIEVE_LIMIT, annotation_seed=0)
            warehouse = data_dir / "warehouse.duckdb"
            counts_after_demo, pairs_before = _counts(warehouse), _pairs(warehouse)
            with offline_world():  # a new server on a new port: the same sites at another address
                rerun = arastance_pipeline(stages=COLLECTION_STAGES, retrieve_limit=RETRIEVE_LIMIT)
    return DemoRun(
        data_dir=data_dir, result=result, counts_after_demo=counts_after_demo, rerun_stages=rerun,
        counts_after_rerun=_counts(warehouse), pairs_before_rerun=pairs_before,
        pairs_after_rerun=_pairs(warehouse), seconds=time.monotonic() - started,
    )


_RUNS: dict[Path, DemoRun] = {}


def shared_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The session's demo run, made by the first test that asks for it."""
    key = tmp_path_factory.getbasetemp()
    if key not in _RUNS:
        _RUNS[key] = run_demo(tmp_path_factory.mktemp("demo"))
    return _RUNS[key]


@pytest.fixture
def demo(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> DemoRun:
    """The shared demo run, with this test's settings (and any kernel or subprocess it starts,
    which inherit the environment) pointing at its data. Import it into a test module to use it."""
    run = shared_demo(tmp_path_factory)
    run.use(monkeypatch)
    return run
