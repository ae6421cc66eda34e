"""A retrieval run under a web API's limits, through the real flow and CLI against local servers
answering in each API's format: a spent quota or a refused key stops the run at once, leaves the
claims not searched pending and says in one line what to fix; the budget counts billed pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import pytest
from helpers_search import (ApiServer, GoogleDailyQuota, Reply, brave_error, false_claim_row, google_body,
                            search_env,
                            store_false_claims)
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from flows.retrieve_documents import retrieve_documents
from tasks.retrieval import plan_retrieval
from tasks.search.cache import cached_search, utc_today
from tasks.search.google import GoogleSearch
from warehouse import Warehouse, open_warehouse
from warehouse.retrieval import queries_used, retrieval_progress, set_claim_status

KEY = "AIzaSy-limits-run-key-0123456789"
CLAIMS = ["إغلاق المدارس بسبب الإنفلونزا في القاهرة", "انهيار سد النهضة بعد الأمطار الغزيرة",
          "رفع أسعار الوقود في السعودية الشهر المقبل", "حظر تجول شامل في دبي بسبب العاصفة",
          "زلزال قوي يضرب مدينة جدة فجر اليوم", "إغلاق مطار القاهرة الدولي أمام الرحلات"]
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def prefect_api() -> Iterator[None]:
    with prefect_test_harness(server_startup_timeout=180):
        yield



def _statuses() -> dict[str, str]:
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        return {r["claim_id"]: r["status"] for r in wh.query("SELECT claim_id, status FROM claim_retrieval")}


def _google_env(monkeypatch: pytest.MonkeyPatch, server: ApiServer) -> None:
    search_env(monkeypatch, backend="google", google_api_key=KEY, google_engine_id="cx",
               google_endpoint=server.url + "/customsearch/v1")


@pytest.mark.slow
def test_a_spent_daily_quota_stops_the_run_keeps_what_was_answered_and_the_next_day_resumes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    store_false_claims(CLAIMS)
    api = GoogleDailyQuota(quota=3)
    server = ApiServer(api)
    with server.running():
        _google_env(monkeypatch, server)
        state = retrieve_documents(fetch=False, return_state=True)
        assert state.is_failed()
        message = state.message or ""
        assert "retrieval stopped: google search: HTTP 429, the API's own quota is spent" in message
        assert "midnight Pacific time" in message and "`arastance retrieve --backend google` takes them up" in message
        assert "\n" not in message.partition("retrieval stopped")[2]
        assert api.refused <= 2  # the first refusal, and at most one already in flight on the other thread
        assert "failed" not in _statuses().values()  # stopped claims stay pending
        with open_warehouse(load_settings().warehouse, read_only=True) as wh:
            assert wh.scalar("SELECT count(*) FROM search_cache") == 3  # what was answered is kept
            assert wh.scalar("SELECT sum(queries) FROM search_usage") == 3  # unanswered reservations refunded
        first = list(api.answered)
        api.quota = 10_000  # the next day
        rows = retrieve_documents(fetch=False)
    assert {r["status"] for r in rows} == {"searched"} and len(rows) == len(CLAIMS)
    assert not set(first) & set(api.answered[len(first):])  # nothing answered before is asked again


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "reply", "setting"), [
    ("brave", Reply(422, brave_error(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.")),
     "search.brave_api_key"),
    ("serpapi", Reply(401, {"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}),
     "search.serpapi_api_key"),
])
def test_a_refused_key_stops_the_cli_run_with_one_line_naming_the_setting(
        monkeypatch: pytest.MonkeyPatch, backend: str, reply: Reply, setting: str) -> None:
    store_false_claims(CLAIMS)
    server = ApiServer(lambda r: reply)
    with server.running():
        monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", backend)
        monkeypatch.setenv(f"ARASTANCE_SEARCH__{backend.upper()}_API_KEY", KEY)
        monkeypatch.setenv(f"ARASTANCE_SEARCH__{backend.upper()}_ENDPOINT", server.url + "/search")
        result = runner.invoke(app, ["retrieve", "--no-fetch"])
    assert result.exit_code == 2
    [line] = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert "retrieval stopped" in line and setting in line and f"{len(CLAIMS)} claim(s) not searched" in line
    assert f"`arastance retrieve --backend {backend}` takes them up" in line
    assert "Traceback" not in result.output and KEY not in result.output
    assert len(server.requests) <= 2  # no claim started after the refusal sends anything
    assert _statuses() == {}  # pending, as before the run: the next run takes them all
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT coalesce(sum(queries), 0) FROM search_usage") == 0
    shown = runner.invoke(app, ["retrieve", "status"], env={"COLUMNS": "200"})
    # it was: no row at all, so the claims the line called pending were nowhere to be seen
    assert shown.exit_code == 0 and re.search(rf"not searched yet\s*│\s*{len(CLAIMS)}\b", shown.output), shown.output


def test_the_budget_counts_billed_pages_not_queries(warehouse: Warehouse) -> None:
    totals = {"three pages": 30, "one short page": 4}
    server = ApiServer(lambda r: Reply(body=google_body(r.params["q"], int(r.params["start"]), int(r.params["num"]),
                                                        totals[r.params["q"]])))
    with server.running():
        google = GoogleSearch(KEY, "cx", endpoint=server.url, sleep=lambda s: None)
        cached_search(warehouse, google, "three pages", None, 30, daily_budget=10)
        assert queries_used(warehouse, "google", utc_today()) == 3
        cached_search(warehouse, google, "one short page", None, 30, daily_budget=10)  # 3 reserved, 2 given back
        assert queries_used(warehouse, "google", utc_today()) == 4
    assert len(server.requests) == 4


def test_the_plan_reserves_each_query_s_pages_and_says_the_budget_counts_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    store_false_claims(CLAIMS)
    monkeypatch.setenv("ARASTANCE_SEARCH__RESULTS_PER_QUERY", "30")
    monkeypatch.setenv("ARASTANCE_SEARCH__DAILY_QUERY_BUDGET", "10")
    _google_env(monkeypatch, ApiServer(lambda r: Reply()))  # the plan sends nothing
    settings = load_settings()
    with open_warehouse(settings.warehouse) as wh:
        plan = plan_retrieval(wh, settings, None, None, redo=False)
        sent = sum(len(v) for v in plan.to_send.values())
        assert queries_used(wh, "google", utc_today()) == 3 * sent <= 10
    assert plan.deferred and "counted in billed requests: pages of results" in (plan.budget_error or "")
    assert "up to 3 pages" in (plan.budget_error or "")


def test_claims_not_searched_yet_are_counted_within_the_period_only(warehouse: Warehouse) -> None:
    warehouse.insert_rows("claims", [
        false_claim_row("in", "إغلاق المدارس بسبب الإنفلونزا في القاهرة", date(2016, 5, 1)),
        false_claim_row("after", "انهيار سد النهضة بعد الأمطار الغزيرة", date(2021, 5, 1)),
        false_claim_row("undated", "حظر تجول شامل في دبي بسبب العاصفة", None)])
    assert retrieval_progress(warehouse) == [{"status": "not searched yet", "claims": 3}]
    # it was: 3 for good, though a run with the period takes only the one within it
    assert retrieval_progress(warehouse, (date(2012, 1, 1), date(2018, 12, 31))) == [
        {"status": "not searched yet", "claims dated from 2012-01-01 to 2018-12-31": 1}]


def test_every_row_of_retrieve_status_counts_the_claims_within_the_period_it_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with open_warehouse(load_settings().warehouse) as wh:  # its close publishes the copy `retrieve status` reads
        wh.insert_rows("claims", [
            false_claim_row("in", "إغلاق المدارس بسبب الإنفلونزا في القاهرة", date(2016, 5, 1)),
            false_claim_row("failed-in", "رفع أسعار الوقود في السعودية الشهر المقبل", date(2017, 5, 1)),
            false_claim_row("failed-2021", "انهيار سد النهضة بعد الأمطار الغزيرة", date(2021, 5, 1)),
            false_claim_row("failed-2022", "حظر تجول شامل في دبي بسبب العاصفة", date(2022, 5, 1)),
            false_claim_row("done-undated", "زلزال قوي يضرب مدينة جدة فجر اليوم", None)])
        for claim_id in ("failed-in", "failed-2021", "failed-2022"):
            set_claim_status(wh, claim_id, backend="google", status="failed", queries=3, error="HTTP 500")
        set_claim_status(wh, "done-undated", backend="google", status="done")
        assert retrieval_progress(wh, (date(2012, 1, 1), None)) == [
            {"status": "failed", "claims dated from 2012-01-01": 3},
            {"status": "not searched yet", "claims dated from 2012-01-01": 1}]
    monkeypatch.setenv("ARASTANCE_PERIOD__START", "2012-01-01")
    monkeypatch.setenv("ARASTANCE_PERIOD__END", "2018-12-31")
    shown = runner.invoke(app, ["retrieve", "status"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    table = shown.output.partition("Documents by decision")[0]
    # it was: failed 3 (two claims of 2021-2022 no run with this period retries) and done 1 (an undated one)
    assert re.search(r"status\s*┃\s*claims dated from 2012-01-01 to 2018-12-31\s*┃", table), table
    assert re.search(r"failed\s*│\s*1\s*│", table) and re.search(r"not searched yet\s*│\s*1\s*│", table), table
    assert "done" not in table, table
