"""The build_dataset flow (a real Prefect run on a real server) and the annotate/dataset commands
end to end; ``arastance dataset build`` runs that flow, and its failure reads as one clear error."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_annotation import add_claims
from helpers_prefect import PrefectServer, api_client, prefect_server
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, FlowFilter, FlowFilterName
from prefect.client.schemas.objects import FlowRun
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from flows.build_dataset import build_dataset, decide_gold, flag_claims, read_statistics, split_claims
from snapshots.demo.annotators import simulate_discussion, simulate_export
from tasks.dataset.assemble import FlagResult
from helpers_publication import write_in_another_process
from warehouse import open_published, open_warehouse

runner = CliRunner()
LABELS = ("agree", "disagree", "discuss", "unrelated", "unrelated")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def _build_runs(client: SyncPrefectClient) -> list[FlowRun]:
    return client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["build_dataset"])))


def _artifacts(client: SyncPrefectClient, run: FlowRun) -> dict[str, Any]:
    found = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
    return {a.key: a.data for a in found}


def _seed_pairs(n_claims: int = 8) -> dict[str, str]:
    with open_warehouse(load_settings().warehouse) as wh:
        pairs = add_claims(wh, n_claims, 3)
    # claim 0 has only unrelated documents; the others a mix
    return {p: ("unrelated" if i < 3 else LABELS[i % 5]) for i, p in enumerate(pairs)}


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + str(result.stderr)
    return result.output


def _label_round(round_dir: Path, truth: dict[str, str], out: Path) -> list[str]:
    files = []
    for tasks_file in sorted(round_dir.glob("*.json")):
        target = out / round_dir.name / tasks_file.name
        simulate_export(tasks_file, lambda t: truth[t.pair_id], target, seed=3)
        files.append(str(target))
    return files


def test_annotate_and_dataset_commands_end_to_end(tmp_path: Path, server: PrefectServer) -> None:
    truth = _seed_pairs()
    tasks_dir, done_dir = tmp_path / "data" / "annotation", tmp_path / "labelled"
    assert "round pilot-1" in _invoke("annotate", "export", "pilot", "--size", "6")
    assert "round prod-1" in _invoke("annotate", "export", "production")
    files = _label_round(tasks_dir / "pilot-1", truth, done_dir) + _label_round(tasks_dir / "prod-1", truth, done_dir)
    out = _invoke("annotate", "import", *files)
    assert "imported" in out
    assert "imported before" in _invoke("annotate", "import", files[0])  # the table may fold the rest
    status = _invoke("annotate", "status")
    assert "Agreement in pilot-1" in status and "Fleiss" in status and "Progress per round" in status
    adj = _invoke("annotate", "adjudicate")
    if "adjudication-1" in adj:
        _invoke("annotate", "import", *_label_round(tasks_dir / "adjudication-1", truth, done_dir))
    sheet = tasks_dir / "pilot-1" / "discussion.csv"
    if sheet.is_file():  # the pilot's disagreements, settled by discussion
        filled = done_dir / "pilot-1-discussion.csv"
        simulate_discussion(sheet, lambda t: truth[t.pair_id], filled)
        assert "Pilot discussion decisions" in _invoke("annotate", "discuss", str(filled))
    with api_client(server) as client:
        before = {r.id for r in _build_runs(client)}
        build = _invoke("dataset", "build")
        [run] = [r for r in _build_runs(client) if r.id not in before]  # the command ran the flow
        report = _artifacts(client, run)["dataset-build-report"]
    assert "1 claim(s) left out" in build and "Labels per split" in build
    assert run.state is not None and run.state.is_completed() and run.parameters["export"] is False
    assert "claims left out as all-unrelated: 1" in report
    assert not (tmp_path / "data" / "dataset").exists()
    export = _invoke("dataset", "export")
    assert "Dataset exported" in export
    assert sorted(p.name for p in (tmp_path / "data" / "dataset").iterdir())[:3] == ["dev.jsonl", "dev.parquet", "manifest.json"]
    loaded = _invoke("dataset", "load", str(tmp_path / "data" / "dataset"))
    assert "New rows loaded" in loaded  # our own export: every claim is there already
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM claims WHERE source_id = 'arastance'") == 0
    stats = _invoke("stats")
    assert "Claims left out" in stats and "araanews" in stats
    paper = _invoke("stats", "--paper")
    assert "Table 3" in paper and "Table 4" in paper and "Araanews" in paper and "Train" in paper

    bad = tmp_path / "bad.json"
    bad.write_text("[{]", encoding="utf-8")
    failed = runner.invoke(app, ["annotate", "import", str(bad)])
    assert failed.exit_code == 2 and "invalid JSON" in failed.output + str(failed.stderr)
    assert runner.invoke(app, ["annotate", "export", "adjudication"]).exit_code == 2


def _seed_labelled_pairs() -> None:
    """8 claims of 3 pairs, each pair labelled alike by two annotators of a production round."""
    truth = _seed_pairs()
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("annotation_rounds", [{"round": "prod-1", "round_kind": "production", "seed": 1, "annotators": "[]", "created_at": "2021-01-01"}])
        wh.insert_rows("annotations", [
            {"annotation_id": f"{p}-{a}", "pair_id": p, "annotator_id": a, "label": label, "round": "prod-1",
             "round_kind": "production", "annotated_at": "2021-01-02"}
            for p, label in truth.items() for a in ("ann-1", "ann-2")
        ])


def _readers_see() -> tuple[int, int]:
    """Gold pairs and split claims in the readers' copy, as ``arastance sql`` reads them."""
    with open_published(load_settings().warehouse) as reader:
        return reader.scalar("SELECT count(*) FROM v_gold_pairs"), reader.scalar("SELECT count(*) FROM splits")


def test_readers_see_a_build_only_once_it_is_finished() -> None:
    # it was: each step's writer published a whole copy, so between steps readers saw 24 gold pairs
    # (the all-unrelated claim's among them), then 21, and no splits until the split step
    _seed_labelled_pairs()
    settings = load_settings()
    assert _readers_see() == (0, 0)
    decide_gold.fn(settings.warehouse, settings.annotation)
    flag_claims.fn(settings.warehouse)
    split_claims.fn(settings.warehouse, settings.annotation)
    assert _readers_see() == (0, 0)  # a build that failed here leaves readers the last finished one
    read_statistics.fn(settings.warehouse)
    assert _readers_see() == (21, 7)


@pytest.mark.slow
def test_a_writer_of_another_process_between_build_steps_shows_readers_no_half_build_and_loses_nothing(
    server: PrefectServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was: a crawl load or `arastance sql --write` closing between two steps published the gold
    # labels before the all-unrelated claim was left out (24 gold pairs), and no splits
    _seed_labelled_pairs()
    seen: dict[str, Any] = {}

    def flag_after_another_writer(warehouse_path: Path) -> FlagResult:
        seen["log"] = write_in_another_process(warehouse_path, "other-writer")
        seen["readers"] = _readers_see()
        return flag_claims(warehouse_path)

    monkeypatch.setattr(importlib.import_module("flows.build_dataset"), "flag_claims", flag_after_another_writer)
    with api_client(server):
        build_dataset(export=False)
    assert seen["readers"] == (0, 0)
    assert "holds publication" in seen["log"] and "build_dataset, PID " in seen["log"], seen["log"]
    assert _readers_see() == (21, 7)  # the finished build, published by its statistics step
    with open_published(load_settings().warehouse) as reader:  # with the other writer's change
        assert reader.scalar("SELECT count(*) FROM sources WHERE source_id = 'other-writer'") == 1


@pytest.mark.slow
def test_build_dataset_flow_publishes_statistics_and_is_idempotent(tmp_path: Path, server: PrefectServer) -> None:
    _seed_labelled_pairs()
    with api_client(server) as client:
        first = build_dataset(export_dir=str(tmp_path / "ds"))
        second = build_dataset(export_dir=str(tmp_path / "ds2"))
        published = {a.key: a.data for a in client.read_artifacts()}
    assert (first["gold"], first["disputed"], first["flagged"]) == (24, 0, 1)
    assert first["newly_split"] == 7 and second["newly_split"] == 0 and second["split_claims"] == 7
    assert first["exported_pairs"] == 21
    assert {"dataset-sources", "dataset-splits", "dataset-left-out", "dataset-build-report"} <= set(published)
    sources = published["dataset-sources"]
    rows = json.loads(sources) if isinstance(sources, str) else sources
    assert rows[-1]["source"] == "total" and rows[-1]["pairs"] == 21
    assert {p.name: p.read_bytes() for p in (tmp_path / "ds").iterdir()} == {p.name: p.read_bytes() for p in (tmp_path / "ds2").iterdir()}
    assert _readers_see() == (21, 7)  # the flow published its finished build


def test_dataset_build_failing_in_its_flow_names_the_warehouse_without_a_traceback(
    tmp_path: Path, server: PrefectServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "not-a-warehouse.duckdb"
    bad.write_text("not a DuckDB file", encoding="utf-8")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_PATH", str(bad))
    with api_client(server) as client:
        before = {r.id for r in _build_runs(client)}
        result = runner.invoke(app, ["dataset", "build"])
        [run] = [r for r in _build_runs(client) if r.id not in before]
    shown = result.output + str(result.stderr)
    assert result.exit_code == 2, shown
    assert f"error: cannot open warehouse {bad}" in shown and "Traceback" not in shown
    assert run.state is not None and run.state.is_failed()  # the flow ran, and failed on the warehouse
