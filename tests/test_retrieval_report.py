"""What a retrieval run tells its user (:mod:`tasks.retrieval_report`): the line that ends a
stopped run and the report's figures, as plain functions of the run's plan and per-claim rows."""

from __future__ import annotations

from tasks.retrieval import RetrievalPlan
from tasks.retrieval_report import SentQueries, report_markdown, stop_message
from tasks.search.batch import ClaimSearch


def test_a_stopped_runs_line_names_the_claims_that_failed_and_those_the_budget_deferred() -> None:
    rows = [{"claim_id": "a", "status": "pending",
             "error": "google search: HTTP 429, the API's own quota is spent: ...\nper day"},
            {"claim_id": "b", "status": "failed", "error": "google search: HTTP 400: Invalid Value"},
            {"claim_id": "c", "status": "searched", "error": None}]
    plan = RetrievalPlan(deferred=["d", "e"])
    assert stop_message(rows, plan, "google") == (
        "retrieval stopped: google search: HTTP 429, the API's own quota is spent: ... per day. 1 claim(s) not "
        "searched, 1 searched and stored, 1 failed (first error: google search: HTTP 400: Invalid "
        "Value), 2 deferred by the daily query budget; `arastance retrieve --backend google` takes them up")
    # it was: the failed and the deferred claims unsaid
    assert stop_message(rows[1:], plan, "google") is None
    # a redo run's claims found done (a, and d deferred) stay done: only --redo takes them, by the ids given
    redo = RetrievalPlan(deferred=["d"], redo_only={"a", "c", "d"})
    assert stop_message(rows, redo, "brave", ["a", "b", "c", "d"]) == (
        "retrieval stopped: google search: HTTP 429, the API's own quota is spent: ... per day. 1 claim(s) not "
        "searched, 1 searched and stored, 1 failed (first error: google search: HTTP 400: Invalid Value), 1 deferred "
        "by the daily query budget; `arastance retrieve --backend brave --redo --claim a --claim b --claim d` takes "
        "them up (2 of them stay done with their earlier documents, as `retrieve status` shows them: a run without "
        "--redo leaves those as they are)")


def _row(claim_id: str, status: str, kept: int = 0, pairs: int = 0) -> dict:
    return {"claim": claim_id, "claim_id": claim_id, "status": status, "hits": 0, "candidates": 0, "kept": kept,
            "pairs": pairs, "error": ""}


def test_the_report_counts_claims_by_status_queries_sent_and_the_fetch_waves() -> None:
    rows = [_row("a", "done", kept=3, pairs=3), _row("b", "failed"), _row("c", "pending"), _row("d", "done", 2, 1)]
    sent = SentQueries(planned=7)
    sent.add(ClaimSearch("a", results={"q1": [], "q2": []}, billed=3))
    sent.add(ClaimSearch("d", results={"q3": []}, billed=1))
    fetched = {"waves": 2, "fetched": 9, "ok": 6, "failed": 3}
    assert report_markdown(rows, fetched, RetrievalPlan(deferred=["e"], cached_queries=4), sent, "brave") == (
        "# Document retrieval (brave)\n\n"
        "- claims: 4 (2 done, 1 failed, 1 left pending by a refused key or a spent quota, 1 deferred by the query "
        "budget)\n"
        "- queries: 4 answered from the cache, 3 sent and answered (4 billed request(s): pages of results); 4 not "
        "answered (not sent, refused or failed): the run that takes their claims up again sends them\n"
        "- kept documents: 5; pairs: 4\n"
        "- article fetch: 2 wave(s), 9 page(s) fetched (6 ok, 3 failed)\n")


def test_a_run_that_sent_every_planned_query_and_fetched_nothing_says_so() -> None:
    sent = SentQueries(planned=1)
    sent.add(ClaimSearch("a", results={"q1": []}, billed=1))
    lines = report_markdown([_row("a", "searched")], {}, RetrievalPlan(), sent, "google").splitlines()
    assert lines[3] == "- queries: 0 answered from the cache, 1 sent and answered (1 billed request(s): pages of results)"
    assert lines[5] == "- article fetch: not run (fetch off, or no claim searched)"
