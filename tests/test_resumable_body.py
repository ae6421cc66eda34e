"""Streamed WARC downloads survive a dropped connection: the rest is asked for by a Range
request, and a server that cannot give the same file's rest is refused, never spliced."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers_search import DAM, FLU, article_page, write_warc
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.search.local import LocalIndex
from tasks.search.resumable_body import BodyError, resumable_body

runner = CliRunner()


class RangeServer:
    """Serves ``data`` at any path, honouring ``Range`` and ``If-Range`` as a file server does.

    ``drops`` lists, per request, after how many bytes of the answer's body the connection is cut
    (``None``: not cut; ``-1``: cut before any answer). ``ranges`` false makes it ignore Range;
    ``etag`` changes to stand for a file replaced between two requests (``None``: no validator);
    ``content_range`` forces a wrong Content-Range; ``short`` makes a 206 hold only that many
    bytes; ``chunked`` sends bodies chunked, without Content-Length.
    """

    def __init__(self, data: bytes, drops: list[int | None] | None = None) -> None:
        self.data = data
        self.drops = list(drops or [])
        self.ranges = True
        self.etag: str | None = '"v1"'
        self.content_range: str | None = None
        self.short: int | None = None
        self.chunked = False
        self.star_total = False  # Content-Range "bytes a-b/*": the size is not known
        self.data_for_range: bytes | None = None  # what a Range request is answered from (a file cut since)
        self.seen: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                server.seen.append({k: v for k, v in self.headers.items() if k in ("Range", "If-Range")})
                drop = server.drops.pop(0) if server.drops else None
                if drop == -1:
                    self.close_connection = True
                    return
                start, total = 0, len(server.data)
                asked = self.headers.get("Range")
                if asked and server.ranges and self.headers.get("If-Range", server.etag) == server.etag:
                    start = int(asked.removeprefix("bytes=").rstrip("-"))
                    if server.data_for_range is not None:
                        total = len(server.data_for_range)
                if start >= total > 0:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{total}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                end = min(total, start + server.short) if start and server.short else total
                body = server.data[start:end]
                self.send_response(206 if start else 200)
                if server.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(body)))
                if server.etag:
                    self.send_header("ETag", server.etag)
                if start:
                    self.send_header("Content-Range", server.content_range
                                     or f"bytes {start}-{end - 1}/{'*' if server.star_total else total}")
                self.end_headers()
                sent = body if drop is None else body[:drop]
                if server.chunked:
                    for i in range(0, len(sent), 8192):
                        piece = sent[i:i + 8192]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    if drop is None:
                        self.wfile.write(b"0\r\n\r\n")
                else:
                    self.wfile.write(sent)
                if drop is not None:
                    self.wfile.flush()
                    self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/x.warc.gz"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def blob() -> bytes:
    return bytes(range(256)) * 400  # 102,400 bytes


def _read(server: RangeServer, **kw: Any) -> bytes:
    with httpx.Client(timeout=10) as client:
        return b"".join(resumable_body(client, server.url, pause_s=0, **kw))


def test_a_body_whose_connection_drops_twice_comes_back_whole_from_where_it_stopped(blob: bytes) -> None:
    server = RangeServer(blob, drops=[30_000, 25_000])
    try:
        assert _read(server) == blob
    finally:
        server.stop()
    assert server.seen == [{}, {"Range": "bytes=30000-", "If-Range": '"v1"'},
                           {"Range": "bytes=55000-", "If-Range": '"v1"'}]


@pytest.mark.parametrize("change, message", [
    ("no_ranges", "answered with HTTP 200, not 206"),
    ("replaced", "answered with HTTP 200, not 206"),  # If-Range: the file changed, so the whole new one came
    ("wrong_range", "Content-Range 'bytes 0-102399/102400', not from byte 30000 of 102400 bytes"),
    ("other_size", "not from byte 30000 of 102400 bytes"),
])
def test_an_answer_that_is_not_the_same_files_rest_is_refused(blob: bytes, change: str, message: str) -> None:
    server = RangeServer(blob, drops=[30_000])
    server.ranges = change != "no_ranges"
    server.content_range = {"wrong_range": "bytes 0-102399/102400",
                            "other_size": "bytes 30000-102399/200000"}.get(change)
    got = bytearray()
    try:
        with httpx.Client(timeout=10) as client, pytest.raises(BodyError, match=message):
            for chunk in resumable_body(client, server.url, pause_s=0):
                got += chunk
                if change == "replaced":
                    server.etag = '"v2"'
    finally:
        server.stop()
    assert bytes(got) == blob[:30_000], "nothing of another answer is handed out"


def test_a_connection_that_keeps_dropping_is_given_up_naming_the_byte(blob: bytes) -> None:
    server = RangeServer(blob, drops=[10_000] * 5)
    try:
        with pytest.raises(BodyError, match="dropped 3 times, the last at byte 30000"):
            _read(server, resumes=2)
    finally:
        server.stop()
    assert len(server.seen) == 3


def test_a_request_for_the_rest_that_itself_fails_counts_as_one_more_drop(blob: bytes) -> None:
    # it was: the failed request for the rest ended the download, with two resumes left
    server = RangeServer(blob, drops=[30_000, -1, None])
    try:
        assert _read(server) == blob
    finally:
        server.stop()
    assert [s.get("Range") for s in server.seen] == [None, "bytes=30000-", "bytes=30000-"]


def test_a_short_rest_is_followed_by_a_request_for_what_is_still_missing(blob: bytes) -> None:
    # it was: a 206 holding less than asked for ended the download there, with no error
    server = RangeServer(blob, drops=[30_000])
    server.short = 20_000
    try:
        assert _read(server, resumes=5) == blob
    finally:
        server.stop()
    assert [s.get("Range") for s in server.seen][:3] == [None, "bytes=30000-", "bytes=50000-"]


def test_a_chunked_body_resumes_and_one_cut_after_its_last_byte_is_whole(blob: bytes) -> None:
    server = RangeServer(blob, drops=[30_000, None])
    server.chunked = True
    try:
        assert _read(server) == blob
        server.drops = [len(blob)]  # every byte came, the closing chunk did not: the server answers 416
        assert _read(server) == blob
    finally:
        server.stop()
    assert [s.get("Range") for s in server.seen] == [None, "bytes=30000-", None, f"bytes={len(blob)}-"]


@pytest.mark.parametrize("chunked", [True, False])
def test_without_a_validator_a_rest_is_not_asked_for(blob: bytes, chunked: bool) -> None:
    # it was: the rest was spliced on unchecked, though the file might have changed in between
    # (a size alone cannot tell a file replaced by one of the same size)
    server = RangeServer(blob, drops=[30_000])
    server.chunked, server.etag = chunked, None
    try:
        with pytest.raises(BodyError, match="at byte 30000 .*no ETag or Last-Modified"):
            _read(server)
    finally:
        server.stop()
    assert len(server.seen) == 1


def test_a_416_that_contradicts_the_announced_size_is_refused(blob: bytes) -> None:
    # it was: a 416 saying the file ends where the connection dropped was taken for the whole file
    server = RangeServer(blob, drops=[30_000])
    server.content_range = "bytes */30000"
    server.data_for_range = blob[:30_000]
    try:
        with pytest.raises(BodyError, match="HTTP 416, not 206"):
            _read(server)
    finally:
        server.stop()


def test_a_short_rest_of_a_file_of_unknown_size_is_followed_up_to_where_it_says_it_ends(blob: bytes) -> None:
    # it was: a chunked file's 206 "bytes 30000-49999/*" that ended cleanly was taken as the end
    server = RangeServer(blob, drops=[30_000])
    server.chunked, server.short, server.star_total = True, 20_000, True
    try:
        got = _read(server, resumes=5)
    finally:
        server.stop()
    assert got == blob
    # the rest came 20,000 bytes at a time, then a 416 said the file ends where the last range did
    assert [s.get("Range") for s in server.seen] == [None, *(f"bytes={n}-" for n in range(30_000, 102_401, 20_000)),
                                                      "bytes=102400-"]


def test_index_build_from_a_url_whose_connection_drops_indexes_what_a_whole_download_does(tmp_path: Path) -> None:
    html = "text/html; charset=utf-8"
    pages = [(f"https://www.youm7.com/story/2016/5/{i}/news", 200, html,
              article_page(f"خبر {i}", [f"{p} رقم {i}" for p in (DAM if i % 2 else FLU)]).encode("utf-8"))
             for i in range(1, 7)]
    data = write_warc(tmp_path / "c.warc.gz", pages).read_bytes()
    server = RangeServer(data, drops=[len(data) // 3, len(data) // 4])
    try:
        result = runner.invoke(app, ["index", "build", "--warc", server.url, "--from", "2016-01-01",
                                     "--to", "2018-12-31"])
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    assert "indexed 6 document(s)" in result.output and "cut_short" not in result.output
    assert [s.get("Range") for s in server.seen] == [None, f"bytes={len(data) // 3}-",
                                                      f"bytes={len(data) // 3 + len(data) // 4}-"]
    assert len(LocalIndex.load(load_settings().search_index_dir).search("سد النهضة", None, 10)) == 3
