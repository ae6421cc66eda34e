"""The Internet Archive as a source of pages: CDX discovery, ``id_`` captures, closest capture.

Used by the archive mode of the site crawls (:mod:`tasks.crawl_runner`), by ``arastance sites
check --archive`` and by the article fetcher's dead-link fallback. Capture addresses are built
and parsed in the base layer (:mod:`arastance.base.captures`), which the spiders use too.
"""

from arastance.base.captures import Capture, capture_url, parse_capture_url, to_site_url
from arastance.base.cdx import CdxQuery
from tasks.web_archive.client import ArchiveError, WaybackClient

__all__ = [
    "ArchiveError", "Capture", "CdxQuery", "WaybackClient", "capture_url", "parse_capture_url", "to_site_url",
]
