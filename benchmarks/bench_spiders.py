"""Pages per second of each site spider over the local snapshot server, next to a bare spider.

The bare spider is plain Scrapy fetching the very pages the site spider fetched (same
settings, same server) and doing nothing with them; the ratio says what parsing, extraction,
pagination and staging cost. Goal: every spider at >= 0.7x the bare rate. Rates use Scrapy's
own ``elapsed_time_seconds`` so process start-up is not counted; faults are switched off. The
two run alternately and the best of ``--repeat`` runs is reported for each, the figure least
disturbed by other work on a shared machine.

``--scale K`` copies every post and headline K times (new ids and URLs, same text), for a
realistic size: K = 18 gives about 1,000 claim pages per site. ``--archive`` also crawls each
site through the web archive emulator with ``crawl.archive_delay_s = 0`` and reports its rate
beside the bare spider on the same capture URLs and the time CDX discovery took: with the
default politeness (1 request/s) an archive crawl is bound by the delay, and this shows our
code is not the limit.

Run: ``.venv/bin/python benchmarks/bench_spiders.py [--sites reuters ...] [--repeat N] [--scale K] [--archive]``
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from dataclasses import replace
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


def _copy_path(path: str, k: int) -> str:
    """A new URL of the same shape (the archive's claim-URL patterns still match it)."""
    if path.startswith("/article/"):  # Reuters: idARA<chars><yyyymmdd>
        return re.sub(r"(idARA[A-Z0-9]+?)(\d{8})$", rf"\1C{k}\2", path)
    if path.startswith("/rumors/"):
        return re.sub(r"/(\d+)/$", lambda m: f"/{int(m[1]) + 100_000 * k}/", path)
    if re.match(r"^/\d{4}/\d{2}/", path):
        return path.rstrip("/") + f"-{k}/"
    return re.sub(r"/(\d+)-", lambda m: f"/{int(m[1]) + 100_000 * k}-", path, count=1)


def scaled_world(world: Any, copies: int) -> Any:
    """``world`` with every post and headline present ``copies`` times."""
    if copies <= 1:
        return world
    posts = [replace(p, post_id=f"{p.post_id}-c{k}", path=_copy_path(p.path, k)) if k else p
             for k in range(copies) for p in world.posts]
    headlines = [replace(h, headline_id=f"{h.headline_id}-c{k}", path=_copy_path(h.path, k)) if k else h
                 for k in range(copies) for h in world.headlines]
    return replace(world, posts=tuple(posts), headlines=tuple(headlines))


def _bare_rate(urls: list[str], root: Path, name: str, env: dict[str, str]) -> float:
    urls_file, out_file = root / f"{name}.urls", root / f"{name}.bare.json"
    urls_file.write_text("\n".join(urls), encoding="utf-8")
    subprocess.run([sys.executable, __file__, "--bare-child", str(urls_file), str(out_file)], env=env, check=True)
    bare = json.loads(out_file.read_text(encoding="utf-8"))
    return _rate(int(bare["pages"]), float(bare["elapsed"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="+", default=list(SITES), choices=SITES)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each spider; the best rate is reported")
    parser.add_argument("--scale", type=int, default=1, help="copies of every post and headline (18: ~1,000 per site)")
    parser.add_argument("--archive", action="store_true", help="also crawl through the archive emulator (delay 0)")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from arastance.config import load_settings
    from snapshots.build import build_snapshots
    from snapshots.server import SnapshotServer
    from snapshots.world import build_world
    from tasks.crawl_runner import run_spider
    from tasks.scrapy_launcher import child_environment
    import time

    with tempfile.TemporaryDirectory(prefix="bench-spiders-") as tmp:
        root = Path(tmp)
        started = time.monotonic()
        build_snapshots(root / "web", scaled_world(build_world(), args.scale))
        print(f"snapshots built in {time.monotonic() - started:.0f}s (scale {args.scale})", flush=True)
        rows, archive_rows = [], []
        with SnapshotServer(root / "web", faults=False) as server:
            settings = load_settings(data_dir=root / "data", crawl={**BENCH_CRAWL, "archive_url": server.archive_url,
                                                                    "archive_delay_s": 0.0, "archive_page_size": 5000},
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
                print(f"{site}: live {spider:.1f} p/s, bare {bare_rate:.1f} p/s", flush=True)
                if args.archive:
                    archive_rows.append(_archive_figures(site, settings, root, env))
    print(f"{'site':<10} {'pages':>6} {'spider p/s':>11} {'bare p/s':>9} {'ratio':>6}  goal >= 0.70")
    for site, pages, spider, bare_rate, ratio in rows:
        print(f"{site:<10} {pages:>6} {spider:>11.1f} {bare_rate:>9.1f} {ratio:>6.2f}  {'ok' if ratio >= 0.7 else 'BELOW'}")
    if archive_rows:
        print("\narchive mode, crawl.archive_delay_s = 0 (default 1.0 s: at most 1 page/s)")
        print(f"{'site':<10} {'pages':>6} {'cdx s':>6} {'archive p/s':>12} {'bare p/s':>9} {'ratio':>6}")
        for site, pages, cdx_s, rate, bare_rate in archive_rows:
            print(f"{site:<10} {pages:>6} {cdx_s:>6.1f} {rate:>12.1f} {bare_rate:>9.1f} {rate / bare_rate:>6.2f}")


def _archive_figures(site: str, settings: Any, root: Path, env: dict[str, str]) -> tuple[str, int, float, float, float]:
    """One archive crawl of ``site`` (delay 0) and the bare spider over its capture URLs."""
    import time

    from tasks.crawl_runner import archive_claim_captures, run_spider

    started = time.monotonic()
    archive_claim_captures(site, settings)  # fills the CDX cache; the crawl below reads it
    cdx_s = time.monotonic() - started
    result = run_spider(site, settings, incremental=False, mode="archive")
    stats = result.summary["stats"]
    pages = int(stats["response_received_count"])
    rate = _rate(pages, float(stats["elapsed_time_seconds"]))
    fetched = [p["url"] for p in map(json.loads, (result.run_dir / "pages.jsonl").read_text().splitlines())]
    bare = _bare_rate(fetched, root, f"{site}-archive", env)
    print(f"{site}: archive {rate:.1f} p/s, bare {bare:.1f} p/s, cdx {cdx_s:.1f}s", flush=True)
    return site, pages, cdx_s, rate, bare


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--bare-child":
        _bare_child(sys.argv[2], sys.argv[3])
    else:
        main()
