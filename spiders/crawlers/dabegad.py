"""Dabegad (Egypt): false claims debunked by the Egyptian fact-checking site."""

from spiders.crawlers.base import SiteSpider


class DabegadSpider(SiteSpider):
    name = "dabegad"
