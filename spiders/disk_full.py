"""A Scrapy extension: a crawl whose disk fills up stops at once, saying so, instead of going on.

Scrapy logs and swallows an exception raised in a signal handler, an item pipeline or its own
disk queue. On a full disk that let a crawl run to a "finished" end after its staging files lost
pages, and a crawl whose resumable request queue (``JOBDIR``) could no longer be read sat idle
until its one-hour timeout. Every record Scrapy logs is therefore looked at: one carrying an
error for a full disk or quota (:func:`arastance.base.disk_full.full_disk_error`) closes the spider with the reason
``disk_full``; its staging run is then removed (:meth:`spiders.staging.StagingRun.abandon`), and
the launcher reports the failed crawl with this extension's error line in its log tail.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.utils.defer import deferred_from_coro

from arastance.base.disk_full import full_disk_error
from arastance.base.staging import DISK_FULL_LOG, DISK_FULL_REASON
from arastance.logging import get_logger

log = get_logger(__name__)

class DiskFull(logging.Handler):
    """Enabled in ``EXTENSIONS``: a log handler on the root logger for the crawl's lifetime."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(level=logging.ERROR)
        self.crawler = crawler
        self.stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "DiskFull":
        extension = cls(crawler)
        logging.getLogger().addHandler(extension)
        crawler.signals.connect(extension.engine_stopped, signal=signals.engine_stopped)
        return extension

    def emit(self, record: logging.LogRecord) -> None:
        found = full_disk_error(record.exc_info[1] if record.exc_info else None)
        if found is None or self.stopping:
            return
        self.stopping = True
        from twisted.internet import reactor  # the one Scrapy installed (imported here, never before it)

        reactor.callFromThread(self._stop, found[0])  # type: ignore[attr-defined]  # records come from threads too

    def _stop(self, error: BaseException) -> None:
        log.error(f"{DISK_FULL_LOG} and removing its partial staging run; free space and crawl again",
                  extra={"error": str(error), "path": getattr(error, "filename", None)})
        if self.crawler.engine is not None:
            closing = deferred_from_coro(self.crawler.engine.close_spider_async(reason=DISK_FULL_REASON))
            closing.addErrback(lambda failure: log.warning("stop failed", extra={"error": str(failure.value)}))

    def engine_stopped(self) -> None:
        logging.getLogger().removeHandler(self)
