"""The two kinds of item a site spider yields; their fields are the staging contract's."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Literal

from spiders.extraction import DetailFields
from warehouse import content_hash, stable_id


@dataclass
class PageItem:
    """One fetched (or failed) page: provenance for ``pages.jsonl`` plus the raw body to keep.

    ``body`` is written gzip'd next to ``pages.jsonl`` (``html_file``) when ``keep_body`` is set,
    so that a page that failed to parse can be re-parsed later without re-crawling.
    """

    run_id: str
    page_id: str
    url: str
    source_id: str
    fetched_at: str
    http_status: int | None
    content_hash: str
    parse_status: Literal["ok", "failed", "skipped"]
    parse_error: str | None
    body: bytes
    keep_body: bool
    #: For a page read from a web archive: the page's own URL and when the archive captured it.
    original_url: str | None = None
    captured_at: str | None = None


@dataclass(frozen=True)
class ClaimItem(DetailFields):
    """One parsed detail page, exactly the fields of a ``claims.jsonl`` line: the page's fields
    plus where and when it was fetched."""

    run_id: str
    source_id: str
    veracity: Literal["false", "true"]
    page_id: str
    fetched_at: str


def page_id_of(url: str, body: bytes) -> tuple[str, str]:
    """``(page_id, content_hash)``: a raw page's natural key is its URL and its content."""
    digest = content_hash(body)
    return stable_id(url, digest), digest


def page_item(
    *,
    run_id: str,
    source_id: str,
    url: str,
    body: bytes,
    http_status: int | None,
    fetched_at: datetime,
    parse_status: Literal["ok", "failed", "skipped"],
    parse_error: str | None = None,
    keep_body: bool = True,
    original_url: str | None = None,
    captured_at: datetime | None = None,
) -> PageItem:
    page_id, digest = page_id_of(url, body)
    return PageItem(
        run_id=run_id, page_id=page_id, url=url, source_id=source_id,
        fetched_at=fetched_at.isoformat(timespec="seconds"), http_status=http_status, content_hash=digest,
        parse_status=parse_status, parse_error=parse_error, body=body, keep_body=keep_body,
        original_url=original_url,
        captured_at=None if captured_at is None else captured_at.isoformat(timespec="seconds"),
    )


def claim_item(fields: DetailFields, *, page: PageItem, veracity: Literal["false", "true"]) -> ClaimItem:
    """The claim parsed from ``page``."""
    parsed = {f.name: getattr(fields, f.name) for f in dataclass_fields(DetailFields)}
    return ClaimItem(**parsed, run_id=page.run_id, source_id=page.source_id, veracity=veracity,
                     page_id=page.page_id, fetched_at=page.fetched_at)
