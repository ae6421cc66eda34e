"""Each web API's limit answers, in its documented form, read by its client: a spent daily or
monthly quota and a refused key are never retried; a passing rate limit is; threads sharing a
client are paced instead of retrying in step."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest
from helpers_search import ApiServer, Reply, brave_body, brave_error, google_body, google_error, serpapi_body

from tasks.search import http as http_module
from tasks.search.base import SearchAuthError, SearchError, SearchQuotaSpent, SearchStopsRun
from tasks.search.brave import BraveSearch, brave_quota_resets
from tasks.search.cache import cached_search, utc_today
from tasks.search.google import GoogleSearch, google_quota_resets
from tasks.search.http import Pacer
from tasks.search.serpapi import SerpApiSearch
from warehouse import Warehouse
from warehouse.retrieval import queries_used

KEY = "AIzaSy-limits-test-key-0123456789"
DAILY = ("Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service "
         "'customsearch.googleapis.com' for consumer 'project_number:1234567890'.")


def _google(server: ApiServer, waits: list[float] | None = None) -> GoogleSearch:
    return GoogleSearch(KEY, "cx", endpoint=server.url, sleep=(waits.append if waits is not None else lambda s: None))


def _google_daily_quota() -> Reply:
    body = google_error(429, DAILY, "rateLimitExceeded")
    body["error"]["status"] = "RESOURCE_EXHAUSTED"
    return Reply(429, body)


def test_google_daily_quota_429_is_a_spent_quota_sent_once_naming_the_pacific_midnight_reset() -> None:
    server = ApiServer(lambda r: _google_daily_quota())
    waits: list[float] = []
    with server.running(), pytest.raises(SearchQuotaSpent, match="quota is spent.*Queries per day.*midnight Pacific"):
        _google(server, waits).search("q", None, 10)
    assert len(server.requests) == 1 and waits == []


@pytest.mark.parametrize("now, wait", [
    (datetime(2026, 6, 10, 14, 0, tzinfo=timezone.utc), "in 17 h 00 min"),  # 07:00 PDT
    # 01:00 PST on the day clocks go forward (2026-03-08): 22 hours to the next midnight, not 23.
    (datetime(2026, 3, 8, 9, 0, tzinfo=timezone.utc), "in 22 h 00 min"),
    # 01:00 PDT on the day clocks go back (2026-11-01): 24 hours to the next midnight, not 23.
    (datetime(2026, 11, 1, 8, 0, tzinfo=timezone.utc), "in 24 h 00 min"),
])
def test_google_reset_wait_counts_real_hours_across_daylight_saving(now: datetime, wait: str) -> None:
    assert wait in google_quota_resets(httpx.Headers(), now)


def test_google_per_user_rate_limit_403_is_waited_out_not_a_spent_quota() -> None:
    answers = iter([Reply(403, google_error(403, "User Rate Limit Exceeded", "userRateLimitExceeded")),
                    Reply(body=google_body("q", 1, 10, 3))])
    server = ApiServer(lambda r: next(answers))
    with server.running():
        assert len(_google(server).search("q", None, 10)) == 3
    assert len(server.requests) == 2


def test_google_invalid_key_400_is_an_auth_error_naming_the_setting() -> None:
    body = google_error(400, "API key not valid. Please pass a valid API key.", "badRequest")
    body["error"]["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                                 "domain": "googleapis.com"}]
    server = ApiServer(lambda r: Reply(400, body))
    with server.running(), pytest.raises(SearchAuthError, match=r"API_KEY_INVALID.*search\.google_api_key") as err:
        _google(server).search("q", None, 10)
    assert len(server.requests) == 1 and KEY not in str(err.value)


@pytest.mark.parametrize("reply", [
    Reply(429, brave_error(429, "QUOTA_LIMITED", "The monthly quota of the plan is used up."),
          {"X-RateLimit-Limit": "1, 2000", "X-RateLimit-Remaining": "0, 0", "X-RateLimit-Reset": "1, 1419704"}),
    Reply(429, brave_error(429, "RATE_LIMITED", "Request rate limit exceeded for plan."),
          {"X-RateLimit-Limit": "1, 2000", "X-RateLimit-Remaining": "1, 0", "X-RateLimit-Reset": "1, 1419704"}),
], ids=["QUOTA_LIMITED", "monthly-remaining-0"])
def test_brave_spent_month_is_a_spent_quota_sent_once_naming_the_reset(reply: Reply) -> None:
    server = ApiServer(lambda r: reply)
    waits: list[float] = []
    with server.running(), pytest.raises(SearchQuotaSpent, match=r"quota is spent.*resets the monthly quota in 16\.4 day"):
        BraveSearch(KEY, endpoint=server.url, sleep=waits.append).search("q", None, 5)
    assert len(server.requests) == 1 and waits == []


def test_brave_monthly_reset_is_read_from_the_last_reset_value() -> None:
    now = datetime(2025, 1, 1, tzinfo=timezone.utc)
    assert brave_quota_resets(httpx.Headers({"X-RateLimit-Reset": "1, 86400"}), now) == (
        "Brave resets the monthly quota in 1.0 day(s), at 2025-01-02 00:00 UTC: run again then")


def test_brave_invalid_token_422_is_an_auth_error_naming_the_setting() -> None:
    server = ApiServer(lambda r: Reply(422, brave_error(422, "SUBSCRIPTION_TOKEN_INVALID",
                                                        "The provided subscription token is invalid.")))
    with server.running(), pytest.raises(SearchAuthError, match=r"SUBSCRIPTION_TOKEN_INVALID.*search\.brave_api_key"):
        BraveSearch(KEY, endpoint=server.url, sleep=lambda s: None).search("q", None, 5)
    assert len(server.requests) == 1


def test_serpapi_out_of_searches_and_a_bad_key_stop_the_run() -> None:
    spent = ApiServer(lambda r: Reply(429, {"error": "Your account has run out of searches."}))
    with spent.running(), pytest.raises(SearchQuotaSpent, match="run out of searches"):
        SerpApiSearch(KEY, endpoint=spent.url, sleep=lambda s: None).search("q", None, 10)
    bad = ApiServer(lambda r: Reply(401, {"error": "Invalid API key. Your API key should be here: "
                                                  "https://serpapi.com/manage-api-key"}))
    with bad.running(), pytest.raises(SearchStopsRun, match=r"Invalid API key.*search\.serpapi_api_key"):
        SerpApiSearch(KEY, endpoint=bad.url, sleep=lambda s: None).search("q", None, 10)
    assert len(spent.requests) == len(bad.requests) == 1


def test_a_pacer_gives_threads_slots_one_interval_apart_after_a_hinted_wait() -> None:
    clock = [100.0]
    pacer = Pacer(0.0, clock=lambda: clock[0])
    delays: list[float] = []

    def ask(wait: float) -> None:
        delays.append(pacer.delay(wait))

    pacer.slow_to(1.0)
    pacer.slow_to(0.5)  # a pace is only learned upwards
    for wait in (0.0, 0.0, 2.0):  # three threads at the same instant; the last was asked to wait 2 s
        thread = threading.Thread(target=ask, args=(wait,))
        thread.start()
        thread.join()
    assert delays == [0.0, 1.0, 2.0]
    ask(0.0)  # this thread takes the slot after the last
    assert delays[-1] == 3.0


def test_threads_sharing_a_brave_client_are_paced_so_a_per_second_limit_slows_them_without_failures() -> None:
    """A plan of 5 requests a second (one each 0.2 s, Brave's X-RateLimit headers); four threads,
    one retry each. Retrying in step after the hinted second, three of them were refused again
    and failed; paced at the pace the headers give, every query is answered."""
    lock, accepted = threading.Lock(), [float("-inf")]

    def handler(request) -> Reply:
        with lock:
            now = time.monotonic()
            if now - accepted[0] < 0.2:
                return Reply(429, brave_error(429, "RATE_LIMITED", "Request rate limit exceeded for plan."),
                             {"X-RateLimit-Limit": "5, 2000", "X-RateLimit-Remaining": "0, 1500",
                              "X-RateLimit-Reset": "1, 2000000"})
            accepted[0] = now
        return Reply(body=brave_body(request.params["q"], 0, 3, 3))

    server = ApiServer(handler)
    client = BraveSearch(KEY, endpoint=server.url, max_retries=1)
    answered: list[int] = []
    errors: list[Exception] = []

    def claim(n: int) -> None:
        try:
            for q in range(3):
                answered.append(len(client.search(f"claim {n} query {q}", None, 3)))
        except Exception as exc:  # noqa: BLE001 - the test counts them
            errors.append(exc)

    with server.running():
        threads = [threading.Thread(target=claim, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == [] and answered == [3] * 12


def test_one_requests_own_backoff_holds_no_other_thread() -> None:
    """A 5xx speaks of one request: its retries wait on their own thread (it was: the other thread, whose
    requests were all answered, waited out the failing one's whole backoff, 18.7 s by default)."""
    waits: dict[str, list[float]] = {}

    def sleep(seconds: float) -> None:  # recorded per thread, not slept
        waits.setdefault(threading.current_thread().name, []).append(seconds)

    def handler(request) -> Reply:
        if request.params["q"] == "failing":
            return Reply(503, google_error(503, "Backend Error", "backendError"))
        return Reply(body=google_body(request.params["q"], 1, 10, 10))

    server = ApiServer(handler)
    client = GoogleSearch(KEY, "cx", endpoint=server.url, sleep=sleep)
    with server.running():
        failing = threading.Thread(target=lambda: pytest.raises(Exception, client.search, "failing", None, 10),
                                   name="failing")
        failing.start()
        failing.join()
        assert len(client.search("answered", None, 10)) == 10
    assert waits["failing"] == [1.0, 2.0, 4.0, 8.0]
    assert not [w for w in waits.get(threading.current_thread().name, []) if w > 0]


def test_a_jittered_wait_never_passes_the_longest_wait_setting() -> None:
    waits: list[float] = []
    hint = Reply(429, google_error(429, "Rate Limit Exceeded", "rateLimitExceeded"), {"Retry-After": "60"})
    answers = iter([hint, hint, Reply(body=google_body("q", 1, 10, 10))])
    server = ApiServer(lambda request: next(answers))
    with server.running():
        GoogleSearch(KEY, "cx", endpoint=server.url, sleep=waits.append, jitter=0.5, max_backoff_s=60.0).search(
            "q", None, 10)
    assert waits and max(waits) <= 60.0  # it was: 60 s and up to half more of jitter


@pytest.mark.parametrize(("error", "stops"), [
    ("Your account has run out of searches.", SearchQuotaSpent),
    ("Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key", SearchAuthError),
    ("Google hasn't returned any results for this query.", None),  # SerpApi's way of saying it found nothing
])
def test_serpapis_error_in_a_200_answer_stops_the_run_only_for_a_spent_plan_or_a_bad_key(
        error: str, stops: type[SearchStopsRun] | None) -> None:
    body = {"search_metadata": {"status": "Success"}, "error": error}
    server = ApiServer(lambda request: Reply(body=body))
    with server.running():
        client = SerpApiSearch(KEY, endpoint=server.url, sleep=lambda s: None)
        if stops is None:
            assert client.search("q", None, 10) == []
        else:  # it was: cached as an empty answer, every claim after it one with no documents
            with pytest.raises(stops, match="serpapi search: HTTP 200"):
                client.search("q", None, 10)


@pytest.mark.parametrize(("headers", "backoff_s"), [({"Retry-After": "1"}, 30.0), ({}, 1.0)],
                         ids=["Retry-After", "backoff"])
def test_threads_refused_together_wait_the_hold_then_retry_apart(
        monkeypatch: pytest.MonkeyPatch, headers: dict[str, str], backoff_s: float) -> None:
    """Four threads refused in one burst (429: every thread waits) each wait at least the hold the
    answer asks for (Retry-After, or the backoff), then a stagger of their own, up to the jitter's
    half of it. It was: every retry waited for the latest jittered wait of the others, and all four
    arrived within a few milliseconds."""
    fractions = itertools.cycle([1.0, 2 / 3, 1 / 3, 0.0])  # the random draws, largest first, in the order they are made
    monkeypatch.setattr(http_module.random, "random", lambda: next(fractions))
    lock, refused, retried = threading.Lock(), {}, {}

    def handler(request) -> Reply:
        with lock:
            query, now = request.params["q"], time.monotonic()
            if len(refused) < 4:
                refused[query] = now
                return Reply(429, google_error(429, "Rate Limit Exceeded", "rateLimitExceeded"), headers)
            retried[query] = now
        return Reply(body=google_body(query, 1, 10, 3))

    server = ApiServer(handler)
    client = GoogleSearch(KEY, "cx", endpoint=server.url, backoff_s=backoff_s, jitter=0.5)
    together = threading.Barrier(4)

    def search(n: int) -> None:
        together.wait()
        assert len(client.search(f"q{n}", None, 10)) == 3

    with server.running():
        threads = [threading.Thread(target=search, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert retried.keys() == refused.keys() == {f"q{n}" for n in range(4)}
    assert all(retried[q] - refused[q] >= 1.0 for q in refused)  # the hold, each thread's at least
    arrivals = sorted(retried.values())
    assert arrivals[-1] - arrivals[0] >= 0.3  # staggers of 0, 1/6, 1/3 and 1/2 of the 1 s hold
    assert arrivals[-1] - max(refused.values()) <= 1.5 + 0.4  # never more than the jitter's half longer


@pytest.mark.parametrize(("second_page", "raised", "billed"), [
    ({"search_metadata": {"status": "Error"}, "error": "Proxy timeout"}, SearchError, 1),
    ({"search_metadata": {"status": "Success"}, "error": "Your account has run out of searches."},
     SearchQuotaSpent, 1),
    ("first", SearchQuotaSpent, 0),
], ids=["failed-search", "out-of-searches", "out-of-searches-first"])
def test_serpapi_200_that_tells_a_failure_is_not_counted_billed(
        warehouse: Warehouse, second_page: dict[str, Any] | str, raised: type[SearchError], billed: int) -> None:
    """SerpApi counts no failed search against the plan, though it answers one with 200: the day's
    search_usage counts only the pages answered with results (it counted every 200, and deferred
    claims for a budget not spent)."""
    spent = {"search_metadata": {"status": "Success"}, "error": "Your account has run out of searches."}

    def handler(request) -> Reply:
        start = int(request.params["start"])
        if second_page == "first":
            return Reply(body=spent)
        return Reply(body=serpapi_body(request.params["q"], 0, 30) if start == 0 else second_page)

    server = ApiServer(handler)
    with server.running(), pytest.raises(raised):
        cached_search(warehouse, SerpApiSearch(KEY, endpoint=server.url, sleep=lambda s: None), "q", None, 30,
                      daily_budget=100)
    assert len(server.requests) == billed + 1
    assert queries_used(warehouse, "serpapi", utc_today()) == billed
