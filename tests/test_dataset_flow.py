"""The build_dataset flow (a real Prefect run on a real server) and the annotate/dataset commands
end to end; ``arastance dataset build`` runs that flow, and its failure reads as one clear error."""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_annotation import add_labelled_pairs, add_pairs_with_truth
from helpers_prefect import PrefectServer, api_client, prefect_server
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, FlowFilter, FlowFilterName
from prefect.client.schemas.objects import FlowRun
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from arastance.config.annotation import AnnotationSettings
from flows.build_dataset import build_dataset
from snapshots.demo.annotators import simulate_discussion, simulate_export
from tasks.dataset.assemble import FlagResult, SplitResult, flag_unrelated_claims
from helpers_publication import finish, start_writer_in_another_process
from warehouse import Warehouse, open_published, open_warehouse

runner = CliRunner()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect")) as running:
        yield running


def _build_runs(client: SyncPrefectClient) -> list[FlowRun]:
    return client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["build_dataset"])))


def _artifacts(client: SyncPrefectClient, run: FlowRun) -> dict[str, Any]:
    found = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
    return {a.key: a.data for a in found}


def _seed_pairs() -> dict[str, str]:
    with open_warehouse(load_settings().warehouse) as wh:
        return add_pairs_with_truth(wh)


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
    with open_warehouse(load_settings().warehouse) as wh:
        add_labelled_pairs(wh)


def _readers_see() -> tuple[int, int]:
    """Gold pairs and split claims in the readers' copy, as ``arastance sql`` reads them."""
    with open_published(load_settings().warehouse) as reader:
        return reader.scalar("SELECT count(*) FROM v_gold_pairs"), reader.scalar("SELECT count(*) FROM splits")


def _writer_sees() -> tuple[int, int]:
    """Gold pairs and split claims in the writer's file, as training reads them."""
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        return wh.scalar("SELECT count(*) FROM v_gold_pairs"), wh.scalar("SELECT count(*) FROM splits")


def test_a_build_failing_part_way_stores_none_of_it_and_readers_keep_the_last_finished_one(
    server: PrefectServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was: each step committed its own session, so a build whose split step failed left 21 gold
    # pairs (gold labels decided, the all-unrelated claim flagged) and no splits, for training and the
    # next writer's copy
    _seed_labelled_pairs()

    def split_on_a_full_disk(wh: Warehouse, cfg: AnnotationSettings) -> SplitResult:
        raise OSError(28, "No space left on device")

    build_module = importlib.import_module("flows.build_dataset")
    with api_client(server), monkeypatch.context() as patch:
        patch.setattr(build_module, "split_claims", split_on_a_full_disk)
        with pytest.raises(OSError, match="No space left"):
            build_dataset(export=False)
    assert _writer_sees() == (0, 0) and _readers_see() == (0, 0)
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM dataset_claim_flags") == 0  # the all-unrelated claim is not flagged either
    with api_client(server):
        build_dataset(export=False)
    assert _writer_sees() == (21, 7) and _readers_see() == (21, 7)


@pytest.mark.slow
def test_a_build_killed_part_way_stores_none_of_it_and_the_next_writer_publishes_no_half_build(
    server: PrefectServer, tmp_path: Path
) -> None:
    # it was: the killed build's gold labels and flags stayed, without splits, and the next writer
    # published them (21 gold pairs, 0 split claims)
    _seed_labelled_pairs()
    script = textwrap.dedent("""
        import os, signal
        import flows.build_dataset as build
        def split_then_killed(wh, cfg):
            os.kill(os.getpid(), signal.SIGKILL)  # kill -9 in the middle of the build's last step
        build.split_claims = split_then_killed
        build.build_dataset(export=False)
    """)
    killed = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PREFECT_API_URL": server.api_url},
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    finish(start_writer_in_another_process(load_settings().warehouse, "other-writer"))  # the next writer
    assert _writer_sees() == (0, 0) and _readers_see() == (0, 0)
    with open_published(load_settings().warehouse) as reader:  # the next writer's own change is published
        assert reader.scalar("SELECT count(*) FROM sources WHERE source_id = 'other-writer'") == 1


@pytest.mark.slow
def test_a_writer_of_another_process_during_a_build_waits_for_it_and_readers_never_see_half_of_it(
    server: PrefectServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was: a crawl load or `arastance sql --write` closing between two steps could publish the gold
    # labels before the all-unrelated claim was left out (24 gold pairs), and no splits
    _seed_labelled_pairs()
    seen: dict[str, Any] = {}

    def flag_with_another_writer_waiting(wh: Warehouse) -> FlagResult:
        seen["writer"] = start_writer_in_another_process(wh.path, "other-writer")
        seen["readers"] = _readers_see()
        return flag_unrelated_claims(wh)

    monkeypatch.setattr(importlib.import_module("flows.build_dataset"), "flag_claims", flag_with_another_writer_waiting)
    with api_client(server):
        build_dataset(export=False)
    finish(seen["writer"])
    assert seen["readers"] == (0, 0)
    assert _readers_see() == (21, 7)  # the finished build, with the other writer's change after it
    with open_published(load_settings().warehouse) as reader:
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


def test_a_file_as_an_output_directory_is_refused_before_any_work(tmp_path: Path, server: PrefectServer) -> None:
    # it was: the build decided and split the labels, then failed with a bare "File exists" at the export (its
    # labels never triggered retraining); training failed the same way, naming nothing but the path
    from flows.train import train_stance_model

    _seed_labelled_pairs()
    notes = tmp_path / "notes.txt"
    notes.write_text("x", encoding="utf-8")
    with api_client(server):
        with pytest.raises(NotADirectoryError, match=re.escape(f"export_dir {notes} is a file, not a directory")):
            build_dataset(export_dir=str(notes))
        with pytest.raises(NotADirectoryError, match=re.escape(f"out_dir {notes / 'models'}: {notes} is a file, not a directory")):
            train_stance_model(dataset="khouja", path=str(tmp_path / "corpus"), out_dir=str(notes / "models"))
        assert build_dataset(export=False)["newly_split"] == 7  # the refused build split nothing
    assert notes.read_text(encoding="utf-8") == "x"
