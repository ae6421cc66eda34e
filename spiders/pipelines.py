"""Item pipelines only persist: the staging pipeline writes each crawl run's directory.

Claims arrive as items; raw pages with the spider's ``page_fetched`` signal (their bytes stay
out of the item feed). The run's directory is made when the first of them arrives, so a spider
that only opens (``scrapy shell --spider``) or that is not a site spider (``scrapy shell URL``)
leaves no half-made staging run; a finished crawl that found nothing still gets its run.json.

A run that lost a write can never be finished (a claim would point at a page that was not kept),
and a crawl resumed from it would not fetch the lost pages again (Scrapy counts them as seen). So
the first lost write stops the crawl (a full disk through :mod:`spiders.disk_full`, which also
watches the resumable request queue; any other error here) and the run is removed, so that the
next crawl takes every page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from arastance.base.disk_full import full_disk_error
from arastance.base.staging import DISK_FULL_REASON, LOST_WRITE_LOG, LOST_WRITE_REASON, ClaimItem, PageItem
from arastance.logging import get_logger
from spiders.items import page_fetched
from spiders.staging import StagingRun

log = get_logger(__name__)

#: Scrapy stats that count requests the spider chose not to make, reported as drop reasons.
DROP_STATS = {
    "robotstxt/forbidden": "robots_disallowed",
    "arastance/known_skipped": "already_known",
    "offsite/filtered": "offsite",
}


class StagingPipeline:
    """Writes ``<ARASTANCE_STAGING_DIR>/<run_id>/`` in the staging contract's format."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.run: StagingRun | None = None
        self.stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "StagingPipeline":
        pipeline = cls(crawler)
        crawler.signals.connect(pipeline.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(pipeline.page_fetched, signal=page_fetched)
        return pipeline

    def _open_run(self) -> StagingRun:
        if self.run is None:
            spider = self.crawler.spider
            run_id = getattr(spider, "run_id", None)
            if run_id is None:
                raise TypeError(f"StagingPipeline keeps the runs of site spiders; {type(spider).__name__} has no run_id")
            staging = Path(self.crawler.settings["ARASTANCE_STAGING_DIR"])
            self.run = StagingRun(staging / run_id, run_id, spider.name)  # kept even if it cannot open: abandoned
            self.run.open()
            log.info("staging run opened", extra={"run_id": run_id, "dir": str(self.run.run_dir)})
        return self.run

    def _stop_after_a_lost_write(self, error: OSError) -> None:
        """Close the spider on the first lost write that is not a full disk (that one is
        :mod:`spiders.disk_full`'s); called on the reactor."""
        if self.stopping or full_disk_error(error) is not None or self.crawler.engine is None:
            return
        self.stopping = True
        log.error(f"{LOST_WRITE_LOG}: stopping the crawl and removing its partial run",
                  extra={"error": str(error), "path": getattr(error, "filename", None)})
        closing = deferred_from_coro(self.crawler.engine.close_spider_async(reason=LOST_WRITE_REASON))
        closing.addErrback(lambda failure: log.warning("stop failed", extra={"error": str(failure.value)}))

    def page_fetched(self, page: PageItem) -> None:
        """Keep a page (gzip'd body beside ``pages.jsonl``); a signal handler runs on the reactor,
        and compressing one page takes about a millisecond."""
        try:
            self._open_run().write_page(page)
        except OSError as exc:
            self._stop_after_a_lost_write(exc)
            raise

    async def process_item(self, item: Any) -> Any:
        """Write in Twisted's thread pool, off the reactor."""
        if not isinstance(item, ClaimItem):
            raise TypeError(f"StagingPipeline got an unexpected item type {type(item).__name__}")
        run = self._open_run()
        try:
            await maybe_deferred_to_future(deferToThread(run.write_claim, item))
        except OSError as exc:
            self._stop_after_a_lost_write(exc)
            raise
        return item

    def close_spider(self) -> None:
        # Files close here; run.json is written on spider_closed, when the finish reason is known.
        if self.run is not None:
            self.run.close()

    def spider_closed(self, reason: str) -> None:
        if self.run is None:
            if reason != "finished" or getattr(self.crawler.spider, "run_id", None) is None:
                return
            self._open_run()  # a crawl that fetched nothing: an empty, finished run says so
        if reason in (DISK_FULL_REASON, LOST_WRITE_REASON) or self.run.write_error is not None:
            self.run.abandon()
            log.error("staging run removed: " + ("the disk filled up during the crawl" if reason == DISK_FULL_REASON
                                                 else f"a write failed ({self.run.write_error})"),
                      extra={"run_id": self.run.run_id})
            return
        if reason == "shutdown":
            # Interrupted (Ctrl-C, SIGTERM): leave the run unfinished so that resuming the crawl
            # (same JOBDIR and run id) appends to it; the loader only reads finished runs.
            log.warning("crawl interrupted; staging run left open for resume",
                        extra={"run_id": self.run.run_id, "finish_reason": reason})
            return
        stats = self.crawler.stats.get_stats() if self.crawler.stats else {}
        dropped = {name: int(stats.get(stat, 0)) for stat, name in DROP_STATS.items()}
        assert self.run is not None
        # An archive crawl: what discovery left out before the spider started (see tasks.crawl_runner).
        discovery = json.loads(self.crawler.settings.get("ARASTANCE_ARCHIVE_DISCOVERY") or "{}")
        for dropped_by_discovery in ("archive_not_claim_url", "archive_duplicate_spelling"):
            dropped[dropped_by_discovery] = int(discovery.get(dropped_by_discovery, 0))
        stats = {**stats, **{f"arastance/{k}": v for k, v in discovery.items()}}
        summary = self.run.finish(stats=stats, dropped=dropped)
        log.info("staging run finished", extra={"run_id": summary.run_id, "dir": str(self.run.run_dir),
                                                "pages": summary.pages, "items": summary.items,
                                                "errors": summary.errors, "finish_reason": reason})
