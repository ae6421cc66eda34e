"""The Google and Brave clients against local servers speaking those APIs' JSON."""

from __future__ import annotations

import logging
from datetime import date

import pytest
from helpers_search import ApiServer, Reply, brave_body, brave_error, google_body, google_error

from arastance.base.retry_after import retry_after_s
from tasks.search.base import DateWindow, SearchAuthError, SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch

KEY = "AIzaSy-test-key-0123456789-SECRET"
WINDOW = DateWindow(date(2016, 4, 1), date(2016, 6, 30))


def _google(server: ApiServer, waits: list[float] | None = None) -> GoogleSearch:
    return GoogleSearch(KEY, "engine-cx-1", endpoint=server.url + "/customsearch/v1", max_retries=2,
                        backoff_s=0.01, sleep=(waits.append if waits is not None else lambda s: None))


def test_google_pages_through_results_with_key_cx_and_date_range() -> None:
    server = ApiServer(lambda r: Reply(body=google_body(r.params["q"], int(r.params["start"]), int(r.params["num"]), 23)))
    with server.running():
        results = _google(server).search("لقاح كورونا", WINDOW, 25)
    assert [r.rank for r in results] == list(range(1, 24))
    assert [(q.params["start"], q.params["num"]) for q in server.requests] == [("1", "10"), ("11", "10"), ("21", "5")]
    first = server.requests[0].params
    assert first["key"] == KEY and first["cx"] == "engine-cx-1" and first["q"] == "لقاح كورونا"
    assert first["sort"] == "date:r:20160401:20160630" and first["lr"] == "lang_ar"
    assert results[0].url == "https://news1.example.com/article/1"
    assert results[0].title == "نتيجة 1 عن لقاح كورونا"
    assert results[0].published_date == date(2016, 5, 2)


def test_google_no_items_is_an_empty_result() -> None:
    server = ApiServer(lambda r: Reply(body=google_body(r.params["q"], 1, 10, 0)))
    with server.running():
        assert _google(server).search("لا شيء", None, 10) == []
    assert "sort" not in server.requests[0].params


def test_google_pages_without_links_move_on_and_never_ask_more_pages_than_num_needs() -> None:
    # the offset used to move by the results kept: a page without links asked for itself for ever
    body = {**google_body("q", 1, 10, 50), "items": [{"title": "بلا رابط"}] * 10}
    server = ApiServer(lambda r: Reply(body=body))
    with server.running():
        assert _google(server).search("q", None, 30) == []
    assert [q.params["start"] for q in server.requests] == ["1", "11", "21"]


def test_google_error_that_is_only_a_text_is_reported_not_a_crash() -> None:
    server = ApiServer(lambda r: Reply(400, {"error": "bad request from a proxy"}))
    with server.running(), pytest.raises(SearchError, match="bad request from a proxy"):
        _google(server).search("q", None, 10)


def test_google_backs_off_on_429_honouring_retry_after_then_succeeds() -> None:
    answers = iter([Reply(429, google_error(429, "Rate Limit Exceeded", "rateLimitExceeded"), {"Retry-After": "7"}),
                    Reply(503, google_error(503, "Backend Error", "backendError")),
                    Reply(body=google_body("q", 1, 3, 3))])
    server = ApiServer(lambda r: next(answers))
    waits: list[float] = []
    with server.running():
        results = _google(server, waits).search("q", None, 3)
    assert len(results) == 3 and len(server.requests) == 3
    assert waits == [7.0, 0.02]  # Retry-After honoured, then exponential backoff


def test_google_gives_up_after_retries_with_the_error_message_and_without_the_key() -> None:
    server = ApiServer(lambda r: Reply(500, google_error(500, "Internal error", "backendError")))
    with server.running(), pytest.raises(SearchError) as err:
        _google(server).search("q", None, 10)
    assert len(server.requests) == 3
    assert "HTTP 500" in str(err.value) and "Internal error (backendError)" in str(err.value)
    assert KEY not in str(err.value)


def test_google_bad_key_is_an_auth_error_not_retried(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = ApiServer(lambda r: Reply(403,
                                       google_error(403, f"API key not valid: {KEY}", "keyInvalid")))
    with server.running(), pytest.raises(SearchAuthError) as err:
        _google(server).search("q", None, 10)
    assert len(server.requests) == 1
    assert "keyInvalid" in str(err.value) and KEY not in str(err.value)
    assert KEY not in caplog.text and KEY not in repr(_google(server))
    assert "HTTP Request" in caplog.text  # httpx did log the request, with the key redacted


def test_brave_sends_token_header_freshness_and_offset_paging() -> None:
    server = ApiServer(lambda r: Reply(body=brave_body(r.params["q"], int(r.params["offset"]), int(r.params["count"]), 30)))
    with server.running():
        brave = BraveSearch(KEY, endpoint=server.url + "/res/v1/web/search", backoff_s=0, sleep=lambda s: None)
        results = brave.search("سد النهضة", WINDOW, 25)
    assert len(results) == 25 and [r.rank for r in results] == list(range(1, 26))
    # offset is a page number of `count` results: the count stays 20 and the second page is cut to 5
    # (it was count 5 at offset 1: results 6-10 twice, 21-25 never)
    assert [r.url for r in results] == [f"https://brave{i % 2}.example.org/n/{i}" for i in range(1, 26)]
    assert [(q.params["offset"], q.params["count"]) for q in server.requests] == [("0", "20"), ("1", "20")]
    first = server.requests[0]
    assert first.headers["x-subscription-token"] == KEY and "key" not in first.params
    assert first.params["freshness"] == "2016-04-01to2016-06-30" and first.params["search_lang"] == "ar"
    assert results[0].title == "خبر سد النهضة 1" and results[0].snippet == "وصف الخبر 1"
    assert results[0].published_date == date(2016, 6, 2)


def test_brave_keeps_one_result_per_url_and_stops_on_a_page_with_nothing_new() -> None:
    # a server whose second page overlaps the first (its ranking moved between requests) and
    # whose third repeats the second
    every = brave_body("q", 0, 60, 60)["web"]["results"]

    def page(offset: int) -> dict:
        body = brave_body("q", 0, 20, 60)  # more results available
        first = 0 if offset == 0 else 15
        body["web"]["results"] = every[first:first + 20]
        return body

    server = ApiServer(lambda r: Reply(body=page(int(r.params["offset"]))))
    with server.running():
        results = BraveSearch(KEY, endpoint=server.url + "/res/v1/web/search", sleep=lambda s: None).search("q", None, 60)
    assert [r.url for r in results] == [f"https://brave{i % 2}.example.org/n/{i}" for i in range(1, 36)]
    assert [r.rank for r in results] == list(range(1, 36))
    assert [q.params["offset"] for q in server.requests] == ["0", "1", "2"]  # page 2 added nothing: stop


def test_brave_429_waits_for_the_rate_limit_reset() -> None:
    answers = iter([Reply(429, brave_error(429, "RATE_LIMITED", "Request rate limit exceeded"),
                          {"X-RateLimit-Limit": "1, 15000", "X-RateLimit-Remaining": "0, 14000",
                           "X-RateLimit-Reset": "1, 2419200"}),
                    Reply(body=brave_body("q", 0, 5, 2))])
    server = ApiServer(lambda r: next(answers))
    waits: list[float] = []
    with server.running():
        results = BraveSearch(KEY, endpoint=server.url, sleep=waits.append).search("q", None, 5)
    assert len(results) == 2 and waits == [1.0]


def test_brave_invalid_token_is_an_auth_error() -> None:
    server = ApiServer(lambda r: Reply(401, brave_error(401, "SUBSCRIPTION_TOKEN_INVALID",
                                                                          "The provided subscription token is invalid.")))
    with server.running(), pytest.raises(SearchAuthError, match="SUBSCRIPTION_TOKEN_INVALID"):
        BraveSearch(KEY, endpoint=server.url, sleep=lambda s: None).search("q", None, 5)


def test_web_backends_need_credentials() -> None:
    with pytest.raises(SearchAuthError, match="google_engine_id"):
        GoogleSearch(KEY, "", endpoint="http://127.0.0.1:1/")
    with pytest.raises(SearchAuthError, match="brave_api_key"):
        BraveSearch("", endpoint="http://127.0.0.1:1/")


def test_google_daily_quota_is_a_plain_error_not_an_auth_error() -> None:
    server = ApiServer(lambda r: Reply(403, google_error(403, "Quota exceeded for quota metric 'Queries per day'",
                                                         "dailyLimitExceeded")))
    with server.running(), pytest.raises(SearchError, match="quota is spent.*dailyLimitExceeded") as err:
        _google(server).search("q", None, 10)
    assert not isinstance(err.value, SearchAuthError) and len(server.requests) == 1


def test_retry_after_reads_seconds_http_dates_and_brave_reset() -> None:
    from datetime import datetime, timezone


    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert retry_after_s({"retry-after": "12"}, now) == 12.0
    assert retry_after_s({"retry-after": "Wed, 01 May 2024 12:00:30 GMT"}, now) == 30.0
    assert retry_after_s({"x-ratelimit-reset": "1, 2419200"}, now) == 1.0
    assert retry_after_s({"retry-after": "soon"}, now) is None and retry_after_s({}, now) is None


def test_a_redirect_off_the_api_host_is_not_followed_so_the_key_stays_home() -> None:
    # httpx strips Authorization when a redirect leaves the origin, but kept Brave's token header
    elsewhere = ApiServer(lambda r: Reply(body=brave_body("q", 0, 5, 5)))
    hops = {"/res/v1/web/search": f"{elsewhere.url}/collect", "/v2": "/v3"}
    api = ApiServer(lambda r: Reply(302, None, {"Location": hops[r.path]}) if r.path in hops
                    else Reply(body=brave_body("q", 0, 5, 2)))
    with api.running(), elsewhere.running():
        brave = BraveSearch(KEY, endpoint=api.url + "/res/v1/web/search", sleep=lambda s: None)
        with pytest.raises(SearchError, match=r"redirect to http://127\.0\.0\.1:\d+ not followed: it leaves the API.s host"):
            brave.search("q", None, 5)
        assert elsewhere.requests == []
        moved = BraveSearch(KEY, endpoint=api.url + "/v2", sleep=lambda s: None)
        assert len(moved.search("q", None, 5)) == 2  # a redirect on the same host is followed
    assert [r.path for r in api.requests[-2:]] == ["/v2", "/v3"] and api.requests[-1].headers["x-subscription-token"] == KEY


def test_a_key_percent_encoded_in_a_url_is_redacted_too(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    key = "AIzaS+cr/t=K3y&x"
    server = ApiServer(lambda r: Reply(500, google_error(500, f"bad request {r.params['key']} at "
                                                              f"/customsearch/v1?key=AIzaS%2Bcr%2Ft%3DK3y%26x", "x")))
    with server.running(), pytest.raises(SearchError) as err:
        GoogleSearch(key, "cx", endpoint=server.url + "/customsearch/v1", max_retries=0, sleep=lambda s: None).search("q", None, 10)
    for text in (str(err.value), caplog.text):
        assert "AIzaS%2Bcr%2Ft%3DK3y%26x" not in text and key not in text
    assert "****" in str(err.value)


def test_an_answer_too_large_or_too_slow_in_all_is_refused() -> None:
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tasks.search.http import MAX_ANSWER_BYTES

    huge = ApiServer(lambda r: Reply(body={"items": [], "padding": "x" * (MAX_ANSWER_BYTES + 1)}))
    with huge.running(), pytest.raises(SearchError, match="the answer is larger than 8,388,608 bytes"):
        _google(huge).search("q", None, 10)

    class Drip(BaseHTTPRequestHandler):  # a byte every 0.1 s: each read is quick, the whole never ends
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            for _ in range(600):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Drip)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        google = GoogleSearch(KEY, "cx", endpoint=f"http://127.0.0.1:{httpd.server_address[1]}/", timeout_s=1.0,
                              max_retries=1, sleep=lambda s: None)
        started = time.monotonic()
        with pytest.raises(SearchError, match="request failed after 2 attempt"):
            google.search("q", None, 10)
        assert time.monotonic() - started < 10  # two attempts of 1 s each, not 60 s of dripping
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_retry_after_takes_ascii_digits_only() -> None:
    assert retry_after_s({"retry-after": "²"}) is None  # str.isdigit() says yes, float() says no
    assert retry_after_s({"x-ratelimit-reset": "nan"}) is None  # max(0.0, nan) was 0: no wait at all
    assert retry_after_s({"retry-after": " 12 "}) == 12.0


def test_retry_after_reads_every_rfc_9110_date_form_as_utc() -> None:
    from datetime import datetime, timezone

    now = datetime(1994, 11, 6, 8, 49, 7, tzinfo=timezone.utc)
    for form in ("Sun, 06 Nov 1994 08:49:37 GMT",  # IMF-fixdate
                 "Sunday, 06-Nov-94 08:49:37 GMT",  # RFC 850
                 "Sun Nov  6 08:49:37 1994",  # asctime: parsed naive, was a TypeError
                 "Sun, 06 Nov 1994 08:49:37 -0000"):  # "-0000": parsed naive too
        assert retry_after_s({"retry-after": form}, now) == 30.0, form


def test_a_malformed_retry_after_date_is_no_hint_not_a_crash() -> None:
    for value in ("Wed, 21 Oct 99999999999 07:28:00 GMT",  # OverflowError
                  "Wed, 21 Oct 2015 07:28:00 +99999999999999999999",  # OverflowError
                  "Wed, 21 Oct 2015 07:28:00 +9999",  # ValueError: offset of four days
                  "Wed, 21 Oct 2015 99:28:00 GMT"):  # ValueError: hour 99
        assert retry_after_s({"retry-after": value}) is None, value


def test_google_retries_a_503_whose_retry_after_is_an_asctime_date() -> None:
    answers = iter([Reply(503, google_error(503, "Backend Error", "backendError"), {"Retry-After": "Sun Nov  6 08:49:37 1994"}),
                    Reply(body=google_body("q", 1, 3, 3))])
    server = ApiServer(lambda r: next(answers))
    waits: list[float] = []
    with server.running():
        assert len(_google(server, waits).search("q", None, 3)) == 3
    assert len(server.requests) == 2 and waits == [0.0]  # a date in the past: ask again at once


@pytest.mark.parametrize("error", ["Too Many Requests from this proxy", None, ["quota"]])
def test_brave_error_that_is_not_an_object_is_retried_and_reported_not_a_crash(error: object) -> None:
    server = ApiServer(lambda r: Reply(429, {"error": error}))
    waits: list[float] = []
    with server.running(), pytest.raises(SearchError, match=r"HTTP 429 after 2 attempt\(s\): ") as err:
        BraveSearch(KEY, endpoint=server.url, max_retries=1, sleep=waits.append).search("q", None, 5)
    assert len(server.requests) == 2 and waits == [1.0]
    assert str(err.value).endswith(str(error) if error else "Too Many Requests")


def test_google_keeps_one_result_per_url_when_pages_repeat_links() -> None:
    every = google_body("q", 1, 30, 30)["items"]

    def page(start: int) -> dict:  # page 2 starts with results 8-10 again (the ranking moved)
        first = 0 if start == 1 else 7
        return {**google_body("q", 1, 10, 30), "items": every[first:first + 10]}

    server = ApiServer(lambda r: Reply(body=page(int(r.params["start"]))))
    with server.running():
        results = _google(server).search("q", None, 20)
    assert [r.url for r in results] == [item["link"] for item in every[:17]]
    assert [r.rank for r in results] == list(range(1, 18))
    assert [q.params["start"] for q in server.requests] == ["1", "11"]  # the offset moves by the page asked for
