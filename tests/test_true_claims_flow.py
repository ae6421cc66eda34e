"""The Prefect flow through the command line: a real flow run against a temporary Prefect DB."""

from __future__ import annotations

from datetime import date

import pytest
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from helpers_true_claims import FLOOD, FUEL, claim_row
from warehouse import open_warehouse

runner = CliRunner()


@pytest.mark.slow
def test_select_true_claims_command_runs_the_flow_and_rerun_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [
            claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
            claim_row("f2", "false", FUEL, None),
            claim_row("r1", "true", f"{FLOOD} صباحا", date(2016, 4, 1)),
            claim_row("r2", "true", FUEL, date(2016, 4, 1)),
        ])
    with prefect_test_harness(server_startup_timeout=180):
        first = runner.invoke(app, ["select-true-claims", "--window-months", "2"])
        assert first.exit_code == 0, first.output
        assert "seed:no_date" in first.output
        # the report's parameters as a list a reader reads (it was: `{'window_months': 2, 'top_k': ...}`)
        with get_client(sync_client=True) as client:
            [report] = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
                "true-claim-selection-report"])))
        assert "Parameters:\n\n- window_months: 2\n- top_k: " in str(report.data), report.data
        assert "- headline_sources: reuters\n" in str(report.data) and "{" not in str(report.data)
        second = runner.invoke(app, ["select-true-claims", "--window-months", "2"])
        assert second.exit_code == 0, second.output
        assert "nothing added" in second.output
        monkeypatch.setenv("ARASTANCE_SELECTION__HEADLINE_SOURCES", '["reuter"]')
        typo = runner.invoke(app, ["select-true-claims"])
        assert typo.exit_code == 2 and "names reuter, but the warehouse holds no true claim" in typo.output
        monkeypatch.delenv("ARASTANCE_SELECTION__HEADLINE_SOURCES")
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.query("SELECT seed_claim_id, headline_claim_id, rank FROM selection_matches") == [
            {"seed_claim_id": "f1", "headline_claim_id": "r1", "rank": 1},
        ]
        assert wh.scalar("SELECT count(*) FROM selection_runs") == 1
        assert wh.scalar("SELECT params->>'window_months' FROM selection_runs") == "2"
        assert sorted(r["claim_id"] for r in wh.query("SELECT claim_id FROM v_retrieval_claims")) == ["f1", "f2", "r1"]
    listing = runner.invoke(app, ["selection-runs", "--headlines"])
    assert listing.exit_code == 0, listing.output
    assert "r1" in listing.output


def test_an_invalid_option_stops_before_any_flow_runs() -> None:
    result = runner.invoke(app, ["select-true-claims", "--analyzer", "phoneme"])
    assert result.exit_code == 2
    assert "--analyzer" in result.output + str(result.stderr)


def test_selection_runs_without_a_warehouse_says_so() -> None:
    result = runner.invoke(app, ["selection-runs"])
    assert result.exit_code == 2
    assert "does not exist" in result.output + str(result.stderr)
