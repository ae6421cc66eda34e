"""A host that answers 429 is left alone for as long as it asks (or a doubling backoff), by the whole
crawl and not only by the request it answered: the Wayback Machine blocks an IP for an hour when its
429s are ignored for a minute. A real Scrapy crawl (a child process, with the project's retry
middleware) against a server on 127.0.0.1 that counts when each request arrives."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
PAGES = 8  # per slot
FIRST_LIMITED = 3  # the held slot's 3rd request opens the server's 429 window
RESET = 0  # the status recorded for a request answered by resetting its connection

# The spider sends PAGES requests to slot "held" and PAGES to slot "free" (Scrapy's download_slot
# meta key: a slot of its own, as another host would have), and writes the pages it got.
CRAWL = """
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

base, pages, out, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])

class Pages(scrapy.Spider):
    name = "pages"

    async def start(self):
        for n in range(pages):
            for slot in ("held", "free"):
                yield scrapy.Request(f"{base}/{slot}/{n}", meta={"download_slot": slot}, dont_filter=True)

    def parse(self, response):
        yield {"url": response.url, "status": response.status}

process = CrawlerProcess({
    "DOWNLOADER_MIDDLEWARES": {"scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
                               "spiders.middlewares.BackoffRetryMiddleware": 550},
    "ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "WARNING",
    "DOWNLOAD_DELAY_JITTER": 0, "RETRY_TIMES": 5, "FEEDS": {out: {"format": "jsonlines"}}, **settings,
})
process.crawl(Pages)
process.start()
"""


@dataclass
class Throttler:
    """Refuses the held slot's requests for ``window_s`` from its ``FIRST_LIMITED``-th one: answers
    429 (with ``retry_after``, if any) or, with ``resets``, resets the connection as a firewall does."""

    window_s: float
    retry_after: str | None
    resets: bool = False
    arrivals: list[tuple[float, str, int]] = field(default_factory=list)  # (monotonic time, path, status)
    lock: threading.Lock = field(default_factory=threading.Lock)
    limited_from: float | None = None

    def answer(self, path: str) -> int:
        now, held = time.monotonic(), path.startswith("/held/")
        with self.lock:
            if held and sum(p.startswith("/held/") for _, p, _ in self.arrivals) + 1 == FIRST_LIMITED:
                self.limited_from = now
            limited = held and self.limited_from is not None and now < self.limited_from + self.window_s
            status = (RESET if self.resets else 429) if limited else 200
            self.arrivals.append((now, path, status))
        return status


def serve(throttler: Throttler) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = throttler.answer(self.path)
            if status == RESET:  # SO_LINGER 0: closing sends RST
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            body = b"<html><body>too many requests</body></html>" if status == 429 else b"<html>page</html>"
            self.send_response(status)
            if status == 429 and throttler.retry_after is not None:
                self.send_header("Retry-After", throttler.retry_after)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


@pytest.fixture
def running() -> Iterator[Callable[[Throttler], str]]:
    """Starts the server for a throttler; returns its base URL."""
    holder: dict[str, ThreadingHTTPServer] = {}

    def start(throttler: Throttler) -> str:
        server = holder["server"] = serve(throttler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    if "server" in holder:
        holder["server"].shutdown()
        holder["server"].server_close()


def crawl(base: str, out: Path, **settings: object) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", CRAWL, base, str(PAGES), str(out), json.dumps(settings)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def refused(throttler: Throttler) -> list[float]:
    """When the server refused the held slot's requests."""
    return [t for t, p, s in throttler.arrivals if p.startswith("/held/") and s != 200]


def nothing_arrives_within(throttler: Throttler, start: float, seconds: float) -> list[str]:
    """The held slot's requests that reached the server less than ``seconds`` after ``start``."""
    return [f"+{t - start:.2f}s {p}" for t, p, _ in throttler.arrivals
            if p.startswith("/held/") and start < t < start + seconds]


def test_a_429_with_retry_after_holds_its_host_and_no_other(
    running: Callable[[Throttler], str], tmp_path: Path
) -> None:
    # the archive's pace: one request at a time, a delay between them (with no delay, Scrapy 2.19
    # sends a slot's whole queue at once, so some requests are in flight when the 429 comes)
    throttler = Throttler(window_s=1.5, retry_after="2")
    pages = crawl(running(throttler), tmp_path / "pages.jsonl", DOWNLOAD_DELAY=0.2,
                  CONCURRENT_REQUESTS_PER_DOMAIN=1, RETRY_BACKOFF_BASE=0.1, RETRY_BACKOFF_MAX=5)
    [first, *_] = refused(throttler)
    assert nothing_arrives_within(throttler, first, 2.0) == []
    free = [p for t, p, _ in throttler.arrivals if p.startswith("/free/") and first < t < first + 2.0]
    assert free, "the other slot went on during the hold"
    assert sorted(p["url"].split("/", 3)[3] for p in pages if p["status"] == 200) == sorted(
        f"{slot}/{n}" for slot in ("held", "free") for n in range(PAGES)), "every page was fetched in the end"


@pytest.mark.parametrize("resets", [False, True], ids=["429", "connection_reset"])
def test_refusals_without_retry_after_hold_their_host_for_a_doubling_backoff(
    running: Callable[[Throttler], str], tmp_path: Path, resets: bool
) -> None:
    throttler = Throttler(window_s=1.5, retry_after=None, resets=resets)
    pages = crawl(running(throttler), tmp_path / "pages.jsonl", DOWNLOAD_DELAY=0.1,
                  CONCURRENT_REQUESTS_PER_DOMAIN=1, RETRY_BACKOFF_BASE=0.5, RETRY_BACKOFF_MAX=2)
    limited = refused(throttler)
    for n, answered in enumerate(limited):  # 0.5 s after the first refusal, 1 s after the second, 2 s after the third
        assert nothing_arrives_within(throttler, answered, min(0.5 * 2**n, 2.0)) == [], f"after refusal #{n + 1}"
    assert len(limited) <= 3, "the window (1.5 s) is over within three doubling holds (0.5 + 1 + 2 s)"
    assert sum(p["status"] == 200 for p in pages) == 2 * PAGES
