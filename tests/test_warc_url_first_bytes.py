"""A WARC URL whose server sends the file's first bytes in a small piece of their own is read like
the same file on disk (its start is checked on its first 4,096 bytes, not on one network read)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers_search import DAM, article_page, write_warc

from spiders.article_extraction import extract_article
from tasks.search.warc import WarcFilter, read_warc

FLT = WarcFilter(date(2016, 1, 1), date(2018, 12, 31), "ar")


@contextmanager
def split_start_server(data: bytes, first: int) -> Iterator[str]:
    """Serves ``data`` at ``/slow.warc.gz``: its first ``first`` bytes, a pause, then the rest."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("ETag", '"v1"')
            self.end_headers()
            self.wfile.write(data[:first])
            self.wfile.flush()
            time.sleep(0.2)
            self.wfile.write(data[first:])

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/slow.warc.gz"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("first", [10, 30])
def test_a_warc_url_whose_first_bytes_come_alone_is_read_whole(tmp_path: Path, first: int) -> None:
    # it was: refused as "not a readable WARC file: it starts with b''" (the first read's 10 bytes
    # are not even a gzip header's worth of WARC)
    warc = write_warc(tmp_path / "slow.warc.gz", [("https://www.youm7.com/story/2016/5/3/dam", 200,
                                                   "text/html; charset=utf-8",
                                                   article_page("إثيوبيا تنفي انهيار سد النهضة", DAM).encode())])
    with split_start_server(warc.read_bytes(), first) as url:
        records, stats = read_warc(url, FLT, extract=extract_article)
    assert [r.url for r in records] == ["https://www.youm7.com/story/2016/5/3/dam"]
    assert stats.counts["extracted"] == 1 and "cut_short" not in stats.counts
