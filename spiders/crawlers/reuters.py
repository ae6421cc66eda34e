"""Reuters Arabic: news headlines, the candidate true claims."""

from spiders.crawlers.base import SiteSpider


class ReutersSpider(SiteSpider):
    name = "reuters"
    #: A post that `scrapy check` parses (a page of the offline snapshots; see spiders/contracts.py).
    contract_detail_path = "article/businessNews/idARAKBN1Q0FZH20120102"
