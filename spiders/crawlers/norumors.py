"""Norumors (Saudi Arabia): false claims debunked by the Saudi anti-rumours site; Hijri dates."""

from spiders.crawlers.base import SiteSpider


class NorumorsSpider(SiteSpider):
    name = "norumors"
