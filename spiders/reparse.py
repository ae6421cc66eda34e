"""Re-run extraction over stored raw HTML, without re-crawling, into a new staging run.

When a site's selectors were wrong (or a page failed to parse), fixing its
``arastance/base/site_configs/<site>.toml`` and re-parsing the raw pages the warehouse kept gives corrected
claims; the loader ingests the new staging run like any other.

A capture stored before the archive crawl refused the Wayback Machine's replays of other captures
(:meth:`spiders.crawlers.base.SiteSpider._replayed_elsewhere`) is failed here as the crawl fails it now
when it shows one: taken outside the crawl's days, with a claim naming another page than its own.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from arastance.base.captures import to_site_url
from arastance.base.page_text import page_text
from arastance.base.sites import load_site_config
from arastance.base.staging import RunSummary, StoredPage, new_run_id
from arastance.logging import get_logger
from arastance.progress import track
from spiders.crawlers.base import archive_days
from spiders.extraction import extract_detail, parse_failure
from spiders.items import claim_item, page_item
from spiders.site_urls import SiteUrls
from spiders.staging import StagingRun

log = get_logger(__name__)


def _utc(moment: datetime) -> datetime:
    """The warehouse keeps naive UTC timestamps; relative dates need aware ones."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def replayed_capture(stored: StoredPage, claim_url: str, own_url: str, days: tuple[date, date]) -> str | None:
    """Why the stored capture ``stored``, whose claim is keyed ``claim_url``, is not read as the page
    ``own_url``, or None when it is.

    Before the crawl refused them, a listed capture that the archive replayed as one taken years
    later was stored as the page; under the same address it may hold another post, whose claim it then
    gave a second time. The capture it was listed as is not stored, so only a capture taken outside
    the crawl's ``days`` whose claim names another page is known for a replay: a later capture of the
    page itself may be the one discovery listed (the page a redirect captured within the days leads
    to), and is read as before."""
    if stored.captured_at is None or claim_url == own_url:
        return None
    first, last = days
    if first <= stored.captured_at.date() <= last:
        return None
    return (f"capture_outside_window: {stored.url}, captured on {stored.captured_at:%Y-%m-%d}, outside the "
            f"crawl's {first}..{last}, gives the claim of {claim_url}: a replay of another capture in place "
            "of the listed one, stored before the crawl refused them")


def reparse_pages(
    pages: Iterable[StoredPage], site: str, base_url: str, staging_dir: Path, *, total: int | None = None
) -> tuple[RunSummary, Path]:
    """Extract every page again with the current configuration of ``site``; return the new run. A stored
    replay from outside the days archive crawls read (:func:`archive_days`) is failed (:func:`replayed_capture`)."""
    days = archive_days()
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
                replay = replayed_capture(stored, fields.url, urls.canonical(page_url), days)
                if replay is None:
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
            if replay is not None:
                failed += 1
                _replay_failed(run, common, replay, site)
                continue
            run.write_page(page)
            parsed += 1
        summary = run.finish(stats={"reparse/pages": parsed + failed, "reparse/parsed": parsed, "reparse/failed": failed})
    log.info("reparse finished", extra={"site": site, "run_id": run_id, "parsed": parsed, "failed": failed})
    return summary, run_dir


def _replay_failed(run: StagingRun, common: dict[str, Any], problem: str, site: str) -> None:
    """A stored replay's failed page, without its body: as the crawl records one (a later capture
    index or re-parse must not read the other post's page as this one)."""
    log.warning("stored capture is a replay of another capture", extra={"site": site, "url": common["url"],
                                                                         "reason": "capture_outside_window"})
    run.write_page(page_item(**common, parse_status="failed", parse_error=problem, keep_body=False))
