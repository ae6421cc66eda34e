"""Scrapy settings of the AraStance spiders, derived from the project's typed settings.

Politeness (User-Agent, robots.txt, AutoThrottle, delays, per-domain concurrency), retries and
time-outs come from ``settings.crawl``; site base URLs from ``settings.sites``. Anything here can
still be overridden per run with ``scrapy crawl <site> -s NAME=value``.
"""

from arastance.base.sites import available_sites, site_base_url
from arastance.config import load_settings
from arastance.processes import die_with_parent

die_with_parent()  # a crawl process started by the pipeline ends with it (no orphaned spiders)
_settings = load_settings()
_crawl = _settings.crawl

BOT_NAME = "arastance"
SPIDER_MODULES = ["spiders.crawlers"]
NEWSPIDER_MODULE = "spiders.crawlers"

USER_AGENT = _crawl.user_agent
ROBOTSTXT_OBEY = _crawl.obey_robots_txt
CONCURRENT_REQUESTS = max(16, _crawl.concurrent_requests_per_domain)
CONCURRENT_REQUESTS_PER_DOMAIN = _crawl.concurrent_requests_per_domain
DOWNLOAD_DELAY = _crawl.download_delay_s
DOWNLOAD_TIMEOUT = _crawl.download_timeout_s
AUTOTHROTTLE_ENABLED = _crawl.autothrottle
AUTOTHROTTLE_START_DELAY = max(_crawl.download_delay_s, 0.5)
AUTOTHROTTLE_MAX_DELAY = 30.0
# Aim at half the allowed parallelism per site: polite, and AutoThrottle backs off further on slow answers.
AUTOTHROTTLE_TARGET_CONCURRENCY = max(1.0, _crawl.concurrent_requests_per_domain / 2)
CLOSESPIDER_PAGECOUNT = _crawl.max_pages
DOWNLOAD_MAXSIZE = int(_crawl.max_page_mb * 2**20)
DOWNLOAD_WARNSIZE = DOWNLOAD_MAXSIZE // 2

RETRY_ENABLED = True
RETRY_TIMES = _crawl.retry_times
RETRY_BACKOFF_BASE = _crawl.retry_backoff_s
RETRY_BACKOFF_MAX = _crawl.retry_backoff_max_s
DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "spiders.middlewares.BackoffRetryMiddleware": 550,
    "spiders.middlewares.UrlCredentials": 310,  # adds its header by signal, as a request enters the downloader
}
# A cap on the claim-page requests of a run (0: none); `arastance sites check` sets it to its sample
# and a small margin. Last in line (the lowest number), it counts only requests the built-in
# middlewares let through.
ARASTANCE_MAX_DETAIL_REQUESTS = 0
SPIDER_MIDDLEWARES = {"spiders.middlewares.DetailRequestCap": 30}

ITEM_PIPELINES = {"spiders.pipelines.StagingPipeline": 300}
SPIDER_CONTRACTS = {"spiders.contracts.SitePageContract": 10}
# The project's log fields (run_id, url, ...) appended to Scrapy's own log lines; a graceful stop
# when the launcher asks for one (ARASTANCE_STOP_FILE, set by tasks.scrapy_launcher); a stop when
# the disk fills up.
EXTENSIONS = {"spiders.log_fields.LogFields": 0, "spiders.stop_file.StopFile": 0, "spiders.disk_full.DiskFull": 0}
# Items processed in parallel per response. A callback here yields at most ~25 objects (a
# listing page) and usually two (a detail page); Scrapy starts this many workers for every
# callback, so the default of 100 only costs event-loop time.
CONCURRENT_ITEMS = 8
#: Where each crawl run's staging directory is created (``<data_dir>/staging/crawl``).
ARASTANCE_STAGING_DIR = str(_settings.staging_dir / "crawl")
#: Base URL of each site, by spider name.
ARASTANCE_SITE_URLS = {name: site_base_url(_settings.sites, name) for name in available_sites()}

COOKIES_ENABLED = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = _settings.log_level
FEED_EXPORT_ENCODING = "utf-8"
