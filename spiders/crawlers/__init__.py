"""One spider per site, all instances of the generic :class:`spiders.crawlers.base.SiteSpider`."""
