"""One spider class per registered site, derived from ``arastance/base/site_configs/*.toml``.

Scrapy finds spiders as classes in the modules of ``SPIDER_MODULES``; the classes are made
here, one per site file, so that ``scrapy crawl misbar`` works as soon as ``misbar.toml``
exists. Everything a class knows comes from its configuration.
"""

from __future__ import annotations

from arastance.base.sites import available_sites, load_site_config
from spiders.crawlers.base import SiteSpider


def _spider_class(site: str) -> type[SiteSpider]:
    config = load_site_config(site)
    name = "".join(part.capitalize() for part in site.split("_")) + "Spider"
    doc = f"{config.name} ({config.country or 'international'}): {config.kind} site, claims are {config.veracity}."
    return type(name, (SiteSpider,), {"name": site, "__module__": __name__, "__doc__": doc})


SPIDERS: dict[str, type[SiteSpider]] = {site: _spider_class(site) for site in available_sites()}
globals().update({cls.__name__: cls for cls in SPIDERS.values()})
