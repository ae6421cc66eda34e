"""Keys with stray characters, requests httpx cannot send, and answers json cannot decode."""

from __future__ import annotations

import pytest
from helpers_search import ApiServer, Reply, brave_body, google_body, raw_answers, searxng_body
from pydantic import SecretStr

from tasks.search.base import SearchAuthError, SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.http import JsonClient
from tasks.search.keys import resolve_key
from tasks.search.searxng import SearxngSearch

KEY = "BSAsecrettoken1234"


def test_a_key_with_a_trailing_newline_is_sent_without_it() -> None:
    server = ApiServer(lambda r: Reply(body=brave_body("q", 0, 5, 5)) if "x-subscription-token" in r.headers
                       else Reply(body=google_body("q", 1, 5, 5)))
    waits: list[float] = []
    with server.running():
        assert len(BraveSearch(KEY + "\n", endpoint=server.url, sleep=waits.append).search("q", None, 5)) == 5
        assert len(GoogleSearch(f" {KEY}\r\n", "cx", endpoint=server.url + "/g", sleep=waits.append).search("q", None, 5)) == 5
    assert [r.headers.get("x-subscription-token") or r.params["key"] for r in server.requests] == [KEY, KEY]
    assert waits == []  # it was refused by httpx, and retried with backoff 4 times


@pytest.mark.parametrize("key", [f"{KEY}\x00x", f"BSA\nsecret{KEY}", f"{KEY}\u00e9"])
def test_a_key_with_a_control_or_non_ascii_character_is_an_auth_error_naming_the_setting(key: str) -> None:
    with pytest.raises(SearchAuthError, match=r"the key in search\.brave_api_key has a control or non-ASCII") as err:
        BraveSearch(key, endpoint="http://127.0.0.1:1/")
    assert KEY not in str(err.value)
    with pytest.raises(SearchAuthError, match=r"search\.searxng_api_key"):
        SearxngSearch("http://127.0.0.1:1/search", api_key=key)


def test_a_whitespace_key_is_a_missing_key() -> None:
    with pytest.raises(SearchAuthError, match=r"Brave search needs an API key \(search\.brave_api_key or brave_api_key_block\)"):
        BraveSearch(" \n", endpoint="http://127.0.0.1:1/")


def test_resolve_key_strips_the_key_and_refuses_one_no_request_can_carry() -> None:
    assert resolve_key(SecretStr(KEY + "\n"), None, "search.brave_api_key").get_secret_value() == KEY
    with pytest.raises(SearchAuthError, match=r"no key for search\.brave_api_key"):
        resolve_key(SecretStr("\n"), None, "search.brave_api_key")
    with pytest.raises(SearchAuthError,
                       match=r"the key in search\.brave_api_key \(ARASTANCE_SEARCH__BRAVE_API_KEY\) .* position 4") as err:
        resolve_key(SecretStr("BSA\x07" + KEY), None, "search.brave_api_key")
    assert KEY not in str(err.value)


def test_searxng_token_is_sent_without_surrounding_whitespace() -> None:
    server = ApiServer(lambda r: Reply(body=searxng_body("q", int(r.params["pageno"]), 2)))
    with server.running():
        SearxngSearch(server.url + "/search", api_key="tok-123\n", sleep=lambda s: None).search("q", None, 2)
    assert server.requests[0].headers["authorization"] == "Bearer tok-123"


def _client(waits: list[float]) -> JsonClient:
    return JsonClient("test", [], lambda r: r.reason_phrase, sleep=waits.append)


def test_a_request_httpx_cannot_send_fails_at_once_without_retries() -> None:
    server = ApiServer(lambda r: Reply(body={}))
    waits: list[float] = []
    with server.running(), pytest.raises(SearchError, match=r"cannot be sent, so it is not retried: LocalProtocolError"):
        _client(waits).get(server.url, {}, {"X-Token": "a\nb"})
    with pytest.raises(SearchError, match=r"cannot be sent, so it is not retried: UnsupportedProtocol"):
        _client(waits).get("ftp://127.0.0.1:1/search", {})
    assert waits == [] and server.requests == []


DEEP = b"[" * 200_000 + b"]" * 200_000  # json raises RecursionError, not ValueError


def test_an_answer_nested_too_deep_for_json_is_not_json_not_a_crash() -> None:
    with raw_answers(DEEP) as (url, _), pytest.raises(SearchError, match="the answer is not JSON"):
        SearxngSearch(url, sleep=lambda s: None).search("q", None, 5)
    with raw_answers(b'{"error": ' + DEEP + b"}", status=400) as (url, _), pytest.raises(SearchError, match="HTTP 400: Bad Request"):
        BraveSearch(KEY, endpoint=url, sleep=lambda s: None).search("q", None, 5)


def test_an_answer_in_the_charset_its_content_type_declares_is_read_in_it() -> None:
    # it was: an answer declared and sent as windows-1256 was "not JSON" (only UTF-8 bytes were read)
    body = '{"results": [{"url": "https://a.example/1", "title": "عنوان الخبر", "content": "نص"}]}'.encode("cp1256")
    with raw_answers(body, content_type="application/json; charset=windows-1256") as (url, _):
        hits = SearxngSearch(url, sleep=lambda s: None).search("q", None, 5)
    assert [(h.url, h.title) for h in hits] == [("https://a.example/1", "عنوان الخبر")]
    with raw_answers(body, content_type="application/json; charset=utf-8") as (url, _), \
            pytest.raises(SearchError, match="the answer is not JSON"):  # bytes that are not what is declared
        SearxngSearch(url, sleep=lambda s: None).search("q", None, 5)
    for charset in ("x-unknown", "base64", "rot13"):  # no codec, or a codec that is no text encoding
        with raw_answers(body, content_type=f"application/json; charset={charset}") as (url, _), \
                pytest.raises(SearchError, match="the answer is not JSON"):
            SearxngSearch(url, sleep=lambda s: None).search("q", None, 5)
