"""Other captures of a page that an archive crawl may read when the archive replays the listed one
as a capture from another year, or of another page.

The Wayback Machine answers a capture it cannot serve with a redirect to another capture of the
URL, however far away; the page's claim is then still within reach through another capture taken
within the crawl's days. The spider asks the CDX API for them (one exact URL, the crawl's days,
``statuscode:200`` HTML captures with ``collapse=digest``: a capture with the same content as one
before it is a revisit of the same stored bytes, which the archive could not serve either), with
the query and answer of :mod:`arastance.base.cdx` that the archive client lists sites with, and
reads them nearest the listed one first.

The lookup asks for :data:`CDX_ROWS` rows a page. Its first page holds the nearest others when the
listed capture is the first of the days, but not when the server lists other years' captures first
(it ignored ``from``/``to``) or the listed capture is a later one (the captures were listed from a
discovery cache before the archive indexed earlier ones) of a page captured more often than a page
holds: the lookup then follows the resume key until no later row can be nearer the listed capture
than those found (:func:`lookup_settled`), at most :data:`MAX_LOOKUP_PAGES` pages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode

from arastance.base.captures import capture_time
from arastance.base.cdx import CdxAnswerError, CdxQuery, parse_cdx_json

#: Other captures of a page asked for in turn after the listed one was replayed as another's: each
#: costs a request (and perhaps a redirect) at the archive's polite pace.
MAX_OTHER_CAPTURES = 3
#: Rows of one page of the CDX lookup: a page's distinct captures within the days are rarely more, and
#: the server lists them in time order, so a listed capture that is the first of the days (discovery
#: keeps the first capture of every URL) has its nearest ones on the first page.
CDX_ROWS = 50
#: Pages of one lookup read at most: a page captured more than :data:`CDX_ROWS` times, or a server that
#: ignores ``from``/``to`` and lists the captures of other years first, needs the next ones, but an
#: archive that hands out resume keys for ever would otherwise hold the crawl at its polite pace for ever.
MAX_LOOKUP_PAGES = 20


@dataclass(frozen=True)
class LookupPage:
    """One page of the lookup: its captures' timestamps, in the server's order, and the key of the next
    page (None on the last one)."""

    timestamps: list[str]
    resume_key: str | None


def other_captures_query(archive_url: str, original: str, first: date, last: date,
                         resume_key: str | None = None) -> str:
    """The CDX address listing the distinct successful HTML captures of ``original`` from ``first`` to
    ``last``, from the page ``resume_key`` names (the first without it)."""
    root = archive_url if archive_url.endswith("/") else archive_url + "/"
    query = CdxQuery(original, first, last, collapse="digest", page_size=CDX_ROWS)
    return f"{root}cdx/search/cdx?{urlencode(query.params(resume_key))}"


def read_lookup_page(body: bytes, source: str) -> LookupPage:
    """The CDX JSON answer ``body`` (an empty answer lists none); raises
    :class:`~arastance.base.cdx.CdxAnswerError` for one that is not CDX rows."""
    try:
        payload = json.loads(body) if body.strip() else []
    except (ValueError, RecursionError):
        raise CdxAnswerError(f"{source}: the CDX answer is not JSON") from None
    page = parse_cdx_json(payload, source)
    return LookupPage([capture.timestamp for capture in page.captures], page.resume_key)


def nearest_others(timestamps: list[str], listed: str, tried: set[str], first: date, last: date) -> list[str]:
    """Up to :data:`MAX_OTHER_CAPTURES` of ``timestamps`` taken from ``first`` to ``last`` (a server may
    ignore ``from``/``to``) and not in ``tried``, nearest the ``listed`` capture first."""
    moment = capture_time(listed)
    inside = {ts for ts in timestamps if ts not in tried and first <= capture_time(ts).date() <= last}
    return sorted(inside, key=lambda ts: (abs(capture_time(ts) - moment), ts))[:MAX_OTHER_CAPTURES]


def lookup_settled(found: list[str], listed: str, read_to: str, last: date) -> bool:
    """Whether the pages after one ending on the capture ``read_to`` cannot change ``found``, the nearest
    others of the ``listed`` capture so far (:func:`nearest_others`): the server lists one URL's captures
    in time order, so every later row was taken after ``last`` (the crawl's last day), or is at least as
    far from the listed capture as ``read_to`` once that is after it."""
    end = capture_time(read_to)
    if end.date() > last:
        return True
    moment = capture_time(listed)
    return len(found) == MAX_OTHER_CAPTURES and all(abs(capture_time(ts) - moment) <= end - moment for ts in found)
