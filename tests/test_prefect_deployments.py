"""prefect.yaml against a real Prefect server (SQLite, loopback): every deployment is registered
with its schedules and triggers, a process worker runs one against a warehouse this test
prepares, a completed run starts the next stage through its trigger, and enough new gold
labels start a training through the custom event."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import yaml
from helpers_prefect import (
    PrefectServer,
    api_client,
    describe_runs,
    prefect_server,
    prefect_worker,
    settle_runs,
    wait_for,
)
from helpers_true_claims import FLOOD, FUEL, claim_row
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.objects import FlowRun, State
from prefect.deployments import run_deployment
from prefect.events.schemas.automations import Automation
from prefect.workers.process import ProcessWorker

from flows.triggers import THRESHOLD_EVENT, check_retraining_due, signal_retraining_if_due
from warehouse import Warehouse, open_warehouse

REPO = Path(__file__).resolve().parents[1]
POOL = "arastance-process"
SPEC = yaml.safe_load((REPO / "prefect.yaml").read_text(encoding="utf-8"))
DEPLOYMENTS = {d["name"]: d for d in SPEC["deployments"]}
TIMEZONE = "Asia/Riyadh"  # the deploy-time setting every schedule carries


@dataclass
class Deployed:
    server: PrefectServer
    warehouse: Path
    ids: dict[str, UUID]

    def worker_log(self) -> str:
        log = Path(self.server.env["PREFECT_HOME"]) / "worker.log"
        return log.read_text(errors="replace")[-4000:] if log.exists() else "(no worker log)"


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    """A server with the work pool and every deployment of prefect.yaml, deployed from the repo root."""
    root = tmp_path_factory.mktemp("deployments")
    data_dir = root / "data"
    env = {"ARASTANCE_DATA_DIR": str(data_dir), "PREFECT_WORKER_QUERY_SECONDS": "1",
           "ARASTANCE_SCHEDULE_TIMEZONE": TIMEZONE,
           # schedules are registered but create no runs here: only the test and the triggers start runs
           "PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED": "false"}
    with pytest.MonkeyPatch.context() as mp:
        for key in [k for k in os.environ if k.startswith("ARASTANCE_")]:
            mp.delenv(key)  # the worker's runs see this test's data directory only
        with prefect_server(root / "prefect", extra_env=env) as server:
            with api_client(server) as client:  # as `prefect work-pool create --type process` makes it
                client.create_work_pool(WorkPoolCreate(
                    name=POOL, type="process", base_job_template=ProcessWorker.get_default_base_job_template(),
                    concurrency_limit=1))  # one warehouse writer
            server.cli("deploy", "--all", cwd=REPO, timeout=300)
            with api_client(server) as client:
                ids = {d.name: d.id for d in client.read_deployments()}
            yield Deployed(server, data_dir / "warehouse.duckdb", ids)


def _started_by_automation(client: SyncPrefectClient, deployment_id: UUID) -> list[FlowRun]:
    """Runs of the deployment that a trigger created (its schedule creates others)."""
    return [r for r in client.read_flow_runs()
            if r.deployment_id == deployment_id and r.created_by is not None and r.created_by.type == "AUTOMATION"]


def _final_state(client: SyncPrefectClient, run_id: UUID) -> State | None:
    """The run's state once it is final, else None."""
    state = client.read_flow_run(run_id).state
    return state if state is not None and state.is_final() else None


def _trigger_summary(automation: Automation) -> dict[str, Any]:
    """What a trigger waits for, in plain data: the events, the resource, the related resources."""
    trigger = automation.trigger
    related = trigger.match_related if isinstance(trigger.match_related, list) else [trigger.match_related]
    labels = [r.model_dump() for r in related]
    return {
        "expect": set(trigger.expect),
        "match": trigger.match.model_dump(),
        "related": {(r["prefect.resource.role"], r["prefect.resource.name"]) for r in labels if r},
    }


@pytest.mark.slow
def test_every_flow_is_deployed_on_the_pool_with_its_schedules_and_triggers(deployed: Deployed) -> None:
    assert set(deployed.ids) == set(DEPLOYMENTS)
    with api_client(deployed.server) as client:
        deployments = {name: client.read_deployment(i) for name, i in deployed.ids.items()}
        automations = {name: client.read_resource_related_automations(f"prefect.deployment.{i}")
                       for name, i in deployed.ids.items()}

    for name, dep in deployments.items():
        spec = DEPLOYMENTS[name]
        assert dep.work_pool_name == POOL and dep.entrypoint == spec["entrypoint"]
        assert sorted(s.schedule.cron for s in dep.schedules) == sorted(s["cron"] for s in spec.get("schedules", []))
        assert all(s.active == (name != "clean-lake-weekly") for s in dep.schedules)  # off until a lake is set
        assert {s.schedule.timezone for s in dep.schedules} <= {TIMEZONE}
        # the runs start in the project directory recorded at deploy time (or the worker's own)
        script = dep.pull_steps[0]["prefect.deployments.steps.run_shell_script"]["script"]
        assert f"${{ARASTANCE_PROJECT_DIR:-{REPO}}}" in script
        assert dep.parameter_openapi_schema["type"] == "object"
        assert len(automations[name]) == len(spec.get("triggers", []))
        for automation in automations[name]:
            assert automation.enabled
            assert [(a.type, a.deployment_id) for a in automation.actions] == [("run-deployment", dep.id)]

    crons = {name: [s.schedule.cron for s in d.schedules] for name, d in deployments.items()}
    assert crons["crawl-daily"] == ["0 1 * * *"]  # daily
    [weekly] = crons["train-weekly"]
    assert weekly.split()[2:4] == ["*", "*"] and weekly.split()[4] != "*"  # one day of every week
    triggers = {name: [_trigger_summary(a) for a in automations[name]] for name in deployments}
    assert triggers["select-after-crawl"] == [{
        "expect": {"prefect.flow-run.Completed"}, "match": {"prefect.resource.id": "prefect.flow-run.*"},
        "related": {("flow", "crawl_sources"), ("deployment", "crawl-daily")}}]
    assert triggers["retrieve-after-selection"][0]["related"] == {("flow", "select_true_claims"),
                                                                   ("deployment", "select-after-crawl")}
    assert triggers["check-retraining"][0]["related"] == {("flow", "build_dataset")}
    assert [t["expect"] for t in triggers["train-weekly"]] == [{THRESHOLD_EVENT}]
    assert deployments["train-weekly"].concurrency_options.collision_strategy == "CANCEL_NEW"
    assert crons["evaluate-weekly"] == ["0 5 * * 1"]  # Mondays, after the 03:00 training
    assert crons["sites-check-weekly"] == ["0 2 * * 0"]  # Sundays, before the week's crawls
    assert crons["clean-lake-weekly"] == ["0 4 * * 0"]  # Sundays, between the site check and the Monday training
    assert deployments["pipeline"].schedules == [] and triggers["pipeline"] == []  # on demand


@pytest.mark.slow
def test_a_worker_runs_the_selection_on_the_prepared_warehouse_and_its_completion_starts_retrieval(
        deployed: Deployed) -> None:
    with open_warehouse(deployed.warehouse) as wh:
        wh.insert_rows("claims", [
            claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
            claim_row("f2", "false", FUEL, date(2016, 3, 1)),
            claim_row("r1", "true", f"{FLOOD} صباحا", date(2016, 4, 1)),
            claim_row("r2", "true", FUEL, date(2017, 9, 1)),  # outside a two-month window
        ])
    with prefect_worker(deployed.server, POOL, cwd=REPO), api_client(deployed.server) as client:
        try:
            run = run_deployment("select_true_claims/select-after-crawl", timeout=120, poll_interval=1,
                                 parameters={"window_months": 2, "warehouse_path": str(deployed.warehouse)})
            assert run.state is not None and run.state.is_completed(), f"{run.state}\n{deployed.worker_log()}"
            # its Completed event fires the retrieval deployment's trigger
            retrieval = wait_for(lambda: _started_by_automation(client, deployed.ids["retrieve-after-selection"]),
                                 60, "the retrieval run started by the selection's completion",
                                 lambda: f"{describe_runs(client)}\n{deployed.worker_log()}")
            assert len(retrieval) == 1
            # on the warehouse the selection worked on (it was: no parameters, so the worker's default)
            assert retrieval[0].parameters == {"warehouse_path": str(deployed.warehouse)}
            # The worker really ran it: it ends on its own, failing for want of a search index (this
            # world has none), and the message says how to get one. Waiting for that end also keeps
            # the clean-up below from cancelling a run that is finishing, which could leave it
            # "Cancelling" for good.
            ended = wait_for(lambda: _final_state(client, retrieval[0].id), 180, "the retrieval run to end",
                             lambda: f"{describe_runs(client)}\n{deployed.worker_log()}")
            assert ended.is_failed() and "no local search index" in (ended.message or ""), ended
        finally:
            settle_runs(client)
    with open_warehouse(deployed.warehouse, read_only=True) as wh:
        assert wh.query("SELECT seed_claim_id, headline_claim_id, rank FROM selection_matches") == [
            {"seed_claim_id": "f1", "headline_claim_id": "r1", "rank": 1}]
        assert wh.scalar("SELECT params->>'window_months' FROM selection_runs") == "2"


@pytest.mark.slow
def test_enough_new_gold_labels_emit_the_event_that_starts_training(deployed: Deployed) -> None:
    trained = datetime(2024, 1, 10)  # the last successful training on the warehouse's gold data began

    def run(run_id: str, started: datetime, finished: datetime, status: str, dataset: str) -> dict[str, Any]:
        return {"run_id": run_id, "model_name": "cpu", "model_kind": "cpu", "config": json.dumps({"dataset": dataset}),
                "started_at": started, "finished_at": finished, "status": status}

    with open_warehouse(deployed.warehouse) as wh:
        wh.insert_rows("model_runs", [
            run("old", datetime(2024, 1, 1), datetime(2024, 1, 1, 1), "succeeded", "warehouse"),
            # evaluated again later: finish time moved, its training did not
            run("last", trained, datetime(2024, 3, 1), "succeeded", "warehouse"),
            run("broken", datetime(2024, 2, 1), datetime(2024, 2, 2), "failed", "warehouse"),  # replaced nothing
            run("public", datetime(2024, 2, 3), datetime(2024, 2, 4), "succeeded", "arastance"),  # other data
        ])
        wh.insert_rows("gold_labels", [
            {"pair_id": f"p{i}", "label": "agree", "method": "agreed", "decided_at": datetime(2024, 1, day, 12)}
            for i, day in enumerate([5, 9, 10, 12, 20])
        ])
    with api_client(deployed.server) as client:
        try:
            below = check_retraining_due(threshold=4, warehouse_path=str(deployed.warehouse))
            assert below == {"new_gold_labels": 3, "threshold": 4, "last_training": trained.isoformat(), "event": None}
            reached = check_retraining_due(threshold=3, warehouse_path=str(deployed.warehouse))
            assert reached["event"] == THRESHOLD_EVENT and reached["new_gold_labels"] == 3
            train = wait_for(lambda: _started_by_automation(client, deployed.ids["train-weekly"]), 60,
                             "the training run started by the gold-label event", lambda: describe_runs(client))
            assert len(train) == 1
            # on the warehouse the event is about (it was: no parameters, so the worker's default)
            assert train[0].parameters == {"warehouse_path": str(deployed.warehouse.resolve())}
        finally:
            settle_runs(client)


def test_before_any_successful_training_every_gold_label_counts_and_the_threshold_must_be_positive(
        warehouse: Warehouse) -> None:
    warehouse.insert_rows("model_runs", [{"run_id": "r", "model_name": "cpu", "model_kind": "cpu",
                                          "started_at": datetime(2024, 3, 1), "status": "running"}])
    warehouse.insert_rows("gold_labels", [
        {"pair_id": f"p{i}", "label": "discuss", "method": "adjudicated", "decided_at": datetime(2020, 1, i + 1)}
        for i in range(4)])
    warehouse.close()
    # .fn: the task's own function, without a Prefect run; below the threshold nothing is emitted
    assert signal_retraining_if_due.fn(warehouse.path, threshold=5) == {
        "new_gold_labels": 4, "threshold": 5, "last_training": None, "event": None}
    with pytest.raises(ValueError, match="threshold must be at least 1, not 0"):
        signal_retraining_if_due.fn(warehouse.path, threshold=0)
