"""The historical index built from the web-archive captures stored in the warehouse.

The warehouse is written here as the crawl's archive mode and the retrieval's dead-link fallback
write it (``raw_pages`` rows with the capture's address, the original URL and the capture time);
``arastance index build --captures`` must index each article once, under its original URL and its
publication date, through the WARC path's filters.
"""

from __future__ import annotations

import zlib
from datetime import date, datetime
from pathlib import Path

import pytest
from helpers_search import DAM, EN, FLU, OLD, article_page, write_warc
from typer.testing import CliRunner

from arastance.base.ids import content_hash, stable_id
from arastance.cli import app
from arastance.config import load_settings
from tasks.search.base import DateWindow
from tasks.search.local import LocalIndex
from warehouse import open_warehouse

runner = CliRunner()
ARCHIVE = "http://web.archive.org/web/"
LIVE = ["قال مسؤولون إن أسعار الخبز لن ترتفع هذا العام رغم ارتفاع تكاليف القمح المستورد من الخارج بشكل كبير.",
        "وأضافوا أن الحكومة ستواصل دعم المخابز في جميع المحافظات حتى نهاية السنة المالية الحالية دون تغيير."]
DAM_URL, FLU_URL = "https://www.youm7.com/story/2016/5/3/dam", "https://aljazeera.net/news/flu"


def _page(url: str, body: str, *, original: str | None, captured: str | None, status: int = 200) -> dict:
    """A ``raw_pages`` row as the crawl loader and the article fetcher store it."""
    html = body.encode("utf-8")
    digest = content_hash(html)
    return {"page_id": stable_id(url, digest), "url": url, "source_id": "test", "fetched_at": datetime(2026, 11, 1),
            "http_status": status, "content_hash": digest, "html_zlib": zlib.compress(html), "original_url": original,
            "captured_at": datetime.fromisoformat(captured) if captured else None}


def _capture(timestamp: str, original: str, title: str, paragraphs: list[str], published: str,
             status: int = 200) -> dict:
    captured = f"{timestamp[:4]}-{timestamp[4:6]}-{timestamp[6:8]}"
    return _page(f"{ARCHIVE}{timestamp}id_/{original}", article_page(title, paragraphs, published),
                 original=original, captured=captured, status=status)


def _store_captures() -> None:
    rows = [
        # published 2016-05-03, captured in 2017 (outside the range): kept, under the original URL and 2016-05-03
        _capture("20170105000000", DAM_URL, "إثيوبيا تنفي انهيار سد النهضة", DAM, "2016-05-03"),
        # a later capture of the same article (its title since edited): a duplicate of its original URL
        _capture("20180301000000", DAM_URL, "سد النهضة", DAM, "2016-05-03"),
        # read by the retrieval's dead-link fallback (tasks/articles.py stores it the same way)
        _capture("20160911000000", FLU_URL, "الصحة تنفي إغلاق المدارس", FLU, "2016-09-10"),
        # captured inside the range but published in 2010: outside the range
        _capture("20160301000000", "https://alghad.com/park-2010", "حديقة جديدة", OLD, "2010-06-01"),
        _capture("20160601000000", "https://english.example.com/dam", "Dam", EN, "2016-05-03"),
        _capture("20160701000000", "https://alghad.com/gone", "خبر", FLU[::-1], "2016-06-30", status=404),
        # a page fetched from the live site: not an archive capture, never indexed by --captures
        _page("https://alghad.com/bread", article_page("أسعار الخبز", LIVE, "2016-04-01"), original=None,
              captured=None),
    ]
    with open_warehouse(load_settings().warehouse) as wh:  # closing the writer publishes the read-only copy
        wh.insert_rows("raw_pages", rows)


def _indexed() -> dict[str, date | None]:
    """Every indexed document's URL and date (each test query matches exactly its own article)."""
    index = LocalIndex.load(load_settings().search_index_dir)
    found: dict[str, date | None] = {}
    for query in ("انهيار سد النهضة", "إغلاق المدارس الإنفلونزا", "أسعار الخبز", "حديقة عامة", "dam collapsed",
                  "مركز ثقافي جديد"):
        found |= {hit.url: hit.published_date for hit in index.search(query, None, 10)}
    return found


def test_index_build_from_stored_captures_keeps_original_urls_and_publication_dates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _store_captures()
    monkeypatch.setenv("COLUMNS", "200")
    result = runner.invoke(app, ["index", "build", "--captures", "--from", "2016-01-01", "--to", "2016-12-31"])
    assert result.exit_code == 0, result.output
    assert "Archived pages by outcome" in result.output and "indexed 2 document(s)" in result.output
    counts = {line.split("│")[1].strip(): int(line.split("│")[2]) for line in result.output.splitlines()
              if line.count("│") == 3 and line.split("│")[2].strip().isdigit()}
    assert counts == {"records": 6, "extracted": 3, "kept": 2, "duplicate_url": 1, "outside_range": 1,
                      "not_arabic": 1, "not_html_200": 1}
    assert _indexed() == {DAM_URL: date(2016, 5, 3), FLU_URL: date(2016, 9, 10)}
    index = LocalIndex.load(load_settings().search_index_dir)
    assert index.search("انهيار سد النهضة", DateWindow(date(2017, 1, 1), date(2017, 12, 31)), 10) == []


def test_captures_and_warc_files_are_deduplicated_together(tmp_path: Path) -> None:
    _store_captures()
    html = "text/html; charset=utf-8"
    warc = write_warc(tmp_path / "news.warc.gz", [
        (FLU_URL, 200, html, article_page("الصحة تنفي إغلاق المدارس", FLU, "2016-09-10").encode()),  # also captured
        ("https://alghad.com/centre", 200, html,
         article_page("مركز ثقافي", [p.replace("حديقة عامة", "مركز ثقافي") for p in OLD], "2016-02-02").encode()),
    ])
    result = runner.invoke(app, ["index", "build", "--warc", str(warc), "--captures", "--from", "2016-01-01",
                                 "--to", "2016-12-31"])
    assert result.exit_code == 0, result.output
    assert "indexed 3 document(s)" in result.output
    assert _indexed() == {FLU_URL: date(2016, 9, 10), "https://alghad.com/centre": date(2016, 2, 2),
                          DAM_URL: date(2016, 5, 3)}


def test_a_capture_stored_by_the_fetcher_is_read_as_it_read_it(tmp_path: Path) -> None:
    # it was: the fetcher stores a windows-1256 page's text as UTF-8 with its <meta charset=windows-1256>
    # left in; the extractor followed the tag into mojibake, indexed as an "extracted" Arabic article,
    # and "two days ago" was counted from the day of the index build
    from spiders.article_extraction import extract_article
    from tasks.articles import article_rows
    from tasks.search.archive_captures import capture_pages
    from tasks.search.warc import WarcFilter, WarcStats
    from warehouse.archive_captures import ArchiveCapture

    story = "".join(f"<p>{p}</p>" for p in FLU)
    html = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1256">'
            '<title>الصحة تنفي إغلاق المدارس</title></head><body><article><h1>الصحة تنفي إغلاق المدارس</h1>'
            f'<span class="date">منذ يومين</span>{story}</article></body></html>')
    fetched = {"url": FLU_URL, "fetch_url": f"{ARCHIVE}20160911000000id_/{FLU_URL}", "fetched_at": "2026-11-01T00:00:00",
               "http_status": 200, "fetch_error": None, "text": "\n\n".join(FLU), "html": html, "copy": "archive",
               "captured_at": "2016-09-11T00:00:00"}
    [page], _ = article_rows([fetched], min_arabic_ratio=0.5, min_text_chars=40)
    stored = ArchiveCapture(page["url"], page["original_url"], page["captured_at"], 200, page["html_zlib"])
    stats = WarcStats()
    [record] = capture_pages([stored], WarcFilter(date(2016, 1, 1), date(2016, 12, 31)), extract=extract_article,
                             stats=stats)
    assert (record.title, record.text) == ("الصحة تنفي إغلاق المدارس", "\n\n".join(FLU))
    assert record.published_date == date(2016, 9, 9)


@pytest.mark.parametrize("extra", [["--world"], ["--corpus", "corpus.jsonl"]])
def test_captures_refuse_a_built_corpus(extra: list[str]) -> None:
    result = runner.invoke(app, ["index", "build", "--captures", *extra])
    assert result.exit_code == 2
    assert "--captures cannot be combined with --corpus or --world" in result.output


def test_captures_without_a_warehouse_is_an_error_naming_it() -> None:
    result = runner.invoke(app, ["index", "build", "--captures"])
    assert result.exit_code == 2 and "does not exist" in result.output


@pytest.mark.parametrize(("extra", "message"), [
    (["--world", "--corpus", "corpus.jsonl"], "--corpus and --world each choose what is indexed"),
    (["--corpus", "corpus.jsonl", "--warc", "a.warc.gz"], "--corpus and --warc each choose what is indexed"),
    (["--corpus", "corpus.jsonl", "--from", "2016-01-01", "--lang", "en"], "--from, --lang filter archived pages"),
    (["--world", "--keep-undated"], "--keep-undated filter archived pages"),
])
def test_index_build_refuses_options_it_would_ignore(extra: list[str], message: str) -> None:
    from arastance.config import load_settings

    result = runner.invoke(app, ["index", "build", *extra])
    assert result.exit_code == 2 and message in result.output.replace("\n", " ")
    assert not load_settings().search_index_dir.exists()  # nothing was built or replaced
