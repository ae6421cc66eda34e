"""The demo flow (every stage, then the collection stages again) on a DuckLake with a real
PostgreSQL catalog: it stores what it stores on a DuckDB file, and the second pass no key twice.

The lake restates the migrations without constraints (:mod:`warehouse.lake_schema`), so nothing
but the writers' own care keeps a key unique there; this runs every writer of the pipeline on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_demo import DemoRun, run_demo, shared_demo
from helpers_lake import lake_env, postgres  # noqa: F401 - the fixtures

from warehouse import open_warehouse
from warehouse.lake_schema import lake_schema

pytestmark = pytest.mark.slow


def _repeated_keys() -> dict[str, int]:
    """Per table and declared key, how many key values more than one row holds."""
    repeated = {}
    with open_warehouse(read_only=True) as wh:
        for table, keys in lake_schema().keys.items():
            for key in keys:
                cols = ", ".join(f'"{c}"' for c in key)
                nonnull = " AND ".join(f'"{c}" IS NOT NULL' for c in key)
                n = wh.scalar(f'SELECT count(*) FROM (SELECT {cols} FROM "{table}" WHERE {nonnull} '
                              f'GROUP BY {cols} HAVING count(*) > 1)')
                if n:
                    repeated[f"{table}({', '.join(key)})"] = n
    return repeated


def test_the_demo_on_a_lake_stores_what_it_stores_on_a_file_and_its_rerun_no_key_twice(
    lake_env: dict[str, str], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,  # noqa: F811
) -> None:
    (tmp_path / "lake-demo").mkdir()
    on_lake: DemoRun = run_demo(tmp_path / "lake-demo")
    stages = {row["stage"]: row["status"] for row in on_lake.result["stages"]}
    assert stages == dict.fromkeys(["crawl", "select", "retrieve", "dataset", "train"], "ok"), on_lake.result["stages"]
    assert [row["status"] for row in on_lake.rerun_stages] == ["ok"] * 3, on_lake.rerun_stages
    assert _repeated_keys() == {}
    done = {claim for claim, _ in on_lake.pairs_before_rerun}  # the rerun's retrieval moves on to other claims
    assert {p for p in on_lake.pairs_after_rerun if p[0] in done} == on_lake.pairs_before_rerun
    with pytest.MonkeyPatch.context() as mp:  # the same demo on a DuckDB file (shared with the other demo tests)
        for name in lake_env:
            mp.delenv(name)
        on_file = shared_demo(tmp_path_factory)
    assert on_lake.counts_after_demo == on_file.counts_after_demo
    assert on_lake.counts_after_rerun == on_file.counts_after_rerun
