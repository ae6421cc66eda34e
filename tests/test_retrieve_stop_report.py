"""What a retrieval run that a spent quota stopped tells its user, through the real flow and CLI
against local servers answering in each API's format: the one line names the command that takes
the claims left up (``--redo`` for claims a redo run found done, which a plain run leaves done),
and the run's report counts the queries answered and the requests billed, not those planned."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

import pytest
from helpers_search import (GOOGLE_DAILY_QUOTA, ApiServer, GoogleDailyQuota, Reply, brave_body, brave_error, google_body,
                            google_error, search_env, store_false_claims)
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from prefect.client.schemas.sorting import ArtifactSort
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from flows.retrieve_documents import retrieve_documents
from warehouse import open_warehouse
from warehouse.retrieval import mark_claims_done, set_claim_status

KEY = "AIzaSy-stop-report-key-0123456789"
CLAIMS = ["إغلاق المدارس بسبب الإنفلونزا في القاهرة", "انهيار سد النهضة بعد الأمطار الغزيرة",
          "رفع أسعار الوقود في السعودية الشهر المقبل", "حظر تجول شامل في دبي بسبب العاصفة"]
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield



def _retrieval() -> dict[str, tuple[str, str]]:
    """Each claim's stored (status, backend)."""
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        return {r["claim_id"]: (r["status"], r["backend"]) for r in wh.query("SELECT claim_id, status, backend "
                                                                              "FROM claim_retrieval")}


def _error_line(output: str) -> str:
    [line] = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return line


def _command_named(line: str) -> list[str]:
    """The arguments of the ``arastance retrieve …`` command the stop's line says takes the claims up
    (none when it names no command)."""
    return [arg for command in re.findall(r"`(arastance retrieve [^`]*)` takes them up", line)
            for arg in shlex.split(command)[1:]]


class QuotaGate:
    """Answers through ``answer`` while ``open``, then with ``refusal``: a spent quota."""

    def __init__(self, answer, refusal: Reply) -> None:
        self.answer, self.refusal, self.open = answer, refusal, True

    def __call__(self, request) -> Reply:
        return self.answer(request) if self.open else self.refusal


def _env(monkeypatch: pytest.MonkeyPatch, google: ApiServer, brave: ApiServer) -> None:
    search_env(monkeypatch, google_api_key=KEY, google_engine_id="cx", google_endpoint=google.url + "/cs",
               brave_api_key=KEY, brave_endpoint=brave.url + "/b")


@pytest.mark.slow
def test_a_redo_run_stopped_by_a_spent_quota_names_the_redo_command_that_takes_its_done_claims_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `retrieve --backend brave --redo` over claims done with Google, Brave's monthly
    quota spent: they stay done, so the plain run the line promised planned none of them."""
    store_false_claims(CLAIMS)
    google = QuotaGate(lambda r: Reply(body=google_body(r.params["q"], int(r.params["start"]), 10, 3)), Reply(500))
    brave = QuotaGate(lambda r: Reply(body=brave_body(r.params["q"], int(r.params["offset"]), 10, 3)), Reply(
        429, brave_error(429, "QUOTA_LIMITED", "The monthly quota of the plan is used up."),
        {"X-RateLimit-Limit": "1, 2000", "X-RateLimit-Remaining": "0, 0", "X-RateLimit-Reset": "1, 1419704"}))
    brave.open = False
    google_api, brave_api = ApiServer(google), ApiServer(brave)
    with google_api.running(), brave_api.running():
        _env(monkeypatch, google_api, brave_api)
        assert runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "google"]).exit_code == 0
        with open_warehouse(load_settings().warehouse) as wh:  # as a run that fetched and paired leaves them
            mark_claims_done(wh, {f"c{i}": 0 for i in range(len(CLAIMS))})

        stopped = runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "brave", "--redo"])
        assert stopped.exit_code == 2
        line = _error_line(stopped.output)
        # it was: "4 claim(s) left pending for the next run", and the next `retrieve --backend brave` planned none
        assert _command_named(line) == ["retrieve", "--backend", "brave", "--redo"], line
        assert "the API's own quota is spent" in line and f"{len(CLAIMS)} claim(s) not searched" in line
        assert f"{len(CLAIMS)} of them stay done with their earlier documents" in line
        assert {status for status, _ in _retrieval().values()} == {"done"}  # as `retrieve status` shows them

        brave.open, refused = True, len(brave_api.requests)  # the next month
        plain = runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "brave"])
        assert plain.exit_code == 0 and len(brave_api.requests) == refused  # a plain run leaves done claims done
        named = runner.invoke(app, [*_command_named(line), "--no-fetch"])
    assert named.exit_code == 0, named.output
    assert _retrieval() == {f"c{i}": ("searched", "brave") for i in range(len(CLAIMS))}


@pytest.mark.slow
def test_a_stopped_run_over_claims_given_by_id_names_them_and_leaves_no_redo_for_failed_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Claims stored failed are taken by a run without --redo; a run limited to --claim ids names
    the ids left, so the command takes those and no other claim."""
    store_false_claims(CLAIMS)
    with open_warehouse(load_settings().warehouse) as wh:
        for claim_id in ("c1", "c2"):
            set_claim_status(wh, claim_id, backend="google", status="failed", queries=3, error="HTTP 500")
    google = QuotaGate(lambda r: Reply(body=google_body(r.params["q"], int(r.params["start"]), 10, 3)),
                       Reply(429, google_error(429, GOOGLE_DAILY_QUOTA, "rateLimitExceeded")))
    google.open = False
    google_api, brave_api = ApiServer(google), ApiServer(lambda r: Reply(500))
    with google_api.running(), brave_api.running():
        _env(monkeypatch, google_api, brave_api)
        stopped = runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "google", "--claim", "c1",
                                      "--claim", "c2", "--claim", "c3"])
        assert stopped.exit_code == 2
        line = _error_line(stopped.output)
        assert _command_named(line) == ["retrieve", "--backend", "google", "--claim", "c1", "--claim", "c2",
                                        "--claim", "c3"], line
        assert "stay done" not in line
        google.open = True  # the next day
        named = runner.invoke(app, [*_command_named(line), "--no-fetch"])
    assert named.exit_code == 0, named.output
    assert _retrieval() == {c: ("searched", "google") for c in ("c1", "c2", "c3")}  # c0 was not asked for


@pytest.mark.slow
def test_a_redo_run_deferred_by_the_daily_budget_names_the_redo_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget's own stop of a --redo run: the claims it deferred are done, so tomorrow's run needs --redo."""
    store_false_claims(CLAIMS)
    google_api = ApiServer(lambda r: Reply(body=google_body(r.params["q"], int(r.params["start"]), 10, 3)))
    brave_api = ApiServer(lambda r: Reply(500))
    with google_api.running(), brave_api.running():
        _env(monkeypatch, google_api, brave_api)
        assert runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "google"]).exit_code == 0
        with open_warehouse(load_settings().warehouse) as wh:
            mark_claims_done(wh, {f"c{i}": 0 for i in range(len(CLAIMS))})
        monkeypatch.setenv("ARASTANCE_SEARCH__DAILY_QUERY_BUDGET", "1")
        deferred = runner.invoke(app, ["retrieve", "--no-fetch", "--backend", "brave", "--redo"])
    assert deferred.exit_code == 2 and not brave_api.requests
    line = _error_line(deferred.output)
    # it was: "...; 4 claim(s) left for later", and the next day's plain run planned none of them
    assert "daily query budget" in line and f"{len(CLAIMS)} claim(s) left for later" in line
    assert _command_named(line) == ["retrieve", "--backend", "brave", "--redo"], line


def _latest_report() -> str:
    """The markdown of the last ``retrieve-documents-report`` published."""
    with get_client(sync_client=True) as client:
        [report] = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
            "retrieve-documents-report"])), sort=ArtifactSort.CREATED_DESC, limit=1)
    return str(report.data)


@pytest.mark.slow
def test_the_report_of_a_stopped_run_counts_the_queries_answered_and_the_requests_billed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    store_false_claims(CLAIMS)
    api = GoogleDailyQuota(quota=4, total=30)
    server = ApiServer(api)
    with server.running():
        search_env(monkeypatch, backend="google", google_api_key=KEY, google_engine_id="cx",
                   google_endpoint=server.url + "/cs", results_per_query="30")
        assert retrieve_documents(fetch=False, return_state=True).is_failed()
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        planned = wh.scalar("SELECT count(*) FROM queries")
        cached = wh.scalar("SELECT count(*) FROM search_cache")
        billed = wh.scalar("SELECT sum(queries) FROM search_usage")
    whole = sum(api.pages(q) == 3 for q in {q for q, _, _ in api.answered})  # a query of 30 results is 3 pages of 10
    assert len(api.answered) == billed == 4 and cached == whole and planned > 4
    [line] = [ln for ln in _latest_report().splitlines() if ln.startswith("- queries")]
    # it was: "- queries answered from the cache: 0; sent: 17", the queries planned
    assert line == (f"- queries: 0 answered from the cache, {whole} sent and answered (4 billed request(s): pages of "
                    f"results); {planned - whole} not answered (not sent, refused or failed): the run that takes "
                    "their claims up again sends them")
