"""What a site spider produces, built from a fetched page and its parsed fields.

The item classes are declared by the staging contract (:mod:`arastance.base.staging`), which the
loader reads with; this module only builds them. Claims are Scrapy items (``scrapy crawl <site>
-O claims.jsonl`` exports them). Raw pages are not: their bodies are bytes that no feed exporter
can write, and a feed of claims has no use for them. The spider sends each page with the
:data:`page_fetched` signal instead, and the staging pipeline, connected to it, keeps the page
and its body.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from datetime import datetime
from typing import Literal

from arastance.base.staging import ClaimItem, DetailFields, PageItem, page_id_of

#: Sent by a site spider for every page fetched or failed, with ``page`` (a :class:`PageItem`).
page_fetched = object()


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
