"""Pages per second of each site spider over the local snapshot server, next to a bare spider.

The bare spider is plain Scrapy fetching the very pages the site spider fetched (same
settings, same server) and doing nothing with them; the ratio says what parsing, extraction,
pagination and staging cost. Goal: every spider at >= 0.7x the bare rate. Rates use Scrapy's
own ``elapsed_time_seconds`` so process start-up is not counted; faults are switched off. The
two run alternately and the best of ``--repeat`` runs is reported for each, the figure least
disturbed by other work on a shared machine.

Run: ``.venv/bin/python benchmarks/bench_spiders.py [--sites reuters ...] [--repeat N]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import scrapy

SITES = ("araanews", "dabegad", "norumors", "reuters")
BENCH_CRAWL = {
    "download_delay_s": 0.0,
    "autothrottle": False,
    "concurrent_requests_per_domain": 8,
    "retry_times": 0,
    "download_timeout_s": 30.0,
    "resumable": False,
}


class BareSpider(scrapy.Spider):
    """Fetches a list of URLs and keeps nothing: the baseline."""

    name = "bare"

    def __init__(self, urls_file: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url_list = Path(urls_file).read_text(encoding="utf-8").split()

    async def start(self):  # type: ignore[override]
        for url in self.url_list:
            yield scrapy.Request(url, callback=self.parse, dont_filter=True)

    def parse(self, response):  # type: ignore[override]
        return None


def _bare_child(urls_file: str, out_file: str) -> None:
    """Child-process entry: one bare crawl with the project's Scrapy settings."""
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    settings.set("ITEM_PIPELINES", {})
    settings.set("LOG_LEVEL", "WARNING")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BareSpider)
    process.crawl(crawler, urls_file=urls_file)
    process.start()
    stats = crawler.stats.get_stats()
    Path(out_file).write_text(json.dumps({
        "pages": stats.get("response_received_count", 0),
        "elapsed": stats.get("elapsed_time_seconds", 0.0),
    }), encoding="utf-8")


def _rate(pages: int, elapsed: float) -> float:
    return pages / elapsed if elapsed > 0 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="+", default=list(SITES), choices=SITES)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each spider; the best rate is reported")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from arastance.config import load_settings
    from snapshots.build import build_snapshots
    from snapshots.server import SnapshotServer
    from tasks.crawl_runner import run_spider
    from tasks.scrapy_launcher import child_environment

    with tempfile.TemporaryDirectory(prefix="bench-spiders-") as tmp:
        root = Path(tmp)
        build_snapshots(root / "web")
        rows = []
        with SnapshotServer(root / "web", faults=False) as server:
            settings = load_settings(data_dir=root / "data", crawl=BENCH_CRAWL,
                                     sites={s: server.site_url(s) for s in SITES})
            env = child_environment(settings)
            for site in args.sites:
                spider_rates, bare_rates, pages = [], [], 0
                for _ in range(args.repeat):
                    result = run_spider(site, settings, incremental=False)
                    stats = result.summary["stats"]
                    pages = int(stats["response_received_count"])
                    spider_rates.append(_rate(pages, float(stats["elapsed_time_seconds"])))
                    fetched = [p["url"] for p in map(json.loads, (result.run_dir / "pages.jsonl").read_text().splitlines())]
                    urls_file, out_file = root / f"{site}.urls", root / f"{site}.bare.json"
                    urls_file.write_text("\n".join([server.base_url + "robots.txt", *fetched]), encoding="utf-8")
                    subprocess.run([sys.executable, __file__, "--bare-child", str(urls_file), str(out_file)],
                                   env=env, check=True)
                    bare = json.loads(out_file.read_text(encoding="utf-8"))
                    bare_rates.append(_rate(int(bare["pages"]), float(bare["elapsed"])))
                spider, bare_rate = max(spider_rates), max(bare_rates)
                rows.append((site, pages, spider, bare_rate, spider / bare_rate))
    print(f"{'site':<10} {'pages':>6} {'spider p/s':>11} {'bare p/s':>9} {'ratio':>6}  goal >= 0.70")
    for site, pages, spider, bare_rate, ratio in rows:
        print(f"{site:<10} {pages:>6} {spider:>11.1f} {bare_rate:>9.1f} {ratio:>6.2f}  {'ok' if ratio >= 0.7 else 'BELOW'}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--bare-child":
        _bare_child(sys.argv[2], sys.argv[3])
    else:
        main()
