"""Norumors (Saudi Arabia): false claims debunked by the Saudi anti-rumours site; Hijri dates."""

from spiders.crawlers.base import SiteSpider


class NorumorsSpider(SiteSpider):
    name = "norumors"
    #: A post that `scrapy check` parses (a page of the offline snapshots; see spiders/contracts.py).
    contract_detail_path = "rumors/561/"
