"""A page's text in the charset its bytes are in, whatever its declarations say.

Arabic news pages often declare the wrong charset. A UTF-8 page declared ``windows-1256`` (a
header left over from an older site) decodes into mojibake that is still Arabic letters
(``ظ‚ط§ظ„طھ`` for ``قالت``) and so passed the Arabic check; a ``windows-1256`` page declared UTF-8
decodes into replacement characters; one whose server adds Apache's default
``charset=ISO-8859-1`` to the header (which wins over the page's own ``<meta charset>``) decodes
into Latin letters (``æÞÇáÊ``). The bytes settle it: Arabic in windows-1256 is a run of bytes >=
0xC1 that is almost never valid UTF-8, while UTF-8 text is valid UTF-8 but for the odd character
a program cut in half (a PHP ``substr`` on a meta description). So a page is read as UTF-8 when
most of its non-ASCII bytes are valid UTF-8, and otherwise in the declared charset, the one its
``<meta>`` names or windows-1256, whichever reading is Arabic.

One function for every reader of stored or fetched HTML (the article fetcher, the WARC and
stored-capture indexes), so that the same bytes always give the same text. Declarations are
read as Scrapy reads them (w3lib, which Scrapy decodes with): byte-order mark, then the HTTP
``Content-Type``, then the page's ``<meta>``. A charset that names no text encoding (Python's
codec registry also holds ``base64``, ``rot13``, ``zlib`` and ``undefined``, which w3lib hands on
as it does any other name, and decoding with them raises) is passed over as an unknown one is.

Another reading than the declared one is taken only when it is an Arabic page as a whole: the
share of Arabic among all the letters of its visible text (markup, scripts and styles left out)
reaches the ratio an article needs (``search.min_arabic_ratio``). A Spanish or German page
correctly declared ISO-8859-1 reads in windows-1256 as Latin words with a few Arabic letters in
place of its accented ones (``situaciَn``, ``ضsterreich``): mostly Arabic among its non-ASCII
letters, but not an Arabic page, so it keeps its declared reading.
"""

from __future__ import annotations

import html
import re

from w3lib.encoding import html_body_declared_encoding, html_to_unicode, http_content_type_encoding, read_bom

from arastance.base.arabic import arabic_ratio

#: Pages of Arabic sites written before UTF-8 took over (2012-2016 archives among them).
LEGACY_ARABIC = "cp1256"
_REPLACEMENT = "\ufffd"
#: The share of Arabic letters another reading of a page needs to be taken: the default of
#: ``search.min_arabic_ratio`` (and of the WARC filter's), the ratio a page's article needs.
MIN_ARABIC_RATIO = 0.5
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def _mostly_arabic(text: str) -> bool:
    """Whether most of the non-ASCII letters of ``text`` are Arabic. Only those count: markup,
    scripts and Latin menus are ASCII in every reading, and would outweigh a short story."""
    letters = "".join(c for c in text if not c.isascii() and c.isalpha())
    return arabic_ratio(letters) >= 0.5


def _arabic_page(text: str) -> bool:
    """Whether ``text`` (a page's HTML) reads as an Arabic page: Arabic letters are at least
    ``MIN_ARABIC_RATIO`` of all the letters of its visible text, ASCII ones included."""
    visible = html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))
    return arabic_ratio(visible) >= MIN_ARABIC_RATIO


def _utf8_reading(body: bytes) -> tuple[str, bool]:
    """``body`` as UTF-8 (a bad sequence as U+FFFD) and whether that is its charset: the valid
    non-ASCII characters outnumber the bad sequences (windows-1256 Arabic gives about one bad
    sequence a letter and almost no valid ones)."""
    text = body.decode("utf-8-sig", errors="replace")
    bad = text.count(_REPLACEMENT) - body.count(_REPLACEMENT.encode("utf-8"))  # a U+FFFD the page wrote is valid
    valid = sum(1 for c in text if not c.isascii()) - bad
    return text, bad == 0 or valid > bad


def _text_encoding(name: str | None) -> str | None:
    """``name`` when bytes can be decoded with it, else None. A non-text codec (``base64``,
    ``rot13``) is refused by ``bytes.decode``, and ``undefined`` refuses every byte."""
    if name is None:
        return None
    try:
        b"<".decode(name, errors="replace")
    except (LookupError, UnicodeError):
        return None
    return name


def _declared_reading(body: bytes, content_type: str | None) -> tuple[str, str]:
    """``(charset, text)``: ``body`` read as it declares (w3lib's order: byte-order mark, the
    header's charset, the ``<meta>`` one, else UTF-8), a charset that names no text encoding
    passed over as w3lib passes over an unknown one. The charset chosen is handed to w3lib as the
    header's, so that it still reads a byte-order mark first and UTF-16/32 as it does."""
    declared = (_text_encoding(http_content_type_encoding(content_type))
                or _text_encoding(html_body_declared_encoding(body)) or "utf-8")
    return html_to_unicode(f"text/html; charset={declared}", body)


def page_text(body: bytes, content_type: str | None = None) -> tuple[str, str | None]:
    """``(text, read_as)`` of a page's ``body`` served with the HTTP header ``content_type``
    (None when unknown, as for a stored capture): its bytes as UTF-8 when they are mostly valid
    UTF-8; else its declared reading, unless that is not Arabic and the ``<meta>`` charset's or
    windows-1256's is an Arabic page (``MIN_ARABIC_RATIO`` of the letters of its visible text).
    ``read_as`` names the encoding used when it is not the declared one."""
    declared, text = _declared_reading(body, content_type)
    if read_bom(body)[0] or declared.startswith(("utf-16", "utf-32")):  # never confused this way
        return text, None
    utf8, is_utf8 = _utf8_reading(body)
    if is_utf8:
        return utf8, (None if declared == "utf-8" or utf8.isascii() else "utf-8")
    if _mostly_arabic(text):
        return text, None
    for other in dict.fromkeys((_text_encoding(html_body_declared_encoding(body)), LEGACY_ARABIC)):
        if other and other != declared:
            reading = body.decode(other, errors="replace")
            if _mostly_arabic(reading) and _arabic_page(reading):
                return reading, other
    return text, None
