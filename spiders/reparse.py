"""Re-run extraction over stored raw HTML, without re-crawling, into a new staging run.

When a site's selectors were wrong (or a page failed to parse), fixing its
``arastance/base/site_configs/<site>.toml`` and re-parsing the raw pages the warehouse kept gives corrected
claims; the loader ingests the new staging run like any other.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from arastance.base.captures import to_site_url
from arastance.base.page_text import page_text
from arastance.base.sites import load_site_config
from arastance.base.staging import RunSummary, StoredPage, new_run_id
from arastance.logging import get_logger
from arastance.progress import track
from spiders.extraction import extract_detail, parse_failure
from spiders.items import claim_item, page_item
from spiders.site_urls import SiteUrls
from spiders.staging import StagingRun

log = get_logger(__name__)


def _utc(moment: datetime) -> datetime:
    """The warehouse keeps naive UTC timestamps; relative dates need aware ones."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def reparse_pages(
    pages: Iterable[StoredPage], site: str, base_url: str, staging_dir: Path, *, total: int | None = None
) -> tuple[RunSummary, Path]:
    """Extract every page again with the current configuration of ``site``; return the new run."""
    config = load_site_config(site)
    urls = SiteUrls(base_url if base_url.endswith("/") else base_url + "/", config.canonical_base)
    run_id = new_run_id(site)
    run_dir = Path(staging_dir) / run_id
    parsed = failed = 0
    with StagingRun(run_dir, run_id, site) as run:
        for stored in track(pages, f"reparse {site}", total=total, unit="pages"):
            body = zlib.decompress(stored.html_zlib)
            fetched_at = _utc(stored.fetched_at)
            captured_at = _utc(stored.captured_at) if stored.captured_at else None
            common = dict(run_id=run_id, source_id=site, url=stored.url, body=body,
                          http_status=stored.http_status, fetched_at=fetched_at,
                          original_url=stored.original_url, captured_at=captured_at)
            # An archived page is read as the crawl's archive mode read it (parse_capture): at its
            # original address on the real site, its relative dates counted from the capture.
            page_url = to_site_url(stored.original_url, config.canonical_base) if stored.original_url else stored.url
            # The raw page keeps no Content-Type: its bytes (and <meta>) settle the charset, as
            # page_text settles a header that the live crawl had (parse_detail) against them.
            text, _ = page_text(body, None)
            page = page_item(**common, parse_status="ok")
            try:
                fields = extract_detail(text, page_url, config, urls, fetched_at=captured_at or fetched_at)
                # Before the page's line: a claim that cannot be written makes the page failed, not ok without a claim.
                run.write_claim(claim_item(fields, page=page, veracity=config.veracity))
            except OSError:
                raise  # a lost write: the run takes no more (StagingRun), so no page after it either
            except Exception as exc:  # noqa: BLE001 - one bad page never stops the others
                error = parse_failure(exc)
                failed += 1
                log.warning("stored page failed to parse", extra={"site": site, "url": stored.url, "reason": error})
                run.write_page(page_item(**common, parse_status="failed", parse_error=error))
                continue
            run.write_page(page)
            parsed += 1
        summary = run.finish(stats={"reparse/pages": parsed + failed, "reparse/parsed": parsed, "reparse/failed": failed})
    log.info("reparse finished", extra={"site": site, "run_id": run_id, "parsed": parsed, "failed": failed})
    return summary, run_dir
