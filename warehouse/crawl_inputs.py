"""What the crawl stage reads from the warehouse: known claim URLs and stored raw pages.

The crawl never writes here (the loader does); it reads the canonical URLs it already has, so
that an incremental crawl fetches only new posts, and the raw HTML of detail pages, so that
``arastance reparse`` can re-run extraction without re-crawling.
"""

from __future__ import annotations

from collections.abc import Iterator

from arastance.base.staging import StoredPage
from warehouse.connection import Warehouse
from warehouse.sql import load_sql

KNOWN_CANONICAL_URLS = """
SELECT canonical_url FROM claims WHERE source_id = ? ORDER BY canonical_url
"""

RAW_DETAIL_PAGES = load_sql("crawl_raw_detail_pages")

COUNT_RAW_DETAIL_PAGES = f"SELECT count(*) FROM ({RAW_DETAIL_PAGES})"


def known_canonical_urls(wh: Warehouse, source_id: str) -> list[str]:
    """Canonical URLs of every claim already stored for ``source_id``."""
    return [row["canonical_url"] for row in wh.query(KNOWN_CANONICAL_URLS, [source_id])]


def count_detail_pages(wh: Warehouse, source_id: str) -> int:
    return int(wh.scalar(COUNT_RAW_DETAIL_PAGES, [source_id]))


def iter_detail_pages(wh: Warehouse, source_id: str, batch_size: int = 200) -> Iterator[StoredPage]:
    """The newest raw copy of each detail page of ``source_id``, fetched in batches."""
    for row in wh.iter_rows(RAW_DETAIL_PAGES, [source_id], batch_size):
        yield StoredPage(**row)
