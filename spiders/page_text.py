"""A fetched page's text when its declared charset is wrong, as it often is on Arabic news sites.

Scrapy decodes a page with the charset its HTTP header declares. Two mistakes are common: a
UTF-8 page declared ``windows-1256`` (the header left over from an older site), which decodes
into mojibake that is still Arabic letters (``ظ‚ط§ظ„طھ`` for ``قالت``) and so passed the Arabic
check; and a ``windows-1256`` page declared UTF-8, which decodes into replacement characters.
The bytes settle both: Arabic in windows-1256 is a run of bytes >= 0xC1 that is never valid
UTF-8, while valid UTF-8 with non-ASCII characters is almost never anything else.
"""

from __future__ import annotations

import codecs

from scrapy.http import TextResponse

from arastance.base.arabic import arabic_ratio

#: Pages of Arabic sites written before UTF-8 took over (2012-2016 archives among them).
LEGACY_ARABIC = "cp1256"


def _codec(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return name.lower()


def page_text(response: TextResponse) -> tuple[str, str | None]:
    """``(text, read_as)`` of ``response``: its bytes as UTF-8 when they are valid UTF-8, as
    windows-1256 when declared UTF-8 but not valid UTF-8 and mostly Arabic that way, else as
    Scrapy decoded them. ``read_as`` names the encoding used when it is not the declared one."""
    declared = _codec(response.encoding)
    if declared.startswith(("utf-16", "utf-32")):  # a two- or four-byte encoding is never confused this way
        return response.text, None
    try:
        text = response.body.decode("utf-8-sig")
    except UnicodeDecodeError:
        if declared == "utf-8":
            legacy = response.body.decode(LEGACY_ARABIC, errors="replace")
            if arabic_ratio(legacy) >= 0.5:
                return legacy, LEGACY_ARABIC
        return response.text, None
    return text, (None if declared == "utf-8" or text.isascii() else "utf-8")
