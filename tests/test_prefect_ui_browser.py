"""The Prefect UI as an operator sees it, rendered by headless Chromium: the pipeline's run page
shows its project log lines, and the per-stage artifact its table with every column within a
1400 px wide window."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from helpers_browser import CHROMIUM, headless_chromium
from helpers_prefect import PrefectServer, api_client, prefect_server
from helpers_true_claims import FLOOD, FUEL, claim_row

from arastance.config import load_settings
from flows.pipeline import arastance_pipeline
from warehouse import open_warehouse

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="needs the Debian chromium package (.ci/run installs it)")]
COLUMNS = ["stage", "status", "seconds", "rows added", "dropped", "errors", "note"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrefectServer]:
    with prefect_server(tmp_path_factory.mktemp("prefect-ui"), extra_env={"PREFECT_SERVER_UI_ENABLED": "true"},
                        timeout=240) as running:
        yield running


def test_the_run_page_and_the_stages_artifact_render(server: PrefectServer, tmp_path: Path) -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
                                  claim_row("f2", "false", FUEL, date(2016, 3, 1)),
                                  claim_row("r1", "true", f"{FLOOD} صباحا", date(2016, 4, 1))])
    with api_client(server) as client:
        state = arastance_pipeline(stages=["select"], return_state=True)
        assert state.is_completed()
        run = client.read_flow_run(state.state_details.flow_run_id)
        [artifact] = [a for a in client.read_artifacts() if a.key == "arastance-pipeline-stages"]
    ui = server.api_url.removesuffix("/api")
    with headless_chromium(tmp_path / "profile") as browser:
        with browser.open(f"{ui}/runs/flow-run/{run.id}") as page:
            text = page.wait_for_text(run.name, "stage started stage=select", "stage finished stage=select")
            assert "Completed" in text
        with browser.open(f"{ui}/artifacts/artifact/{artifact.id}") as page:
            text = page.wait_for_text("arastance-pipeline-stages", *COLUMNS)
            # every column header lies inside the 1400 px window: nothing cut off at the right
            rights = page.evaluate("Array.from(document.querySelectorAll('th')).map(th => th.getBoundingClientRect().right)")
            assert rights and len(rights) >= len(COLUMNS) and max(rights) <= 1400, rights
