"""Reuters Arabic: news headlines, the candidate true claims."""

from spiders.crawlers.base import SiteSpider


class ReutersSpider(SiteSpider):
    name = "reuters"
