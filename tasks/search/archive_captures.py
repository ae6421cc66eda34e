"""The historical corpus from the web-archive captures the pipeline itself fetched.

The crawl's archive mode and the retrieval's dead-link fallback store every capture they read in
the warehouse (``raw_pages``: the capture's address, the page's original URL, the capture time
and the body). Those bodies are indexed without fetching anything again, through the same
extraction, filters and deduplication as WARC records (:mod:`tasks.search.warc`), so that both
inputs give the same corpus. The record's URL is the page's *original* URL (the page as it was
published: what a claim's documents cite), never the capture's address; its date is the
publication date the extractor reads from the page, never the capture time (which only anchors
its relative dates, "منذ يومين", as in the fetcher). A body is read in the charset its bytes are
in: the fetcher stores a windows-1256 page as UTF-8 with its ``<meta charset=windows-1256>`` left
in, so the meta tag alone would turn it into mojibake.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from arastance.logging import get_logger
from arastance.progress import track
from tasks.search.local import CorpusRecord
from tasks.search.warc import Extractor, WarcFilter, WarcStats, page_record
from warehouse.archive_captures import ArchiveCapture

log = get_logger(__name__)


def capture_pages(captures: Iterable[ArchiveCapture], flt: WarcFilter, *, extract: Extractor, stats: WarcStats,
                  total: int | None = None, show_progress: bool = False) -> Iterator[CorpusRecord]:
    """The records of the stored captures that pass the filter (not deduplicated), counted in ``stats``
    under the WARC path's outcomes (an error page is ``not_html_200``, as a WARC record would be)."""
    for capture in track(captures, "reading stored archive captures", total=total, unit="pages",
                         enabled=show_progress):
        stats.counts["records"] += 1
        if capture.http_status is not None and capture.http_status != 200:
            stats.counts["not_html_200"] += 1
            continue
        try:
            html = zlib.decompress(capture.html_zlib)
        except zlib.error as exc:
            log.warning("stored capture body is not zlib data", extra={"url": capture.capture_url, "error": str(exc)})
            stats.counts["unreadable_body"] += 1
            continue
        record = page_record(capture.original_url, html, flt, stats, extract, captured_at=capture.captured_at)
        if record is not None:
            yield record
