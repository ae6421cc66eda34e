"""WARC response records whose HTTP body is brotli-, gzip- or deflate-encoded, chunked or not, or
cannot be decoded at all, or is larger than a page may be (as stored or once decoded: decoded no
further than that), or a page declaring a codec that is no charset, or one the extractor fails on:
the rest of the file is still indexed."""

from __future__ import annotations

import gzip
import io
import logging
import tracemalloc
import zlib
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import TypeVar

import brotli
import pytest
from helpers_search import DAM, FLU, article_page, write_warc
from typer.testing import CliRunner
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from arastance.cli import app
from arastance.config import load_settings
from spiders.article_extraction import ExtractedArticle, extract_article
from tasks.search.local import LocalIndex
from tasks.search.warc import MAX_PAGE_BYTES, WarcFilter, read_warc

T = TypeVar("T")

DAM_PAGE = article_page("إثيوبيا تنفي انهيار سد النهضة", DAM, "2016-05-03").encode("utf-8")
FLU_PAGE = article_page("الصحة تنفي إغلاق المدارس", FLU, "2016-05-04").encode("utf-8")
PLAIN = ("https://www.youm7.com/plain", [], FLU_PAGE)
FLT = WarcFilter(date(2016, 1, 1), date(2018, 12, 31), "ar")


def _write(path: Path, records: list[tuple[str, list[tuple[str, str]], bytes]]) -> Path:
    """A gzip'd WARC of 200 HTML responses ``(target URI, extra HTTP headers, payload as stored)``."""
    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for uri, headers, payload in records:
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"), *headers],
                                    protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(uri, "response", payload=io.BytesIO(payload),
                                                          http_headers=http))
    return path


def _chunked(body: bytes, size: int = 500) -> bytes:
    parts = [body[i:i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def test_brotli_bodies_chunked_or_not_are_indexed_like_plain_ones(tmp_path: Path) -> None:
    # it was: warcio 1.8's brotli reader failed on brotli 1.2 with an AttributeError that ended the build
    warc = _write(tmp_path / "br.warc.gz", [
        ("https://www.youm7.com/br", [("Content-Encoding", "br")], brotli.compress(DAM_PAGE)),
        ("https://www.youm7.com/br-chunked", [("Content-Encoding", "BR"), ("Transfer-Encoding", "chunked")],
         _chunked(brotli.compress(FLU_PAGE))),
        ("https://www.youm7.com/br-header-only", [("Content-Encoding", "br")], DAM_PAGE),  # stored decoded
        PLAIN])
    records, stats = read_warc(str(warc), FLT, extract=extract_article)
    assert [(r.url, r.title) for r in records] == [
        ("https://www.youm7.com/br", "إثيوبيا تنفي انهيار سد النهضة"),
        ("https://www.youm7.com/br-chunked", "الصحة تنفي إغلاق المدارس"),
        ("https://www.youm7.com/br-header-only", "إثيوبيا تنفي انهيار سد النهضة"),
        ("https://www.youm7.com/plain", "الصحة تنفي إغلاق المدارس")]
    assert dict(stats.counts) == {"records": 4, "extracted": 4}


def test_a_body_that_cannot_be_decoded_is_counted_and_named_and_the_file_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    warc = _write(tmp_path / "cut-br.warc.gz", [
        ("https://www.youm7.com/first", [], DAM_PAGE),
        ("https://www.youm7.com/cut", [("Content-Encoding", "br")], brotli.compress(FLU_PAGE)[:200]),
        PLAIN])
    with warc.open("rb") as handle:
        iterator = ArchiveIterator(handle)
        starts = [iterator.get_record_offset() for _ in iterator]
    with caplog.at_level(logging.WARNING, logger="tasks.search.warc"):
        records, stats = read_warc(str(warc), FLT, extract=extract_article)
    assert [r.url for r in records] == ["https://www.youm7.com/first", "https://www.youm7.com/plain"]
    assert (stats.counts["records"], stats.counts["undecodable"], stats.counts["extracted"]) == (3, 1, 2)
    [warning] = [r for r in caplog.records if r.name == "tasks.search.warc"]
    assert (warning.source, warning.offset) == (str(warc), starts[1])
    assert "brotli stream ends early" in warning.error


def test_index_build_from_a_warc_with_a_brotli_record_indexes_it(tmp_path: Path) -> None:
    warc = _write(tmp_path / "br.warc.gz", [("https://www.youm7.com/br", [("Content-Encoding", "br")],
                                              brotli.compress(DAM_PAGE)), PLAIN])
    result = CliRunner().invoke(app, ["index", "build", "--warc", str(warc), "--workers", "1"])
    assert result.exit_code == 0, result.output
    index = LocalIndex.load(load_settings().search_index_dir)
    assert [h.url for h in index.search("انهيار سد النهضة", None, 10)] == ["https://www.youm7.com/br"]


def _peak_of(action: Callable[[], T]) -> tuple[T, int]:
    """What ``action`` returns, and the most memory Python objects took while it ran, in bytes."""
    tracemalloc.start()
    try:
        return action(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


BLANKS = b" " * (16 * MAX_PAGE_BYTES)  # 64 MiB: a few KB encoded


def test_a_record_that_decodes_past_the_page_size_limit_is_too_large_and_never_decoded_whole(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # it was: a 984-byte record of brotli blanks was decoded whole (1 GiB, 3.3 GB of memory), as was a
    # gzip chunk (warcio's chunked reader decodes a chunk at once)
    gzipped = gzip.compress(BLANKS)
    warc = _write(tmp_path / "bombs.warc.gz", [
        ("https://www.youm7.com/first", [], DAM_PAGE),
        ("https://bomb.example/br", [("Content-Encoding", "br")], brotli.compress(BLANKS, quality=5)),
        ("https://bomb.example/gzip", [("Content-Encoding", "gzip")], gzipped),
        ("https://bomb.example/gzip-chunk", [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
         _chunked(gzipped, len(gzipped))),
        ("https://bomb.example/deflate", [("Content-Encoding", "deflate")], zlib.compress(BLANKS)),
        PLAIN])
    with caplog.at_level(logging.WARNING, logger="tasks.search.warc"):
        (records, stats), peak = _peak_of(lambda: read_warc(str(warc), FLT, extract=extract_article))
    assert [r.url for r in records] == ["https://www.youm7.com/first", "https://www.youm7.com/plain"]
    assert (stats.counts["records"], stats.counts["too_large"], stats.counts["extracted"]) == (6, 4, 2)
    assert peak < 3 * MAX_PAGE_BYTES  # the limit and a step of decoding, never the 64 MiB
    warnings = [r for r in caplog.records if r.name == "tasks.search.warc"]
    assert [w.error for w in warnings] == [f"it decodes to more than {MAX_PAGE_BYTES:,} bytes"] * 4


def test_a_payload_larger_than_the_limit_as_stored_is_too_large_and_the_file_goes_on(tmp_path: Path) -> None:
    big = DAM_PAGE.replace(b"</body>", b"<!-- " + b"x" * 70_000 + b" --></body>")
    warc = _write(tmp_path / "big.warc.gz", [("https://www.youm7.com/big", [], big), PLAIN])
    records, stats = read_warc(str(warc), replace(FLT, max_page_bytes=64 * 1024), extract=extract_article)
    assert [r.url for r in records] == ["https://www.youm7.com/plain"]
    assert (stats.counts["too_large"], stats.counts["extracted"]) == (1, 1)
    records, stats = read_warc(str(warc), FLT, extract=extract_article)
    assert [r.url for r in records] == ["https://www.youm7.com/big", "https://www.youm7.com/plain"]


def test_gzip_and_deflate_bodies_chunked_or_not_are_still_decoded(tmp_path: Path) -> None:
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    warc = _write(tmp_path / "gz.warc.gz", [
        ("https://www.youm7.com/gzip", [("Content-Encoding", "gzip")], gzip.compress(DAM_PAGE)),
        ("https://www.youm7.com/gzip-chunked", [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
         _chunked(gzip.compress(FLU_PAGE))),
        ("https://www.youm7.com/deflate", [("Content-Encoding", "deflate")], zlib.compress(DAM_PAGE)),
        ("https://www.youm7.com/raw-deflate", [("Content-Encoding", "deflate")],
         raw_deflate.compress(FLU_PAGE) + raw_deflate.flush()),
        ("https://www.youm7.com/gzip-header-only", [("Content-Encoding", "gzip")], DAM_PAGE)])  # stored decoded
    records, stats = read_warc(str(warc), FLT, extract=extract_article)
    assert [r.title for r in records] == ["إثيوبيا تنفي انهيار سد النهضة", "الصحة تنفي إغلاق المدارس"] * 2 + [
        "إثيوبيا تنفي انهيار سد النهضة"]
    assert dict(stats.counts) == {"records": 5, "extracted": 5}


@pytest.mark.parametrize("charset", ["undefined", "base64", "rot13"])
def test_a_page_declaring_a_codec_that_is_no_charset_is_read_and_the_build_goes_on(
        tmp_path: Path, charset: str) -> None:
    # it was: UnicodeError / LookupError from page_text ended `index build --warc`, nothing indexed
    warc = write_warc(tmp_path / "odd.warc.gz", [
        ("https://www.youm7.com/odd", 200, f"text/html; charset={charset}", DAM_PAGE),
        ("https://www.youm7.com/plain", 200, "text/html; charset=utf-8", FLU_PAGE)])
    result = CliRunner().invoke(app, ["index", "build", "--warc", str(warc), "--workers", "1"])
    assert result.exit_code == 0, result.output
    index = LocalIndex.load(load_settings().search_index_dir)
    assert [h.url for h in index.search("انهيار سد النهضة", None, 10)] == ["https://www.youm7.com/odd"]


def _fails_on_deep_json_ld(html: str, *, now: datetime | None = None) -> ExtractedArticle:
    """The article extractor, failing as it once did on JSON-LD nested deeper than Python recurses."""
    if "ld+json" in html:
        raise RecursionError("maximum recursion depth exceeded")
    return extract_article(html, now=now)


def test_a_page_the_extractor_fails_on_is_counted_and_named_and_the_file_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    deep = DAM_PAGE.replace(b"</head>", b'<script type="application/ld+json">[[[]]]</script></head>')
    warc = _write(tmp_path / "deep.warc.gz", [("https://www.youm7.com/deep", [], deep), PLAIN])
    with caplog.at_level(logging.WARNING, logger="tasks.search.warc"):
        records, stats = read_warc(str(warc), FLT, extract=_fails_on_deep_json_ld)
    assert [r.url for r in records] == ["https://www.youm7.com/plain"]
    assert (stats.counts["unextractable"], stats.counts["extracted"]) == (1, 1)
    [warning] = [r for r in caplog.records if r.name == "tasks.search.warc"]
    assert warning.url == "https://www.youm7.com/deep"
    assert warning.error == "RecursionError: maximum recursion depth exceeded"
