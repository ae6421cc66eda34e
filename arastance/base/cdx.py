"""Queries of the Wayback Machine's CDX API and its JSON answers.

The archive client lists a site's captures with them, and an archive crawl asks for the other
captures of one page when the archive replayed the listed one as another's: both form the query
and read the answer here, so they ask for and read the same thing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from arastance.base.captures import Capture, valid_timestamp

#: CDX fields asked for, in this order (the JSON answer's header row names them too).
CDX_FIELDS = ("timestamp", "original", "statuscode", "mimetype", "digest")
#: The statuses of the captures that were redirects (304 Not Modified is none).
REDIRECT_STATUSES = "30[12378]"
REDIRECT_FILTER = f"statuscode:{REDIRECT_STATUSES}"


class CdxAnswerError(ValueError):
    """A CDX answer that is not the JSON rows asked for; the message names its source."""


@dataclass(frozen=True)
class CdxQuery:
    """Captures of ``url`` (``host/*`` for a whole site) between two days, one row per URL.

    ``collapse="urlkey"`` keeps the first capture of every URL in the window; ``"digest"`` keeps
    one per distinct content. Only successful HTML captures are listed by default.
    """

    url: str
    from_date: date
    to_date: date
    collapse: str | None = "urlkey"
    filters: tuple[str, ...] = ("statuscode:200", "mimetype:text/html")
    page_size: int = 1000

    def params(self, resume_key: str | None = None) -> list[tuple[str, str]]:
        params = [("url", self.url), ("from", self.from_date.strftime("%Y%m%d")),
                  ("to", self.to_date.strftime("%Y%m%d")), ("output", "json"), ("fl", ",".join(CDX_FIELDS))]
        params += [("filter", f) for f in self.filters]
        if self.collapse:
            params.append(("collapse", self.collapse))
        params += [("limit", str(self.page_size)), ("showResumeKey", "true")]
        if resume_key:
            params.append(("resumeKey", resume_key))
        return params

    def redirects(self) -> "CdxQuery":
        """The same URLs and days, listing the captures that were redirects, one per URL."""
        return replace(self, filters=(REDIRECT_FILTER,))

    def cache_key(self, endpoint: str) -> str:
        """Stable across runs: the CDX ``endpoint`` asked and the query without the resume key. Two
        archives (the real one and the offline emulator, or another ``crawl.archive_url``) answer the
        same query differently, and one's cached pages must not answer for the other."""
        key = json.dumps([endpoint, self.params()], ensure_ascii=False)
        return hashlib.sha256(key.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CdxPage:
    """One page of CDX rows and the key of the next page (None on the last one)."""

    captures: list[Capture]
    resume_key: str | None
    skipped: list[str] = field(default_factory=list)  # rows with no real timestamp and original URL, as read


def parse_cdx_json(payload: Any, source: str) -> CdxPage:
    """CDX JSON: a header row, data rows, then (when paged) ``[]`` and ``[resumeKey]``; a row with no real
    timestamp and original URL is passed over (``skipped``), one that does not match the header refused."""
    if payload in ([], None):
        return CdxPage([], None)
    if not isinstance(payload, list) or not all(isinstance(r, list) for r in payload):
        raise CdxAnswerError(f"{source}: CDX answer is not a JSON list of rows")
    header, rows = payload[0], payload[1:]
    missing = [f for f in ("timestamp", "original") if f not in header]
    if missing:
        raise CdxAnswerError(f"{source}: CDX header row {header!r} lacks {missing}")
    resume_key = None
    if len(rows) >= 2 and rows[-2] == [] and len(rows[-1]) == 1:
        resume_key, rows = str(rows[-1][0]), rows[:-2]
    captures, skipped = [], []
    for row in rows:
        if len(row) != len(header):
            raise CdxAnswerError(f"{source}: CDX row {row!r} does not match header {header!r}")
        record = dict(zip(header, row))
        if not (isinstance(record["original"], str) and valid_timestamp(record["timestamp"])):
            skipped.append(repr(row))
            continue
        captures.append(Capture(timestamp=record["timestamp"], original=record["original"],
                                statuscode=record.get("statuscode", "200"), mimetype=record.get("mimetype", ""),
                                digest=record.get("digest", "")))
    return CdxPage(captures, resume_key, skipped)
