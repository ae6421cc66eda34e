"""SerpApi (Google engine) and SearXNG clients against local servers speaking their JSON, and the
refusal of Google's retired API by configuration."""

from __future__ import annotations

import logging
from datetime import date

import pytest
from helpers_search import ApiServer, Reply, SeenRequest, searxng_body, serpapi_body

from arastance.config import load_settings
from tasks.search.base import DateWindow, SearchAuthError, SearchError
from tasks.search.batch import QuerySpec, run_claim_queries
from tasks.search.cache import cached_search, refund_queries, reserve_queries, utc_today
from tasks.search.factory import GOOGLE_CSE_SHUTDOWN, BackendRetired, check_backend_available, make_backend
from tasks.search.searxng import SearxngSearch, time_range_for
from tasks.search.serpapi import SerpApiSearch, date_range_tbs
from warehouse import Warehouse
from warehouse.retrieval import queries_used

KEY = "serpapi-secret-key-0123456789abcdef"
WINDOW = DateWindow(date(2016, 4, 1), date(2016, 6, 30))


def _serpapi(server: ApiServer, waits: list[float] | None = None, country: str | None = "eg") -> SerpApiSearch:
    return SerpApiSearch(KEY, endpoint=server.url + "/search.json", country=country, max_retries=2, backoff_s=0.01,
                         sleep=(waits.append if waits is not None else lambda s: None))


def test_serpapi_sends_engine_key_arabic_locale_and_custom_date_range_and_pages_by_offset() -> None:
    server = ApiServer(lambda r: Reply(body=serpapi_body(r.params["q"], int(r.params["start"]), 23)))
    with server.running():
        results = _serpapi(server).search("سد النهضة", WINDOW, 25)
    assert [r.rank for r in results] == list(range(1, 24))
    assert [q.params["start"] for q in server.requests] == ["0", "10", "20"]
    first = server.requests[0]
    assert first.path == "/search.json"
    assert first.params["engine"] == "google" and first.params["api_key"] == KEY and first.params["q"] == "سد النهضة"
    assert first.params["tbs"] == "cdr:1,cd_min:4/1/2016,cd_max:6/30/2016"
    assert first.params["hl"] == "ar" and first.params["lr"] == "lang_ar" and first.params["gl"] == "eg"
    assert results[0].url == "https://serp1.example.com/n/1" and results[0].title == "خبر 1 عن سد النهضة"
    assert results[0].snippet == "مقتطف 1" and results[0].published_date == date(2016, 5, 2)


def test_serpapi_stops_at_num_without_the_date_range_when_there_is_no_window() -> None:
    server = ApiServer(lambda r: Reply(body=serpapi_body(r.params["q"], int(r.params["start"]), 50)))
    with server.running():
        results = _serpapi(server, country=None).search("q", None, 10)
    assert len(results) == 10 and len(server.requests) == 1
    assert "tbs" not in server.requests[0].params and "gl" not in server.requests[0].params


def test_serpapi_stops_paging_when_a_page_adds_nothing_new_and_after_the_pages_num_needs() -> None:
    # a server repeating its links with a "next" link paged for ever: 3,647 paid searches in 8 s
    repeating = ApiServer(lambda r: Reply(body=serpapi_body("q", 0, 50)))
    with repeating.running():
        results = _serpapi(repeating).search("q", None, 30)
    assert len(results) == 10 and len(repeating.requests) == 2  # the second page added nothing: stop
    without_links = ApiServer(lambda r: Reply(body={**serpapi_body("q", 0, 50), "organic_results": [{"title": "x"}] * 10}))
    with without_links.running():
        assert _serpapi(without_links).search("q", None, 100) == []
    assert len(without_links.requests) == 1


def test_serpapi_metadata_and_pagination_of_another_shape_are_not_a_crash() -> None:
    body = {**serpapi_body("q", 0, 3), "search_metadata": "Success", "serpapi_pagination": "next"}
    server = ApiServer(lambda r: Reply(body=body))
    with server.running():
        assert len(_serpapi(server).search("q", None, 10)) == 3
    assert len(server.requests) == 1


def test_serpapi_fully_empty_answer_is_an_empty_result_not_an_error() -> None:
    server = ApiServer(lambda r: Reply(body=serpapi_body(r.params["q"], 0, 0)))
    with server.running():
        assert _serpapi(server).search("لا شيء هنا", WINDOW, 10) == []
    assert len(server.requests) == 1


def test_serpapi_bad_key_is_an_auth_error_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = ApiServer(lambda r: Reply(401, {"error": "Invalid API key. Your API key should be here: "
                                                      "https://serpapi.com/manage-api-key"}))
    with server.running(), pytest.raises(SearchAuthError, match="Invalid API key") as err:
        _serpapi(server).search("q", None, 10)
    assert len(server.requests) == 1 and KEY not in str(err.value)
    assert "HTTP Request" in caplog.text and KEY not in caplog.text  # httpx logged the URL, key redacted
    assert KEY not in repr(_serpapi(server))


def test_serpapi_throughput_429_is_retried_but_an_exhausted_plan_is_not() -> None:
    answers = iter([Reply(429, {"error": "Your account has exceeded the hourly throughput limit."}, {"Retry-After": "3"}),
                    Reply(body=serpapi_body("q", 0, 4))])
    server = ApiServer(lambda r: next(answers))
    waits: list[float] = []
    with server.running():
        assert len(_serpapi(server, waits).search("q", None, 10)) == 4
    assert waits == [3.0]

    spent = ApiServer(lambda r: Reply(429, {"error": "Your account has run out of searches."}))
    with spent.running(), pytest.raises(SearchError, match="quota is spent.*run out of searches") as err:
        _serpapi(spent).search("q", None, 10)
    assert len(spent.requests) == 1 and not isinstance(err.value, SearchAuthError)


def test_serpapi_failed_search_and_odd_shapes_are_search_errors() -> None:
    failed = ApiServer(lambda r: Reply(body={"search_metadata": {"status": "Error"}, "error": "Proxy timeout"}))
    with failed.running(), pytest.raises(SearchError, match="Proxy timeout"):
        _serpapi(failed).search("q", None, 10)
    odd = ApiServer(lambda r: Reply(body={"search_metadata": {"status": "Success"}, "organic_results": {"a": 1}}))
    with odd.running(), pytest.raises(SearchError, match="not a list"):
        _serpapi(odd).search("q", None, 10)
    server = ApiServer(lambda r: Reply(503, {"error": "Internal error"}))
    with server.running(), pytest.raises(SearchError, match="HTTP 503 after 3 attempt"):
        _serpapi(server).search("q", None, 10)


def _cached_first_and_third_pages(request: SeenRequest) -> Reply:
    """SerpApi answering pages 1 and 3 of every query from its cache (``search_metadata.status``
    ``Cached``, as SerpApi's own client libraries read it), page 2 afresh (``Success``)."""
    start = int(request.params["start"])
    body = serpapi_body(request.params["q"], start, 30)
    if start != 10:
        body["search_metadata"]["status"] = "Cached"
    return Reply(body=body)


def test_serpapi_answers_from_its_cache_are_not_counted_against_the_budget(warehouse: Warehouse) -> None:
    """SerpApi does not bill a search it answers from its cache ("cached searches are free, and are
    not counted towards your searches per month"): the day's search_usage counts only the page it
    answered afresh, by a single query and by a claim's queries settled as the run settles them
    (it counted all three pages of each, and deferred claims for a budget not spent)."""
    server = ApiServer(_cached_first_and_third_pages)
    with server.running():
        serpapi = _serpapi(server)
        results, from_cache = cached_search(warehouse, serpapi, "سد النهضة", None, 30, daily_budget=10)
        assert (len(results), from_cache) == (30, False)
        assert queries_used(warehouse, "serpapi", utc_today()) == 1

        specs = [QuerySpec(f"q{i}", ("claim",), f"نص {i}", None, None, f"key{i}") for i in range(2)]
        reserve_queries(warehouse, serpapi, 2 * serpapi.max_requests(30), daily_budget=10)
        assert queries_used(warehouse, "serpapi", utc_today()) == 7  # the plan reserves 3 pages a query
        search = run_claim_queries("c1", specs, 30, serpapi)
        refund_queries(warehouse, "serpapi", search.unanswered)  # as store_claim_search settles a claim
    assert len(search.results) == 2 and (search.reserved, search.billed, search.unanswered) == (6, 2, 4)
    assert queries_used(warehouse, "serpapi", utc_today()) == 3
    assert len(server.requests) == 9


def test_date_range_tbs_uses_us_dates_without_padding() -> None:
    assert date_range_tbs(DateWindow(date(2012, 1, 5), date(2012, 12, 31))) == "cdr:1,cd_min:1/5/2012,cd_max:12/31/2012"


def test_searxng_asks_json_in_arabic_pages_and_keeps_dates() -> None:
    server = ApiServer(lambda r: Reply(body=searxng_body(r.params["q"], int(r.params["pageno"]), 13)))
    with server.running():
        backend = SearxngSearch(server.url + "/search", categories="news", today=date(2026, 11, 30))
        results = backend.search("الإنفلونزا", WINDOW, 20)
    assert [r.rank for r in results] == list(range(1, 14))
    assert [q.params["pageno"] for q in server.requests] == ["1", "2", "3"]  # the third page is empty
    first = server.requests[0].params
    assert first["format"] == "json" and first["language"] == "ar" and first["categories"] == "news"
    assert "time_range" not in first  # a 2016 window: no coarse range reaches back that far
    assert results[0].url == "https://sx1.example.net/a/1" and results[0].snippet == "محتوى 1"
    assert results[0].published_date == date(2016, 5, 2) and results[1].published_date is None


def test_searxng_without_a_token_follows_a_redirect_to_another_host() -> None:
    # only a request that carries a key is kept on its host; an instance moved to www. still answers
    moved = ApiServer(lambda r: Reply(body=searxng_body(r.params["q"], int(r.params["pageno"]), 3)))
    old = ApiServer(lambda r: Reply(301, None, {"Location": f"{moved.url}/search?{'&'.join(f'{k}={v}' for k, v in r.params.items())}"}))
    with old.running(), moved.running():
        assert len(SearxngSearch(old.url + "/search").search("q", None, 3)) == 3
    assert moved.requests and "authorization" not in moved.requests[0].headers


def test_searxng_coarse_time_range_covers_the_window() -> None:
    today = date(2026, 11, 30)
    assert time_range_for(DateWindow(date(2026, 11, 29), today), today) == "day"
    assert time_range_for(DateWindow(date(2026, 11, 25), today), today) == "week"
    assert time_range_for(DateWindow(date(2026, 10, 31), date(2026, 11, 5)), today) == "month"
    assert time_range_for(DateWindow(date(2026, 1, 1), date(2026, 3, 1)), today) == "year"
    assert time_range_for(DateWindow(date(2016, 1, 1), date(2016, 3, 1)), today) is None
    server = ApiServer(lambda r: Reply(body=searxng_body(r.params["q"], int(r.params["pageno"]), 3)))
    with server.running():
        SearxngSearch(server.url, today=today).search("q", DateWindow(date(2026, 11, 20), today), 5)
    assert server.requests[0].params["time_range"] == "month"


def test_searxng_all_engines_failing_is_an_error_not_an_empty_result() -> None:
    server = ApiServer(lambda r: Reply(body=searxng_body("q", 1, 0, unresponsive=[["google", "CAPTCHA"],
                                                                                   ["bing", "timeout"]])))
    with server.running(), pytest.raises(SearchError, match=r"google \(CAPTCHA\), bing \(timeout\)"):
        SearxngSearch(server.url).search("q", None, 10)


def test_searxng_json_disabled_and_proxy_token() -> None:
    server = ApiServer(lambda r: Reply(403, None))
    with server.running(), pytest.raises(SearchAuthError, match="search.formats"):
        SearxngSearch(server.url, sleep=lambda s: None).search("q", None, 10)
    token = "proxy-token-secret-123"
    server = ApiServer(lambda r: Reply(body=searxng_body("q", int(r.params["pageno"]), 2)))
    with server.running():
        SearxngSearch(server.url, api_key=token).search("q", None, 10)
    assert server.requests[0].headers["authorization"] == f"Bearer {token}" and "api_key" not in server.requests[0].params


def test_factory_builds_serpapi_and_searxng_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "serpapi")
    monkeypatch.setenv("ARASTANCE_SEARCH__SERPAPI_API_KEY", KEY)
    monkeypatch.setenv("ARASTANCE_SEARCH__COUNTRY", "sa")
    backend = make_backend(load_settings())
    assert isinstance(backend, SerpApiSearch) and backend.country == "sa" and backend.metered
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "searxng")
    with pytest.raises(SearchError, match="search.searxng_url"):
        make_backend(load_settings())
    monkeypatch.setenv("ARASTANCE_SEARCH__SEARXNG_URL", "http://127.0.0.1:8888/search")
    assert isinstance(make_backend(load_settings()), SearxngSearch)
    monkeypatch.delenv("ARASTANCE_SEARCH__SERPAPI_API_KEY")
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "serpapi")
    with pytest.raises(SearchAuthError, match="ARASTANCE_SEARCH__SERPAPI_API_KEY"):
        make_backend(load_settings())


def test_google_is_refused_from_its_shutdown_day_naming_the_alternatives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "google")
    monkeypatch.setenv("ARASTANCE_SEARCH__GOOGLE_API_KEY", "k")
    monkeypatch.setenv("ARASTANCE_SEARCH__GOOGLE_ENGINE_ID", "cx")
    settings = load_settings()
    assert make_backend(settings, today=date(2026, 12, 31)).name == "google"  # existing keys work until then
    with pytest.raises(BackendRetired) as err:
        make_backend(settings, today=GOOGLE_CSE_SHUTDOWN)
    for alternative in ("serpapi", "brave", "searxng", "local", "2027-01-01"):
        assert alternative in str(err.value)
    check_backend_available("brave", today=date(2030, 1, 1))  # other backends are not affected
