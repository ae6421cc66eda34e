"""What an operator sees in the Prefect UI, read back through a real server's API: the project's
own log lines in the flow and task runs (at their level), task runs named for what they work on,
no bookkeeping tasks in the graph, and the per-stage artifact with one column per figure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from helpers_prefect import PrefectServer, api_client, prefect_server
from helpers_search import false_claim_row
from helpers_true_claims import FLOOD, FUEL, claim_row
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    FlowRunFilter,
    FlowRunFilterId,
    LogFilter,
    LogFilterFlowRunId,
)
from prefect.logging.handlers import APILogWorker

from arastance.config import load_settings
from flows.pipeline import arastance_pipeline
from flows.retrieve_documents import retrieve_documents
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_warehouse

STAGE_COLUMNS = ["stage", "status", "seconds", "rows added", "dropped", "errors", "note"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def _run_ids(client: SyncPrefectClient, state: Any) -> set[UUID]:
    """The flow run of ``state`` and every subflow run under it."""
    root = state.state_details.flow_run_id
    ids = {root}
    for run in client.read_flow_runs():
        parent = run.parent_task_run_id and client.read_task_run(run.parent_task_run_id)
        if parent and parent.flow_run_id in ids:
            ids.add(run.id)
    return ids


def _logs(client: SyncPrefectClient, run_ids: set[UUID]) -> list[Any]:
    APILogWorker.drain_all(timeout=10)
    return client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=list(run_ids))), limit=200)


def _artifact(client: SyncPrefectClient, run_ids: set[UUID], key: str) -> list[dict[str, Any]]:
    [artifact] = [a for a in client.read_artifacts(
        artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=list(run_ids)))) if a.key == key]
    data = artifact.data
    return json.loads(data) if isinstance(data, str) else data


def _claims(path: Path) -> None:
    with open_warehouse(path) as wh:
        wh.insert_rows("claims", [
            claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
            claim_row("f2", "false", FUEL, date(2016, 3, 1)),
            claim_row("r1", "true", f"{FLOOD} صباحا", date(2016, 4, 1)),
        ])


@pytest.mark.slow
def test_stage_messages_levels_and_the_stages_table_reach_the_server(server: PrefectServer) -> None:
    settings = load_settings()
    _claims(settings.warehouse)
    with api_client(server) as client:
        # retrieval has no index and no corpus on this fresh data directory: it fails, and says why
        state = arastance_pipeline(stages=["select", "retrieve"], return_state=True)
        assert state.is_failed()
        # the run's message says why, not only which stage (the Runs list shows it)
        assert "stage retrieve failed: " in state.message and "search.corpus_path" in state.message, state.message
        runs = _run_ids(client, state)
        logs = _logs(client, runs)
        stages = _artifact(client, runs, "arastance-pipeline-stages")
        figures = _artifact(client, runs, "arastance-pipeline-figures")
        task_names = [t.name for t in client.read_task_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=list(runs))))]

    project = [log for log in logs if log.name.split(".")[0] in ("flows", "tasks", "warehouse")]
    messages = [(log.name, log.level, log.message) for log in project]
    # the parent flow's decisions, with their figures
    assert any(m.startswith("stage started stage=select") for _, _, m in messages), messages
    assert any(m.startswith("stage finished stage=select") and "rows_added=" in m for _, _, m in messages)
    # a task run's own lines are attached to that task run
    inputs = [log for log in project if log.message.startswith("selection inputs read")]
    assert inputs and inputs[0].task_run_id is not None and "seeds=2 headlines=1" in inputs[0].message
    # a failure is logged at ERROR with the reason an operator can act on
    errors = [m for _, level, m in messages if level == 40]
    assert any("stage=retrieve" in m and "search.corpus_path" in m for m in errors), messages
    # no bookkeeping task in the graph
    assert not [n for n in task_names if "warehouse_counts" in n or "warehouse_totals" in n], task_names

    assert [list(row) for row in stages] == [STAGE_COLUMNS, STAGE_COLUMNS]
    select, retrieve = stages
    assert (select["stage"], select["status"], select["note"]) == ("select", "ok", "")
    assert select["rows added"] >= 2  # the selection run and its match
    assert retrieve["status"] == "failed" and "no local search index" in retrieve["note"]
    assert {(f["stage"], f["figure"], f["what"]) for f in figures} >= {
        ("select", "rows added", "selection_runs"), ("select", "rows added", "selection_matches")}


@pytest.mark.slow
def test_search_runs_are_named_by_their_claim_and_the_claims_table_shows_its_text(server: PrefectServer) -> None:
    settings = load_settings()
    with open_warehouse(settings.warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row("flood", FLOOD, date(2017, 11, 20))])
    LocalIndex.build(records_from_dicts([{
        "url": "https://www.youm7.com/story/2017/11/21/flood", "title": "سيول في جدة", "domain": "youm7.com",
        "text": "غمرت السيول شوارع مدينة جدة وتعطلت حركة المرور في عدة أحياء.", "published_date": "2017-11-21"}]),
        settings.search_index_dir)
    with api_client(server) as client:
        state = retrieve_documents(fetch=False, return_state=True)
        assert state.is_completed()
        runs = _run_ids(client, state)
        names = {t.name for t in client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=list(runs))))}
        claims = _artifact(client, runs, "retrieve-documents-claims")
        logs = _logs(client, runs)
    assert "search: سيول جارفة تغمر شوارع مدينة جدة …" in names, names
    assert "store: سيول جارفة تغمر شوارع مدينة جدة …" in names
    assert [(c["claim"], c["claim_id"], c["status"]) for c in claims] == [
        ("سيول جارفة تغمر شوارع مدينة جدة …", "flood", "searched")]
    assert all(isinstance(claims[0][k], int) for k in ("hits", "candidates", "kept", "pairs"))
    assert any(log.message.startswith("retrieval planned claims=1") for log in logs)
