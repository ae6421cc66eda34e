"""Every write to a DuckLake warehouse runs under the catalog's write lock, in a transaction or not.

DuckLake alone commits two transactions that do not conflict in its eyes: two anti-join inserts of
the same key both commit, and the key is stored twice. Only :meth:`Warehouse.transaction` took the
catalog's lock, so the writes made outside one (a claim's failed retrieval status, a query's cached
answers and refunds in ``cached_search``) ran beside other hosts' writers. Each test gets its own
catalog database and data path on one PostgreSQL server started for the module.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from helpers_lake import lake_env, postgres, stoppable_lake  # noqa: F401 - the fixtures
from helpers_search import false_claim_row
from helpers_stopping import stopped_context

from arastance.base.stopping import StopRequested
from arastance.config import load_settings
from tasks.retrieval import plan_retrieval
from tasks.search import cache as search_cache
from tasks.search.cache import utc_today
from warehouse import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse
from warehouse.retrieval import (
    add_queries_used,
    mark_claims_done,
    queries_used,
    release_queries_used,
    replace_decisions,
    set_claim_status,
    store_hits,
    store_pairs,
    store_results,
)
from warehouse.model_runs import ModelRun, finish_run, start_run
from warehouse.schema_check import run_guarded

ROOT = Path(__file__).resolve().parents[1]
DAY = date(2024, 1, 1)
AT = datetime(2024, 1, 1, 12)
WAITING = "waiting for another writer of the DuckLake warehouse to commit"

_WRITER = """
import sys, time
from pathlib import Path
from warehouse import open_warehouse
from warehouse.retrieval import set_claim_status, store_results
go, claims = Path(sys.argv[1]), int(sys.argv[2])
with open_warehouse() as wh:
    while not go.exists():
        time.sleep(0.01)
    for i in range(claims):  # as a retrieval run stores a failed claim, and `retrieve search` an answer
        set_claim_status(wh, f"claim-{i:03d}", backend="brave", status="failed", queries=1, error="HTTP 503")
        store_results(wh, cache_key=f"key-{i:03d}", backend="brave", query_text=f"query {i}", window_start=None,
                      window_end=None, num=5, results=[])
"""


def _writer(env: dict[str, str], go: Path, claims: int) -> subprocess.Popen[bytes]:
    """A process of its own (another host's worker) writing outside any transaction once ``go`` appears."""
    child_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", _WRITER, str(go), str(claims)], env=child_env,
                            stderr=subprocess.PIPE)


def test_two_processes_writing_outside_a_transaction_store_each_key_once(lake_env: dict[str, str],
                                                                         tmp_path: Path) -> None:
    # it was: each upsert's update and anti-join insert committed on their own, beside the other
    # process's, and both inserted the claims neither had stored yet
    claims = 30
    open_warehouse().close()  # migrated: the writers below only write
    go = tmp_path / "go"
    procs = [_writer(lake_env, go, claims) for _ in range(2)]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
    with open_warehouse(read_only=True) as wh:
        for table, key in (("claim_retrieval", "claim_id"), ("search_cache", "cache_key")):
            assert wh.query(f"SELECT count(*) AS n, count(DISTINCT {key}) AS keys FROM {table}") == [
                {"n": claims, "keys": claims}], table


def _hit(n: int) -> dict[str, Any]:
    return {"hit_id": f"hit-{n}", "query_id": "query-1", "backend": "brave", "rank": n, "url": f"https://a.example/{n}",
            "title": None, "snippet": None, "published_date": None, "retrieved_at": AT}


def _decision(url: str) -> dict[str, Any]:
    return {"claim_id": "claim-1", "canonical_url": url, "url": url, "domain": "a.example", "decision": "kept",
            "reason": "top_k", "rank": 1, "similarity": 0.5, "best_rank": 1, "query_kinds": "claim", "decided_at": AT,
            "date_check": None, "published_date": None, "date_source": None, "window_start": None, "window_end": None}


def _pair(n: int) -> dict[str, Any]:
    return {"pair_id": f"pair-{n}", "claim_id": "claim-1", "article_id": f"article-{n}", "rank": n, "similarity": 0.5,
            "reason": "top_k", "created_at": AT}


def _run(run_id: str) -> ModelRun:
    return ModelRun(run_id, "model", "cpu", {"dataset": "warehouse"}, "", "", AT)


def _seed(wh: Warehouse) -> None:
    """What the writes below change: a claim being retrieved, its day's budget, a hit, a decision, a
    pair and a model run started."""
    start_run(wh, _run("run-1"))
    set_claim_status(wh, "claim-1", backend="brave", status="searched", queries=2)
    add_queries_used(wh, "brave", DAY, 5)
    with wh.transaction():
        store_hits(wh, "brave", ["query-1"], [_hit(1)])
        replace_decisions(wh, "claim-1", [_decision("https://a.example/1")])
        store_pairs(wh, ["claim-1"], [_pair(1)])


#: Each write found outside a transaction, or documented "call inside a transaction", with the table it changes.
WRITES: dict[str, tuple[str, Callable[[Warehouse], object]]] = {
    "Warehouse.insert_rows": ("sources", lambda wh: wh.insert_rows("sources", [
        {"source_id": "a.example", "name": "A", "kind": "news", "base_url": None}])),
    "Warehouse.execute": ("sources", lambda wh: wh.execute(
        "INSERT INTO sources (source_id, name, kind) VALUES ($id, 'B', 'news')", {"id": "b.example"})),
    "set_claim_status": ("claim_retrieval", lambda wh: set_claim_status(
        wh, "claim-1", backend="brave", status="failed", queries=2, error="HTTP 503")),
    "store_results": ("search_cache", lambda wh: store_results(
        wh, cache_key="key-1", backend="brave", query_text="سد النهضة", window_start=None, window_end=None, num=5,
        results=[])),
    "release_queries_used": ("search_usage", lambda wh: release_queries_used(wh, "brave", DAY, 2)),
    "mark_claims_done": ("claim_retrieval", lambda wh: mark_claims_done(wh, {"claim-1": 3})),
    "store_hits": ("search_hits", lambda wh: store_hits(wh, "brave", ["query-1"], [_hit(2)])),
    "replace_decisions": ("document_decisions", lambda wh: replace_decisions(
        wh, "claim-1", [_decision("https://a.example/2")])),
    "store_pairs": ("claim_article_pairs", lambda wh: store_pairs(wh, ["claim-1"], [_pair(2)])),
    "sql --write": ("claim_retrieval", lambda wh: run_guarded(wh, "UPDATE claim_retrieval SET kept = kept + 1")),
    "start_run": ("model_runs", lambda wh: start_run(wh, _run("run-2"))),
    "finish_run": ("model_runs", lambda wh: finish_run(wh, "run-1", succeeded=True)),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_a_write_outside_a_transaction_waits_for_the_lakes_writer(
        name: str, lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # it was: the write committed at once while another process held the catalog's write lock
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "1")
    caplog.set_level(logging.INFO, logger="warehouse.ducklake")
    table, write = WRITES[name]
    with open_warehouse() as holder, open_warehouse() as wh:  # two connections, two PostgreSQL sessions
        _seed(wh)
        before = wh.query(f"SELECT * FROM {table} ORDER BY ALL")
        with holder.exclusive(), pytest.raises(WarehouseBusyError, match="waited 1s for its write lock"):
            write(wh)
        [waiting] = [r for r in caplog.records if r.getMessage() == WAITING]  # said once, naming the holder
        assert re.fullmatch(r"PostgreSQL backend \d+ from .*", waiting.holder)
        assert wh.query(f"SELECT * FROM {table} ORDER BY ALL") == before  # nothing of it was stored
        write(wh)  # the holder is done: it goes ahead
        assert wh.query(f"SELECT * FROM {table} ORDER BY ALL") != before


def test_a_write_waiting_for_the_lakes_writer_stops_when_its_run_is_asked_to(
        lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the wait slept in time.sleep, so the thread of a stopped flow (a crawl's site) waited
    # out the whole warehouse_write_wait_s before it could end
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "5")
    stopped = stopped_context()  # the flow's block failed: its threads are asked to stop
    table, write = WRITES["Warehouse.insert_rows"]
    with open_warehouse() as holder, open_warehouse() as wh:
        with holder.exclusive(), pytest.raises(StopRequested):
            stopped.run(write, wh)
        assert wh.query(f"SELECT * FROM {table}") == []


def test_no_other_host_reserves_between_a_plans_budget_read_and_its_reservation(
        lake_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: a plan read the day's count, then took the lock to add to it; another host's plan that
    # reserved the rest of the budget in between was not seen, and both sent their queries
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", "BSA-lake-writes-test")
    monkeypatch.setenv("ARASTANCE_NLP__ANALYZER", "rules")
    with open_warehouse() as wh:
        wh.insert_rows("claims", [false_claim_row("c1", "السعودية تمنع دخول الحجاج القطريين", date(2017, 7, 10))])
        queries = len(plan_retrieval(wh, load_settings(), None, None, False).to_send["c1"])  # stores its queries
        wh.execute("DELETE FROM search_usage")  # nothing was sent: the day starts again
        monkeypatch.setenv("ARASTANCE_SEARCH__DAILY_QUERY_BUDGET", str(queries))
        monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "1")
        with open_warehouse() as other_host:
            def read_then_the_other_host_reserves(on: Warehouse, backend: str, day: date) -> int:
                used = queries_used(on, backend, day)
                with contextlib.suppress(WarehouseBusyError):  # it waits for the plan's reservation: 1 s, then gives up
                    add_queries_used(other_host, backend, day, queries)
                return used

            monkeypatch.setattr(search_cache, "queries_used", read_then_the_other_host_reserves)
            plan = plan_retrieval(wh, load_settings(), None, None, False)
        assert list(plan.to_send) == ["c1"]
        assert queries_used(wh, "brave", utc_today()) == queries  # never past the budget


def test_an_error_inside_a_lake_transaction_stays_the_error_when_the_catalog_is_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the ROLLBACKs of the transaction and of the write lock failed on the lost connection, and the
    # caller got DuckDB's "Failed to execute query \"ROLLBACK\"" with its own error as the context only (a
    # copy-to-lake whose catalog went down printed a traceback of three instead of one line)
    with stoppable_lake(tmp_path, monkeypatch, "lost") as server:
        with open_warehouse() as wh:
            with pytest.raises(WarehouseError, match="^the block's own error$"), wh.transaction():
                wh.insert_rows("sources", [{"source_id": "a.example", "name": "A", "kind": "news", "base_url": None}])
                server.stop()
                raise WarehouseError("the block's own error")

