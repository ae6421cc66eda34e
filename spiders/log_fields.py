"""A Scrapy extension that shows the project's log fields in Scrapy's own log lines.

The project logs with ``extra=`` fields (``run_id``, ``url``, ``dir``...); Scrapy's root handler
formats only the message, so ``scrapy crawl`` printed "staging run opened" without saying which
run or where. This swaps that handler's formatter for one that appends the fields, keeping
Scrapy's ``LOG_FORMAT`` and ``LOG_DATEFORMAT``.
"""

from __future__ import annotations

import logging

from scrapy import signals
from scrapy.crawler import Crawler

from arastance.logging import KeyValueFormatter


class LogFields:
    """Enabled in ``EXTENSIONS``. Scrapy installs its root handler anew once the crawler's
    settings are final (after extensions are built), so the formatter is swapped again when the
    spider opens."""

    def __init__(self, crawler: Crawler) -> None:
        self.fmt = crawler.settings.get("LOG_FORMAT")
        self.datefmt = crawler.settings.get("LOG_DATEFORMAT")
        self.apply()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "LogFields":
        extension = cls(crawler)
        crawler.signals.connect(extension.apply, signal=signals.spider_opened)
        return extension

    def apply(self) -> None:
        for handler in logging.getLogger().handlers:
            current = handler.formatter
            if current is not None and not isinstance(current, KeyValueFormatter):
                handler.setFormatter(KeyValueFormatter(self.fmt, self.datefmt))
