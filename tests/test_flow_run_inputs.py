"""What a flow run works on and records, on a real Prefect server: the warehouse a training reads,
an invalid setting under the configured task runner, the parameters a site's run stores, and the
retraining check's retries."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from unittest import mock

import pytest
from helpers_disk import read_only
from helpers_ports import free_port
from helpers_stance import tiny_examples
from prefect import get_client
from prefect.exceptions import ParameterTypeError
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from warehouse import WarehouseError, open_warehouse
from warehouse.model_runs import evaluations, model_runs

T0 = datetime(2024, 1, 1)
SPLITS = {"c1": "train", "c2": "train", "c3": "train", "c4": "dev"}


@pytest.fixture(scope="module", autouse=True)
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield


def _warehouse_with_gold(path: Path) -> Path:
    """A warehouse whose gold splits are the tiny corpus: three claims in train, one in dev."""
    examples = tiny_examples()
    with open_warehouse(path) as wh:
        wh.insert_rows("claims", [{"claim_id": cid, "source_id": "araanews", "url": f"https://a/{cid}",
                                   "canonical_url": f"https://a/{cid}", "cleaned_text": e.claim, "veracity": "false",
                                   "first_seen": T0, "last_seen": T0}
                                  for cid, e in {e.claim_id: e for e in examples}.items()])
        wh.insert_rows("articles", [{"article_id": e.article_id, "url": f"https://n/{e.article_id}",
                                     "canonical_url": f"https://n/{e.article_id}", "text": e.article,
                                     "fetch_status": "ok"} for e in examples])
        wh.insert_rows("claim_article_pairs", [{"pair_id": f"p-{e.article_id}", "claim_id": e.claim_id,
                                                "article_id": e.article_id, "created_at": T0} for e in examples])
        wh.insert_rows("gold_labels", [{"pair_id": f"p-{e.article_id}", "label": e.label, "method": "agreed",
                                        "decided_at": T0} for e in examples])
        wh.insert_rows("splits", [{"claim_id": cid, "split": split, "assigned_at": T0}
                                  for cid, split in SPLITS.items()])
    return path


@pytest.mark.slow
def test_a_training_and_an_evaluation_for_another_warehouse_use_its_gold_labels(tmp_path: Path) -> None:
    # it was: a run given warehouse B (the gold-label event's trigger names it) read the configured
    # warehouse A's gold splits and recorded the result in B (here A has none: the run failed naming A)
    from flows.evaluate import evaluate_stance_model
    from flows.train import train_stance_model

    configured = load_settings().warehouse
    open_warehouse(configured).close()
    other = _warehouse_with_gold(tmp_path / "b" / "warehouse.duckdb")
    trained = train_stance_model(warehouse_path=str(other), variant="tfidf")
    assert trained["results"]["warehouse/dev"]["macro_f1"] == pytest.approx(1.0)
    scored = evaluate_stance_model(warehouse_path=str(other), splits=["dev", "train"])
    assert set(scored["results"]) == {"warehouse/dev", "warehouse/train"}
    with open_warehouse(other, read_only=True) as wh:
        [run] = model_runs(wh)
        support = [(r["split"], r["value"]) for r in evaluations(wh, run["run_id"]) if r["metric"] == "support"]
    assert run["status"] == "succeeded" and run["artifact_path"] == trained["model_dir"]
    assert sum(value for split, value in support if split == "train") == 12.0  # B's three train claims
    with open_warehouse(configured, read_only=True) as wh:
        assert model_runs(wh) == []

    # a record that fails names the command that records the model in B, not in the configured warehouse
    with read_only(other), pytest.raises(WarehouseError) as failed:
        train_stance_model(warehouse_path=str(other), variant="tfidf")
    said = " ".join(str(failed.value).split())
    command = re.findall(r"`([^`]+)` records it", said)[-1]
    assignment, *words = shlex.split(command)
    assert assignment == f"ARASTANCE_WAREHOUSE_PATH={other}" and words[:2] == ["arastance", "evaluate"]
    name, value = assignment.split("=", 1)
    recorded = CliRunner().invoke(app, words[1:], env={name: value})
    assert recorded.exit_code == 0, recorded.output
    with open_warehouse(other, read_only=True) as wh:
        assert len(model_runs(wh)) == 2
    with open_warehouse(configured, read_only=True) as wh:
        assert model_runs(wh) == []


@pytest.mark.slow
def test_an_invalid_setting_fails_a_run_on_the_configured_task_runner_naming_the_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the runner read the settings while Prefect set the run up; the error escaped the run,
    # which stayed Running (in process) or Crashed with a generic message (under a worker)
    from flows.retrieve_documents import retrieve_documents

    monkeypatch.setenv("ARASTANCE_SEARCH__RESULTS_PER_QUERY", "ten")
    state = retrieve_documents(return_state=True)
    assert state.is_failed() and "search.results_per_query" in state.message
    with get_client(sync_client=True) as client:
        stored = client.read_flow_run(state.state_details.flow_run_id).state
    assert stored.is_failed() and "search.results_per_query" in stored.message


@pytest.mark.slow
def test_a_site_run_stores_no_settings_and_no_credentials_among_its_parameters() -> None:
    # it was: every crawl-<site>-<mode> run stored the whole settings (about 5 KB), a SearXNG URL
    # with its basic-auth password in clear
    from flows.crawl_sources import crawl_sources

    dead = f"http://127.0.0.1:{free_port()}/"
    env = {"ARASTANCE_SITES__NORUMORS": dead, "ARASTANCE_CRAWL__RETRY_TIMES": "0",
           "ARASTANCE_CRAWL__DOWNLOAD_DELAY_S": "0",
           "ARASTANCE_SEARCH__SEARXNG_URL": "https://alice:PASSWORD999@searx.example/"}
    with mock.patch.dict(os.environ, env):
        parent = crawl_sources(sites=["norumors"], mode="live", return_state=True)
    assert parent.is_failed() and "norumors (live): " in parent.message  # the site's run did run
    with get_client(sync_client=True) as client:
        runs = {r.name: r for r in client.read_flow_runs()}
    site = runs["crawl-norumors-live"]
    assert site.parameters.keys() == {"site", "mode", "window", "warehouse_path", "incremental"}
    assert "PASSWORD999" not in json.dumps(site.parameters, default=str)


def test_the_retraining_check_refuses_a_threshold_below_one() -> None:
    from flows.triggers import check_retraining_due

    for threshold in (0, -1):  # it was: accepted, and the check failed four times on it
        with pytest.raises(ParameterTypeError):
            check_retraining_due.validate_parameters({"threshold": threshold})
    assert check_retraining_due.validate_parameters({"threshold": 1})["threshold"] == 1


@pytest.mark.slow
def test_the_retraining_check_fails_at_once_on_a_warehouse_it_cannot_read(tmp_path: Path) -> None:
    # it was: retried three times, 2 s apart, whatever the error; only a busy warehouse is retried
    from flows.triggers import check_retraining_due

    a_dir = tmp_path / "a-dir.duckdb"
    a_dir.mkdir()
    state = check_retraining_due(warehouse_path=str(a_dir), return_state=True)
    assert state.is_failed()
    with get_client(sync_client=True) as client:
        [task_run] = [t for t in client.read_task_runs() if t.flow_run_id == state.state_details.flow_run_id]
    assert task_run.run_count == 1 and task_run.state.is_failed()
