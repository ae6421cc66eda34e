"""``bounded_get``'s cap bounds memory whatever the answer's content codings: a few hundred bytes of
brotli or stacked gzip decode to GiBs, which httpx decoded in one step before the cap was checked
(a 6.5 KB brotli answer took 8.2 GiB). Real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from collections.abc import Callable
from typing import TypeVar

import brotli
import httpx
import pytest
from helpers_search import raw_answers

from tasks.search.http import ACCEPT_ENCODING, AnswerTooLarge, bounded_get, brotli_decoded

T = TypeVar("T")
CAP = 2**20
BLANKS = b" " * (64 * CAP)
ANSWER = json.dumps({"items": ["نتيجة"] * 50}, ensure_ascii=False).encode()


def _raw_deflate(data: bytes) -> bytes:
    coder = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return coder.compress(data) + coder.flush()


#: Each coding as a server applies it.
CODERS: dict[str, Callable[[bytes], bytes]] = {"gzip": gzip.compress, "deflate": zlib.compress,
                                               "br": lambda data: brotli.compress(data, quality=5)}


def _encoded(data: bytes, codings: str) -> bytes:
    for coding in codings.split(", "):
        data = CODERS[coding](data)
    return data


def _get(url: str, max_bytes: int = CAP) -> httpx.Response:
    with httpx.Client() as client:
        return bounded_get(client, client.build_request("GET", url), max_bytes=max_bytes, deadline_s=30)


def _peak_of(action: Callable[[], T]) -> tuple[T | BaseException, int]:
    """What ``action`` returns or raises, and the most memory Python objects took while it ran."""
    tracemalloc.start()
    try:
        try:
            outcome: T | BaseException = action()
        except Exception as exc:  # noqa: BLE001 - returned for the test to check
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("codings", ["br", "gzip", "deflate", "gzip, gzip", "br, gzip"])
def test_an_answer_that_decodes_past_the_cap_is_refused_without_being_decoded_whole(codings: str) -> None:
    body = _encoded(BLANKS, codings)
    assert len(body) < CAP  # small as sent: only its decoding is too large
    with raw_answers(body, content_encoding=codings) as (url, _):
        outcome, peak = _peak_of(lambda: _get(url))
    assert isinstance(outcome, AnswerTooLarge)
    assert str(outcome) == "the answer is larger than 1,048,576 bytes"
    assert peak < 4 * CAP  # the cap and a step of decoding, never the 64 MiB


@pytest.mark.parametrize("codings", [None, "gzip", "deflate", "br", "gzip, br", "identity"])
def test_answers_in_each_coding_asked_for_are_decoded(codings: str | None) -> None:
    body = _encoded(ANSWER, codings) if codings and codings != "identity" else ANSWER
    with raw_answers(body, content_encoding=codings) as (url, seen):
        answer = _get(url)
    assert answer.json() == {"items": ["نتيجة"] * 50}
    assert "content-encoding" not in answer.headers
    assert seen[0]["accept-encoding"] == ACCEPT_ENCODING == "gzip, deflate, br"


@pytest.mark.parametrize("codings", ["gzip", "deflate", "br", "gzip, br"])
def test_answers_decoding_to_many_steps_are_decoded_whole(codings: str) -> None:
    # it was: a brotli answer past ~70 KB decoded was "cut short" (its decoder held output back while it said
    # it could take more input), so a 1,000-row CDX page or a long SearXNG answer failed
    large = json.dumps({"items": [f"نتيجة رقم {i}" for i in range(15_000)]}, ensure_ascii=False).encode()  # ~0.4 MB
    with raw_answers(_encoded(large, codings), content_encoding=codings) as (url, _):
        assert _get(url).content == large


def test_brotli_streams_decode_whole_fed_at_once_or_in_pieces() -> None:
    large = b"".join(f"line {i} \u0646\u0635 ".encode() for i in range(60_000))
    compressed = brotli.compress(large)
    assert b"".join(brotli_decoded([compressed])) == large
    assert b"".join(brotli_decoded(compressed[i:i + 1000] for i in range(0, len(compressed), 1000))) == large


def test_a_deflate_answer_without_its_zlib_header_is_read_as_raw_deflate_as_httpx_reads_it() -> None:
    with raw_answers(_raw_deflate(ANSWER), content_encoding="deflate") as (url, _):
        assert _get(url).json() == {"items": ["نتيجة"] * 50}


@pytest.mark.parametrize(("body", "codings", "error"), [
    (gzip.compress(gzip.compress(gzip.compress(ANSWER))), "gzip, gzip, gzip", "stacks 3 codings"),
    (gzip.compress(ANSWER)[:40], "gzip", "the gzip stream ends early, after 40 bytes"),
    (brotli.compress(ANSWER)[:40], "br", "the brotli stream ends early, after 40 bytes"),
    (b"not gzip at all", "gzip", "cannot be undone"),
], ids=["stacked thrice", "gzip cut", "brotli cut", "not gzip"])
def test_an_answer_whose_codings_cannot_be_undone_is_a_decoding_error(body: bytes, codings: str, error: str) -> None:
    with raw_answers(body, content_encoding=codings) as (url, _), pytest.raises(httpx.DecodingError, match=error):
        _get(url)


def test_an_answer_larger_than_the_cap_as_sent_is_refused() -> None:
    with raw_answers(b" " * (CAP + 1)) as (url, _), pytest.raises(AnswerTooLarge):
        _get(url)
    with raw_answers(b" " * CAP) as (url, _):
        assert len(_get(url).content) == CAP
