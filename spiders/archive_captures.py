"""Other captures of a page that an archive crawl may read when the archive replays the listed one
as a capture from another year, or of another page.

The Wayback Machine answers a capture it cannot serve with a redirect to another capture of the
URL, however far away; the page's claim is then still within reach through another capture taken
within the crawl's days. The spider asks the CDX API for them (one exact URL, the crawl's days,
``statuscode:200`` HTML captures with ``collapse=digest``, as :mod:`tasks.web_archive` forms its
queries: a capture with the same content as one before it is a revisit of the same stored bytes,
which the archive could not serve either) and reads them nearest the listed one first. The spider
may not import the tasks layer, so the query is formed here, for this one use.
"""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import urlencode

from arastance.base.captures import capture_time, valid_timestamp

#: Other captures of a page asked for in turn after the listed one was replayed as another's: each
#: costs a request (and perhaps a redirect) at the archive's polite pace.
MAX_OTHER_CAPTURES = 3
#: Rows the CDX lookup asks for: a page's distinct captures within the days are rarely more, and the
#: server lists them in time order, so a listed capture that is the first of the days (discovery keeps
#: the first capture of every URL) has its nearest ones among them.
CDX_ROWS = 50


class CdxAnswerError(ValueError):
    """A CDX answer that is not the JSON rows the lookup asked for."""


def other_captures_query(archive_url: str, original: str, first: date, last: date) -> str:
    """The CDX address listing the distinct successful HTML captures of ``original`` from ``first`` to ``last``."""
    root = archive_url if archive_url.endswith("/") else archive_url + "/"
    params = [("url", original), ("from", first.strftime("%Y%m%d")), ("to", last.strftime("%Y%m%d")),
              ("output", "json"), ("fl", "timestamp,original"), ("filter", "statuscode:200"),
              ("filter", "mimetype:text/html"), ("collapse", "digest"), ("limit", str(CDX_ROWS))]
    return f"{root}cdx/search/cdx?{urlencode(params)}"


def listed_timestamps(body: bytes, source: str) -> list[str]:
    """The timestamps of the CDX JSON answer ``body`` (a header row naming ``timestamp``, then rows;
    an empty answer lists none). Rows without a real moment are passed over."""
    try:
        payload = json.loads(body) if body.strip() else []
    except (ValueError, RecursionError):
        raise CdxAnswerError(f"{source}: the CDX answer is not JSON") from None
    if not payload:
        return []
    rows_ok = isinstance(payload, list) and all(isinstance(row, list) for row in payload)
    if not rows_ok or "timestamp" not in payload[0]:
        raise CdxAnswerError(f"{source}: the CDX answer is not rows under a header naming timestamp")
    column = payload[0].index("timestamp")
    return [str(row[column]) for row in payload[1:] if len(row) > column and valid_timestamp(row[column])]


def nearest_others(timestamps: list[str], listed: str, tried: set[str], first: date, last: date) -> list[str]:
    """Up to :data:`MAX_OTHER_CAPTURES` of ``timestamps`` taken from ``first`` to ``last`` (a server may
    ignore ``from``/``to``) and not in ``tried``, nearest the ``listed`` capture first."""
    moment = capture_time(listed)
    inside = {ts for ts in timestamps if ts not in tried and first <= capture_time(ts).date() <= last}
    return sorted(inside, key=lambda ts: (abs(capture_time(ts) - moment), ts))[:MAX_OTHER_CAPTURES]
