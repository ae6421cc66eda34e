"""Araanews (UAE): false claims debunked by the Emirati rumour-checking site."""

from spiders.crawlers.base import SiteSpider


class AraanewsSpider(SiteSpider):
    name = "araanews"
