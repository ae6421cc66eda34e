"""Other captures of a page that an archive crawl may read when the archive replays the listed one
as a capture from another year, or of another page.

The Wayback Machine answers a capture it cannot serve with a redirect to another capture of the
URL, however far away; the page's claim is then still within reach through another capture taken
within the crawl's days. The spider asks the CDX API for them (one exact URL, the crawl's days,
``statuscode:200`` HTML captures with ``collapse=digest``: a capture with the same content as one
before it is a revisit of the same stored bytes, which the archive could not serve either), with
the query and answer of :mod:`arastance.base.cdx` that the archive client lists sites with, and
reads them nearest the listed one first.
"""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import urlencode

from arastance.base.captures import capture_time
from arastance.base.cdx import CdxAnswerError, CdxQuery, parse_cdx_json

#: Other captures of a page asked for in turn after the listed one was replayed as another's: each
#: costs a request (and perhaps a redirect) at the archive's polite pace.
MAX_OTHER_CAPTURES = 3
#: Rows the CDX lookup asks for: a page's distinct captures within the days are rarely more, and the
#: server lists them in time order, so a listed capture that is the first of the days (discovery keeps
#: the first capture of every URL) has its nearest ones among them.
CDX_ROWS = 50

def other_captures_query(archive_url: str, original: str, first: date, last: date) -> str:
    """The CDX address listing the distinct successful HTML captures of ``original`` from ``first`` to ``last``."""
    root = archive_url if archive_url.endswith("/") else archive_url + "/"
    query = CdxQuery(original, first, last, collapse="digest", page_size=CDX_ROWS)
    return f"{root}cdx/search/cdx?{urlencode(query.params())}"


def listed_timestamps(body: bytes, source: str) -> list[str]:
    """The timestamps of the CDX JSON answer ``body`` (an empty answer lists none); raises
    :class:`~arastance.base.cdx.CdxAnswerError` for one that is not CDX rows."""
    try:
        payload = json.loads(body) if body.strip() else []
    except (ValueError, RecursionError):
        raise CdxAnswerError(f"{source}: the CDX answer is not JSON") from None
    return [capture.timestamp for capture in parse_cdx_json(payload, source).captures]


def nearest_others(timestamps: list[str], listed: str, tried: set[str], first: date, last: date) -> list[str]:
    """Up to :data:`MAX_OTHER_CAPTURES` of ``timestamps`` taken from ``first`` to ``last`` (a server may
    ignore ``from``/``to``) and not in ``tried``, nearest the ``listed`` capture first."""
    moment = capture_time(listed)
    inside = {ts for ts in timestamps if ts not in tried and first <= capture_time(ts).date() <= last}
    return sorted(inside, key=lambda ts: (abs(capture_time(ts) - moment), ts))[:MAX_OTHER_CAPTURES]
