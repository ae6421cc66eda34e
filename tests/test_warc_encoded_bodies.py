"""WARC response records whose HTTP body is brotli-encoded (``Content-Encoding: br``), chunked or
not, or cannot be decoded at all: the rest of the file is still indexed."""

from __future__ import annotations

import io
import logging
from datetime import date
from pathlib import Path

import brotli
import pytest
from helpers_search import DAM, FLU, article_page
from typer.testing import CliRunner
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from arastance.cli import app
from arastance.config import load_settings
from spiders.article_extraction import extract_article
from tasks.search.local import LocalIndex
from tasks.search.warc import WarcFilter, read_warc

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
