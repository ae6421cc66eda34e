"""The Scrapy project: spiders only parse, item pipelines only persist (to staging files)."""
