"""Web-archive captures stored in ``raw_pages``, read back for the historical search index.

The crawl's archive mode and the retrieval's dead-link fallback store each capture's body with
its capture address (``url``), the page's original URL and the capture time. The index is built
from those bodies without fetching anything again; rows are streamed in batches, so that a large
warehouse is never held in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from warehouse.connection import Warehouse
from warehouse.sql import load_sql

ARCHIVE_CAPTURES = load_sql("archive_captures")

COUNT_ARCHIVE_CAPTURES = f"SELECT count(*) FROM ({ARCHIVE_CAPTURES})"


@dataclass(frozen=True)
class ArchiveCapture:
    """One stored capture: where the archive served it, the page it copies, and its zlib'd body."""

    capture_url: str
    original_url: str
    captured_at: datetime | None
    http_status: int | None
    html_zlib: bytes


def count_archive_captures(wh: Warehouse) -> int:
    return int(wh.scalar(COUNT_ARCHIVE_CAPTURES))


def iter_archive_captures(wh: Warehouse, batch_size: int = 200) -> Iterator[ArchiveCapture]:
    """Every stored capture with a body, earliest capture first, fetched in batches."""
    for row in wh.iter_rows(ARCHIVE_CAPTURES, batch_size=batch_size):
        yield ArchiveCapture(**row)
