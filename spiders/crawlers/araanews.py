"""Araanews (UAE): false claims debunked by the Emirati rumour-checking site."""

from spiders.crawlers.base import SiteSpider


class AraanewsSpider(SiteSpider):
    name = "araanews"
    #: A post that `scrapy check` parses (a page of the offline snapshots; see spiders/contracts.py).
    contract_detail_path = "2012/03/earthquake-warning-1201/"
