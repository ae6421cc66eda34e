"""The ``Authorization`` value the crawlers send for a configured URL's ``user:password@``: UTF-8 bytes, as
RFC 7617 asks and curl sends. Scrapy's helper (w3lib) encoded latin-1: an Arabic password failed with a
UnicodeEncodeError whose text held ``user:password``, and ``pässwörd`` went as bytes a UTF-8 server refuses."""

from __future__ import annotations

import base64

import pytest

from arastance.base.secrets import basic_auth_header, split_url_credentials


def _credentials(header: bytes) -> bytes:
    scheme, _, token = header.partition(b" ")
    assert scheme == b"Basic"
    return base64.b64decode(token)


def test_the_rfc_7617_example_is_encoded_as_the_rfc_does() -> None:
    assert basic_auth_header("test", "123£") == b"Basic dGVzdDoxMjPCow=="  # RFC 7617, section 2.1


@pytest.mark.parametrize("password", ["كلمةسر", "pässwörd", "Ses@me: 9/x"])
def test_a_password_is_sent_as_its_utf8_bytes(password: str) -> None:
    assert _credentials(basic_auth_header("مشغل", password)) == f"مشغل:{password}".encode()


def test_a_password_from_a_url_is_sent_as_the_url_percent_encodes_it() -> None:
    _, credentials = split_url_credentials("http://op:p%C3%A4ssw%C3%B6rd@127.0.0.1:8000/norumors/")
    assert credentials is not None
    assert _credentials(basic_auth_header(*credentials)) == b"op:p\xc3\xa4ssw\xc3\xb6rd"


def test_text_no_codec_takes_still_gives_a_header() -> None:
    # a lone surrogate: no exception, whose text (and repr) would hold the whole "user:password"
    assert _credentials(basic_auth_header("op", "Ses\ud800me")) == b"op:Ses\xed\xa0\x80me"


def test_a_url_that_cannot_be_split_is_refused_without_its_password() -> None:
    # urlsplit's own message quotes the netloc: "netloc 'op:Ses＃me@127.0.0.1' contains invalid characters ..."
    with pytest.raises(ValueError) as err:
        split_url_credentials("http://op:Ses＃me@127.0.0.1:8000/norumors/")
    assert "Ses" not in str(err.value) and "Ses" not in repr(err.value)
    assert "****@127.0.0.1:8000/norumors/" in str(err.value)
