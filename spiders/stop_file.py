"""A Scrapy extension: a crawl started by the pipeline stops gracefully when its launcher asks.

The launcher (:mod:`tasks.scrapy_launcher`) asks by creating a file (``ARASTANCE_STOP_FILE``)
rather than by sending a signal. Scrapy takes a second signal as "force an unclean shutdown",
which loses a resumable crawl's saved queue (the resumed crawl then fetches pages twice), and a
child may well have had a first one already: systemd stops every process of a service, and a
terminal's Ctrl-C reaches its whole process group. A graceful stop asked for twice, by a file and
by a signal, is one stop.
"""

from __future__ import annotations

from pathlib import Path

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import AsyncioLoopingCall, create_looping_call
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall

from arastance.logging import get_logger

log = get_logger(__name__)

#: How often the crawl looks for the file (a stop waits at most this long to begin).
POLL_S = 0.5


class StopFile:
    """Enabled in ``EXTENSIONS``; active when ``ARASTANCE_STOP_FILE`` names a file."""

    def __init__(self, crawler: Crawler, path: Path) -> None:
        self.crawler = crawler
        self.path = path
        self.task: AsyncioLoopingCall | LoopingCall | None = None
        self.closing: Deferred[None] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "StopFile":
        path = crawler.settings.get("ARASTANCE_STOP_FILE")
        if not path:
            raise NotConfigured
        extension = cls(crawler, Path(path))
        crawler.signals.connect(extension.engine_started, signal=signals.engine_started)
        crawler.signals.connect(extension.engine_stopped, signal=signals.engine_stopped)
        return extension

    def engine_started(self) -> None:
        self.task = create_looping_call(self.check)
        self.task.start(POLL_S)

    def check(self) -> None:
        if not self.path.exists():
            return
        self.engine_stopped()
        log.warning("stop asked by the launcher: stopping gracefully", extra={"stop_file": str(self.path)})
        # As Scrapy's CloseSpider extension closes a spider: the crawl then ends as after its last page
        # (Crawler.stop_async() raced a spider finishing on its own, and the process never exited).
        assert self.crawler.engine is not None
        self.closing = deferred_from_coro(self.crawler.engine.close_spider_async(reason="shutdown"))
        self.closing.addErrback(lambda failure: log.error("stop failed", extra={"error": str(failure.value)}))

    def engine_stopped(self) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
