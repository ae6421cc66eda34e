"""Dabegad (Egypt): false claims debunked by the Egyptian fact-checking site."""

from spiders.crawlers.base import SiteSpider


class DabegadSpider(SiteSpider):
    name = "dabegad"
    #: A post that `scrapy check` parses (a page of the offline snapshots; see spiders/contracts.py).
    contract_detail_path = "society/3401-child-kidnapping-gang/"
