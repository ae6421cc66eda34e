"""A flow run as a Prefect worker runs a deployment: the entrypoint file loaded by Prefect's own
loader in a process of its own, where the module is named after the file (``pipeline``, not
``flows.pipeline``) and Prefect's console handler writes the process's output. The flow's own
lines must still reach the run's Logs tab with their fields, its console lines carry the fields
too, and a failed pipeline's state message says why its stage failed.

It was: the worker-loaded module's logger (``pipeline``) was none of the project's, so "stage
started", "stage failed … error=…" and the crawl's "crawl failed site=… error=…" never reached the
run, and the worker's output showed "crawl failed" without the site or the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from helpers_prefect import PrefectServer, api_client, prefect_server, wait_for
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
from prefect.client.schemas.objects import State

REPO = Path(__file__).resolve().parents[1]
#: What the worker's flow-run process does (``python -m prefect.engine``): load the entrypoint with
#: Prefect's loader, then run the flow; prints the module's name and the run's id for the test.
RUN_LIKE_A_WORKER = """
import json, sys
from prefect.flows import load_flow_from_entrypoint
flow = load_flow_from_entrypoint(sys.argv[1])
state = flow(**json.loads(sys.argv[2]), return_state=True)
print(json.dumps({"module": flow.fn.__module__, "run": str(state.state_details.flow_run_id)}))
"""
#: Every flow file loaded the same way: the name of each module-level logger.
LOAD_EVERY_FLOW = """
import json, sys
from pathlib import Path
from prefect.utilities.importtools import load_script_as_module
loggers = {}
for path in sorted(Path(sys.argv[1]).glob("*.py")):
    module = load_script_as_module(str(path))
    if hasattr(module, "log"):
        loggers[module.__name__] = module.log.name
print(json.dumps(loggers))
"""


@dataclass
class WorkerStyleRun:
    module: str  # the name the flow's module was loaded under
    run_id: UUID
    console: str  # the process's stderr: what a worker's output shows of the run
    state: State


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


@pytest.fixture(scope="module")
def failed_pipeline(server: PrefectServer, tmp_path_factory: pytest.TempPathFactory) -> WorkerStyleRun:
    """``arastance_pipeline`` run as a worker runs it, on a fresh data directory: the train stage
    fails at once, the warehouse's train split having no examples."""
    home = tmp_path_factory.mktemp("pipeline")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ARASTANCE_")},
           "ARASTANCE_DATA_DIR": str(home / "data"), "PREFECT_API_URL": server.api_url,
           "PREFECT_LOGGING_COLORS": "false"}
    done = _python(RUN_LIKE_A_WORKER, f"{REPO}/flows/pipeline.py:arastance_pipeline",
                   json.dumps({"stages": ["train"], "train": "always"}), env=env, cwd=home)
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    run_id = UUID(printed["run"])
    with api_client(server) as client:
        state = client.read_flow_run(run_id).state
    assert state is not None
    return WorkerStyleRun(printed["module"], run_id, done.stderr, state)


def _python(script: str, *args: str, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-c", script, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return done


def _project_logs(client: SyncPrefectClient, run_id: UUID) -> list[Any]:
    """The run's log lines of the project's own loggers (not Prefect's)."""
    logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])), limit=200)
    return [log for log in logs if not log.name.startswith("prefect")]


@pytest.mark.slow
def test_a_pipeline_loaded_from_its_file_logs_its_own_lines_with_their_fields_into_its_run(
        server: PrefectServer, failed_pipeline: WorkerStyleRun) -> None:
    assert failed_pipeline.module == "pipeline"  # as the worker names it
    with api_client(server) as client:
        def stage_lines() -> list[Any] | None:
            """The run's project lines once the last one (the failure) is stored: the process sent
            them before it ended, and the server may still be writing them."""
            logs = _project_logs(client, failed_pipeline.run_id)
            return logs if any(log.message.startswith("stage failed") for log in logs) else None

        logs = wait_for(stage_lines, 30, "the pipeline's stage lines in its run", lambda: failed_pipeline.console)
    lines = [(log.name, log.level, log.message) for log in logs]
    assert ("flows.pipeline", 20, "stage started stage=train") in lines, lines
    [(name, level, failed)] = [line for line in lines if line[2].startswith("stage failed")]
    assert (name, level) == ("flows.pipeline", 40)
    assert failed.startswith("stage failed stage=train error=") and "the train split" in failed, failed


@pytest.mark.slow
def test_a_failed_pipeline_says_in_its_message_why_its_stage_failed(failed_pipeline: WorkerStyleRun) -> None:
    # it was: "PipelineFailed: stage(s) ['train'] failed; re-run to resume", the reason only in the child run
    state = failed_pipeline.state
    assert state.is_failed()
    assert "PipelineFailed: stage train failed: " in (state.message or ""), state.message
    assert "the train split of warehouse has no examples; re-run to resume" in (state.message or "")


@pytest.mark.slow
def test_the_console_of_a_worker_style_run_shows_the_fields_of_the_project_lines(
        failed_pipeline: WorkerStyleRun) -> None:
    # Prefect's console format, with the fields after the message (it was: "applied migration" alone)
    console = failed_pipeline.console
    assert "| warehouse.migrate - applied migration version=" in console, console
    assert "| flows.pipeline - stage failed stage=train error=" in console


@pytest.mark.slow
def test_every_flow_file_loaded_under_its_file_name_logs_into_the_flows_tree() -> None:
    done = _python(LOAD_EVERY_FLOW, str(REPO / "flows"))
    loggers = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"pipeline", "crawl_sources", "retrieve_documents", "select_true_claims"} <= set(loggers), loggers
    assert loggers == {module: f"flows.{module}" for module in loggers}
