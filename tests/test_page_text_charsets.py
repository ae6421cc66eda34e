"""A page whose header or ``<meta>`` names a codec of Python's registry that is no text encoding
(``base64``, ``rot13``, ``zlib``, ``undefined``) is read as one naming an unknown charset: those
names used to reach ``bytes.decode`` and raise (LookupError, UnicodeError) in the fetcher, the
WARC index and the capture index alike."""

from __future__ import annotations

import pytest

from arastance.base.page_text import page_text

STORY = "<p>قالت الوزارة إن الخبر المتداول عن إغلاق المدارس غير صحيح</p>"
NOT_TEXT = ["base64", "rot13", "zlib", "hex", "undefined"]


@pytest.mark.parametrize("codec", NOT_TEXT)
def test_a_header_naming_a_codec_that_is_no_charset_is_passed_over_for_the_meta_one(codec: str) -> None:
    page = f"<html><head><meta charset='windows-1256'></head><body>{STORY}</body></html>"
    body = page.encode("cp1256")
    assert page_text(body, f"text/html; charset={codec}") == page_text(body, "text/html; charset=no-such-charset")
    assert page_text(body, f"text/html; charset={codec}") == (page, None)


@pytest.mark.parametrize("codec", NOT_TEXT)
def test_a_meta_naming_a_codec_that_is_no_charset_is_read_as_an_unknown_one(codec: str) -> None:
    utf8 = f"<html><head><meta charset='{codec}'></head><body>{STORY}</body></html>"
    assert page_text(utf8.encode("utf-8"), None) == (utf8, None)
    legacy = utf8.encode("cp1256")  # read as UTF-8 (no declaration to follow), then as windows-1256, the Arabic reading
    unknown = legacy.replace(codec.encode(), b"no-such-charset")
    assert page_text(legacy, None) == (utf8, "cp1256")
    assert page_text(unknown, None)[1] == "cp1256"
