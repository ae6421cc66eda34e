"""A proxy, captive portal or gateway in front of a search API answers with an HTML page (a 200, a
502/503): the error says the answer was not the API's JSON, with the backend, the setting of its
address, the status, the Content-Type and the page's title or first words, never the whole page
and never the key."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

import pytest
from helpers_search import raw_answers

from tasks.search.base import SearchAuthError, SearchBackend, SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.http import KEY_RUN_CHARS
from tasks.search.searxng import SearxngSearch
from tasks.search.serpapi import SerpApiSearch

KEY = "AIzaSy-portal-test-key-0123456789"
PORTAL = "Hotel WiFi – تسجيل الدخول"
#: A captive portal's sign-in page: long, and quoting the URL it caught (with the key in it).
PAGE = ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<title>\n  Hotel WiFi &ndash; تسجيل الدخول\n</title><style>body { color: red }</style></head><body>"
        + "<p>Accept the terms to go on.</p>" * 500
        + f"<a href='/login?next=/customsearch/v1?key={KEY}&amp;cx=cx'>continue</a></body></html>").encode()

#: Each backend, built against ``url`` with one retry, and the setting that holds its address.
BACKENDS: dict[str, tuple[Callable[[str], SearchBackend], str]] = {
    "google": (lambda url: GoogleSearch(KEY, "cx", endpoint=url, max_retries=1, sleep=lambda s: None),
               "search.google_endpoint (ARASTANCE_SEARCH__GOOGLE_ENDPOINT)"),
    "brave": (lambda url: BraveSearch(KEY, endpoint=url, max_retries=1, sleep=lambda s: None),
              "search.brave_endpoint (ARASTANCE_SEARCH__BRAVE_ENDPOINT)"),
    "serpapi": (lambda url: SerpApiSearch(KEY, endpoint=url, max_retries=1, sleep=lambda s: None),
                "search.serpapi_endpoint (ARASTANCE_SEARCH__SERPAPI_ENDPOINT)"),
    "searxng": (lambda url: SearxngSearch(url, api_key=KEY, max_retries=1, sleep=lambda s: None),
                "search.searxng_url (ARASTANCE_SEARCH__SEARXNG_URL)"),
}


def _error(backend: str, body: bytes, status: int, content_type: str = "text/html; charset=utf-8") -> tuple[str, int]:
    """The error ``backend``'s client raises when every answer is ``body``, and the requests sent."""
    make, _ = BACKENDS[backend]
    with raw_answers(body, status=status, content_type=content_type) as (url, seen), \
            pytest.raises(SearchError) as err:
        make(url).search("سد النهضة", None, 10)
    return str(err.value), len(seen)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("status", "told", "sent"), [
    (200, "HTTP 200, ", 1),  # not retried: a portal answers the same until someone signs in
    (502, "HTTP 502 after 2 attempt(s): Bad Gateway; ", 2),  # a gateway's failure may pass: retried
    (503, "HTTP 503 after 2 attempt(s): Service Unavailable; ", 2),
])
def test_an_html_page_in_place_of_the_api_s_json_is_named_with_what_to_check(
        backend: str, status: int, told: str, sent: int) -> None:
    # it was: "google search: the answer is not JSON" (200), "google search: HTTP 502 after 2 attempt(s):
    # Bad Gateway" (502): neither said that something else answered, nor which setting to check
    message, requests = _error(backend, PAGE, status)
    _, setting = BACKENDS[backend]
    assert message.startswith(f"{backend} search: {told}the answer is not JSON, so not the API's: a page titled "
                              f"'{PORTAL}' (Content-Type text/html; charset=utf-8) from http://127.0.0.1:")
    assert message.endswith(f"/answer; a proxy, captive portal or gateway in front of the API answered, "
                            f"or {setting} names another address")
    assert requests == sent
    assert KEY not in message and "Accept the terms" not in message and len(message) < 500


def test_a_page_without_a_title_is_told_by_its_first_words_without_its_markup_or_scripts() -> None:
    page = (b"<html><head><script>var t = '<p>not this</p>';</script></head><body><h1>Access denied</h1>"
            b"<p>Your request was blocked by the network policy of this site.</p>" + b"<p>More words.</p>" * 100
            + b"</body></html>")
    message, _ = _error("serpapi", page, 200)
    assert "an answer beginning 'Access denied Your request was blocked by the network policy of this site." in message
    assert "not this" not in message and "<" not in message and "More words. More words." in message
    assert re.search(r"More words\.…' \(Content-Type text/html; charset=utf-8\)", message)  # cut at a word, marked
    message, _ = _error("brave", b"", 200, "text/plain")
    assert "the answer is not JSON, so not the API's: an empty answer (Content-Type text/plain) from" in message


@pytest.mark.parametrize("written", [KEY, quote(KEY, safe=""), KEY.replace("-", "&#45;")],
                         ids=["as-is", "percent-encoded", "html-escaped"])
def test_a_key_the_page_quotes_is_redacted_before_the_quote_is_cut_short(written: str) -> None:
    """A portal's title quoting the request URL: the key, however written, is redacted whole, before
    the title is cut to its first 100 characters (cut first, a key cut in two escaped redaction)."""
    title = "Blocked by policy: https://www.googleapis.com/customsearch/v1?q=x&amp;key=" + written + "&amp;cx=cx"
    page = f"<html><head><title>{title}</title></head><body>blocked</body></html>".encode()
    message, _ = _error("google", page, 200)
    assert "key=****&cx=cx" in message  # the whole title fits once the key is redacted
    assert KEY[:12] not in message and "AIzaSy" not in message
    # a title of one long word (a URL), the key across its 100th character
    long_title = "https://www.googleapis.com/customsearch/v1?q=" + "x" * 40 + f"&amp;key={written}&amp;cx=" + "y" * 40
    message, _ = _error("google", f"<title>{long_title}</title>".encode(), 502)
    assert "&key=****&cx=yy…' (Content-Type" in message and "AIzaSy" not in message


def test_a_json_error_from_the_api_is_told_as_before() -> None:
    # the API's own JSON error under 503 is no page: nothing is added to what the API said
    body = b'{"error": "Internal error, please retry"}'
    message, requests = _error("serpapi", body, 503, "application/json")
    assert message == "serpapi search: HTTP 503 after 2 attempt(s): Internal error, please retry" and requests == 2


@pytest.mark.parametrize("backend", ["google", "brave", "serpapi"])
def test_an_html_refusal_is_not_called_the_api_s(backend: str) -> None:
    page = b"<html><head><title>Proxy login required</title></head><body>sign in</body></html>"
    message, _ = _error(backend, page, 403)
    # it was: "HTTP 403, the API refused the request: ...; the answer is not JSON, so not the API's: ..."
    assert message.startswith(f"{backend} search: HTTP 403, the request was refused: "), message
    assert "the API refused" not in message and "a page titled 'Proxy login required'" in message


@pytest.mark.parametrize("written", [
    f"{KEY[:10]}<wbr>{KEY[10:]}",                 # a word break inside it
    KEY.replace("-", "%2d"),                       # percent-encoded in lower case
    KEY.replace("-", "\\u002d"),                   # a JSON escape
    KEY[:-6] + "...",                              # cut short
    " ".join(KEY[i:i + 10] for i in range(0, len(KEY), 10)),         # broken into pieces
    "&shy;".join(KEY[i:i + 10] for i in range(0, len(KEY), 10)),     # soft hyphens
], ids=["word-break", "lower-case-percent", "json-escape", "cut-short", "pieces", "soft-hyphens"])
def test_a_key_the_page_writes_its_own_way_is_not_quoted(written: str) -> None:
    # it was: the key shown whole but for a space, or all but its last characters
    message, _ = _error("google", f"<html><body>Blocked: /customsearch/v1?q=x&cx=cx&k={written} </body></html>".encode(),
                        200)
    assert not any(KEY[i:i + KEY_RUN_CHARS] in message for i in range(len(KEY) - KEY_RUN_CHARS + 1)), message
    assert "Blocked: /customsearch/v1?q=x&cx=cx&k=****" in message


@pytest.mark.parametrize("charset", ["undefined", "idna", "base64"])
def test_a_refusal_with_a_charset_no_text_codec_reads_still_stops_the_run(charset: str) -> None:
    # it was: UnicodeError from decoding the page, which replaced the SearchAuthError that stops the run
    with raw_answers(b"<title>Access denied</title>", status=401, content_type=f"text/html; charset={charset}") as (
            url, _), pytest.raises(SearchAuthError) as err:
        BACKENDS["google"][0](url).search("x", None, 10)
    assert "a page titled 'Access denied'" in str(err.value)
