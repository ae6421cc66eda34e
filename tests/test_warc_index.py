"""The historical index from WARC files (written here with warcio): Arabic filter, publication-date
range, extraction, dedup, files and URLs, and the CLI's errors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from helpers_search import DAM, EN, FLU, OLD, SiteServer, article_page, write_warc
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from spiders.article_extraction import extract_article
from tasks.search.base import DateWindow
from tasks.search.local import LocalIndex
from tasks.search.warc import WarcError, WarcFilter, WarcStats, original_url, read_warc, warc_corpus

runner = CliRunner()


def _html(title: str, paragraphs: list[str], day: str | None) -> bytes:
    html = article_page(title, paragraphs, day or "none")
    if day is None:
        html = html.replace('<meta property="article:published_time" content="noneT08:00:00Z">', "")
    return html.encode("utf-8")


def _pages() -> list[tuple[str, int, str, bytes]]:
    html = "text/html; charset=utf-8"
    return [
        ("https://www.youm7.com/story/2016/5/3/dam?utm_source=fb", 200, html, _html("إثيوبيا تنفي انهيار سد النهضة", DAM, "2016-05-03")),
        ("https://www.youm7.com/story/2016/5/3/dam", 200, html, _html("إثيوبيا تنفي انهيار سد النهضة", DAM, "2016-05-03")),
        ("https://copies.example.net/dam-copy", 200, html, _html("نسخة", DAM, "2016-05-04")),
        ("http://web.archive.org/web/20170212000000id_/https://aljazeera.net/news/flu", 200, html,
         _html("الصحة تنفي إغلاق المدارس", FLU, "2017-02-11")),
        ("https://english.example.com/dam", 200, html, _html("Dam", EN, "2016-05-03")),
        ("https://alghad.com/park-2010", 200, html, _html("حديقة جديدة", OLD, "2010-06-01")),
        ("https://alghad.com/park-undated", 200, html, _html("حديقة", OLD[::-1], None)),
        ("https://alghad.com/missing", 404, html, b"not found"),
        ("https://alghad.com/logo.png", 200, "image/png", b"\x89PNG...."),
    ]


def _flt(**kw) -> WarcFilter:
    return WarcFilter(date(2016, 1, 1), date(2018, 12, 31), "ar", min_text_chars=80, **kw)


def test_warc_pages_are_filtered_extracted_and_deduplicated(tmp_path: Path) -> None:
    warc = write_warc(tmp_path / "news.warc.gz", _pages())
    stats = WarcStats()
    records = list(warc_corpus([str(warc)], _flt(), extract=extract_article, stats=stats))
    assert [r.url for r in records] == ["https://www.youm7.com/story/2016/5/3/dam?utm_source=fb",
                                        "https://aljazeera.net/news/flu"]
    dam = records[0]
    assert dam.title == "إثيوبيا تنفي انهيار سد النهضة" and dam.published_date == date(2016, 5, 3)
    assert dam.domain == "youm7.com" and dam.text.startswith("نفت الحكومة") and "شارك" not in dam.text
    assert records[1].published_date == date(2017, 2, 11)  # the capture (2017-02-12) is not the publication date
    c = stats.counts
    assert (c["records"], c["not_html_200"]) == (18, 11)  # 9 requests + a 404 + an image
    assert (c["duplicate_url"], c["duplicate_text"], c["not_arabic"], c["outside_range"], c["undated"], c["kept"]) == \
        (1, 1, 1, 1, 1, 2)
    kept_undated = list(warc_corpus([str(warc)], _flt(keep_undated=True), extract=extract_article))
    assert "https://alghad.com/park-undated" in [r.url for r in kept_undated]


def test_warc_records_are_read_in_the_charset_their_bytes_are_in_and_dated_from_their_capture(tmp_path: Path) -> None:
    # it was: the extractor got the bytes and followed the <meta charset>, so a UTF-8 page tagged
    # windows-1256 was indexed as mojibake; and "two days ago" was counted from the day of the build
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    story = "".join(f"<p>{p}</p>" for p in FLU)
    page = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1256">'
            '<title>الصحة تنفي إغلاق المدارس</title></head><body><article><h1>الصحة تنفي إغلاق المدارس</h1>'
            f'<span class="date">منذ يومين</span>{story}</article></body></html>')
    pages = [("https://aljazeera.net/news/utf8", "text/html", page.encode("utf-8")),
             ("https://aljazeera.net/news/legacy", "text/html; charset=ISO-8859-1", page.encode("cp1256"))]
    with (tmp_path / "f.warc.gz").open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for uri, ctype, body in pages:
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype), ("Content-Length", str(len(body)))],
                                       protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(uri, "response", payload=BytesIO(body), http_headers=headers,
                                                          warc_headers_dict={"WARC-Date": "2016-09-11T00:00:00Z"}))
    records, stats = read_warc(str(tmp_path / "f.warc.gz"), _flt(), extract=extract_article)
    assert [(r.url, r.title, r.text, r.published_date) for r in records] == [
        (uri, "الصحة تنفي إغلاق المدارس", "\n\n".join(FLU), date(2016, 9, 9)) for uri, _, _ in pages]


def test_plain_and_gzip_warcs_read_alike_and_wayback_uris_unwrap(tmp_path: Path) -> None:
    plain = write_warc(tmp_path / "news.warc", _pages()[:2], gzip=False)
    records, stats = read_warc(str(plain), _flt(), extract=extract_article)
    assert len(records) == 2 and stats.counts["extracted"] == 2
    assert original_url("https://web.archive.org/web/20160101000000/http://a.com/x?y=1") == "http://a.com/x?y=1"
    assert original_url("https://a.com/web/x") == "https://a.com/web/x"


def test_index_build_from_warc_files_and_urls_then_windowed_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = _pages()
    local = write_warc(tmp_path / "a.warc.gz", pages[:4])
    served = tmp_path / "served"
    served.mkdir()
    write_warc(served / "b.warc.gz", pages[4:])
    site = SiteServer(served)
    monkeypatch.setenv("COLUMNS", "200")
    with site.running():
        result = runner.invoke(app, ["index", "build", "--warc", str(local), "--warc", site.base_url + "b.warc.gz",
                                     "--from", "2016-01-01", "--to", "2018-12-31", "--lang", "ar", "--keep-undated"])
    assert result.exit_code == 0, result.output
    assert "indexed 3 document(s)" in result.output and "duplicate_text" in result.output
    index = LocalIndex.load(load_settings().search_index_dir)
    hits = index.search("انهيار سد النهضة", DateWindow(date(2016, 4, 1), date(2016, 6, 30)), 10)
    assert [h.url for h in hits] == ["https://www.youm7.com/story/2016/5/3/dam?utm_source=fb"]
    assert index.search("انهيار سد النهضة", DateWindow(date(2017, 1, 1), date(2017, 3, 1)), 10) == []
    assert [h.url for h in index.search("إغلاق المدارس الإنفلونزا", None, 10)] == ["https://aljazeera.net/news/flu"]


@pytest.mark.parametrize("args, message", [
    (["--warc", "nowhere.warc.gz"], "WARC file nowhere.warc.gz does not exist"),
    (["--warc", "{bad}", "--lang", "en"], "--lang 'en' is not supported"),
    (["--warc", "{bad}", "--from", "2018-01-01", "--to", "2016-01-01"], "--from 2018-01-01 is after --to 2016-01-01"),
    (["--warc", "{bad}", "--from", "2016-13-01"], "invalid --from '2016-13-01'"),
    (["--warc", "{bad}"], "is not a readable WARC file"),
])
def test_index_build_from_bad_warc_input_names_it(tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(b"this is not a WARC file at all\n" * 10)
    result = runner.invoke(app, ["index", "build", *[a.replace("{bad}", str(bad)) for a in args]])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert not (load_settings().search_index_dir / "docs.parquet").exists()


def test_a_warc_url_that_fails_is_an_error_naming_it(tmp_path: Path) -> None:
    site = SiteServer(tmp_path)
    with site.running(), pytest.raises(WarcError, match=r"b\.warc\.gz: HTTP 404"):
        read_warc(site.base_url + "b.warc.gz", _flt(), extract=extract_article)


@pytest.mark.parametrize("gzip", [True, False], ids=["gzip", "plain"])
def test_a_warc_file_cut_short_keeps_the_whole_records_before_the_cut_and_says_so(
        tmp_path: Path, gzip: bool, caplog: pytest.LogCaptureFixture) -> None:
    # it was: a page cut off was indexed with part of its text, a header cut off crashed warcio with a
    # TypeError, and a gzip member cut off ended the file silently
    pages = [(f"https://www.youm7.com/story/2016/5/{i}/news", 200, "text/html; charset=utf-8",
              _html(f"خبر {i}", DAM if i % 2 else FLU, f"2016-05-{i + 1:02d}")) for i in range(4)]
    whole = write_warc(tmp_path / "whole.warc", pages, gzip=gzip).read_bytes()
    full, full_stats = read_warc(str(tmp_path / "whole.warc"), _flt(), extract=extract_article)
    assert len(full) == 4 and "cut_short" not in full_stats.counts
    texts = {r.url: r.text for r in full}
    first_record_end = whole.index(b"WARC/1.0", 1) if not gzip else whole.index(b"\x1f\x8b", 1)
    cut = tmp_path / "cut.warc"
    flagged = 0
    for size in range(first_record_end + 1, len(whole), 11):
        cut.write_bytes(whole[:size])
        records, stats = read_warc(str(cut), _flt(), extract=extract_article)
        assert all(texts[r.url] == r.text for r in records), f"a page cut at byte {size} was indexed in part"
        assert [r.url for r in records] == [r.url for r in full][:len(records)]
        flagged += stats.counts["cut_short"]
    cut.write_bytes(whole[:len(whole) - 300])  # inside the last page
    records, stats = read_warc(str(cut), _flt(), extract=extract_article)
    assert len(records) == 3 and stats.counts["cut_short"] == 1
    warning = caplog.records[-1]
    assert warning.getMessage().startswith("WARC file cut short") and warning.source == str(cut)  # type: ignore[attr-defined]
    # every cut is reported but those in a record's last header digits, gzip trailers and closing blank lines
    assert flagged >= 0.9 * len(range(first_record_end + 1, len(whole), 11))
    cut.write_bytes(whole[:first_record_end // 2])
    with pytest.raises(WarcError, match="is not a readable WARC file"):
        read_warc(str(cut), _flt(), extract=extract_article)


def test_every_cut_of_a_warc_file_is_reported_but_at_a_record_boundary_or_in_its_closing_blank_lines(
        tmp_path: Path) -> None:
    # it was: a file cut right after a header's "Content-Length:" (or ": ") read as a whole record of nothing
    pages = [(f"https://www.youm7.com/story/2016/5/{i}/news", 200, "text/html; charset=utf-8",
              _html(f"خبر {i}", DAM if i % 2 else FLU, f"2016-05-{i + 1:02d}")) for i in range(2)]
    whole = write_warc(tmp_path / "whole.warc", pages, gzip=False).read_bytes()
    starts = [at for at in range(len(whole)) if whole.startswith(b"WARC/1.0\r\n", at)]
    record_ends = [*starts[1:], len(whole)]
    whole_records = {end - blank for end in record_ends for blank in range(5)}  # "\r\n\r\n" closes a record
    cut = tmp_path / "cut.warc"
    silent = []
    for size in range(starts[1] + 1, len(whole)):
        cut.write_bytes(whole[:size])
        _, stats = read_warc(str(cut), _flt(), extract=extract_article)
        if not stats.counts["cut_short"]:
            silent.append(size)
    assert silent and set(silent) <= whole_records, sorted(set(silent) - whole_records)
    for label in (b"Content-Length:", b"Content-Length: "):
        at = whole.rindex(label) + len(label)
        cut.write_bytes(whole[:at])
        records, stats = read_warc(str(cut), _flt(), extract=extract_article)
        assert stats.counts["cut_short"] == 1 and len(records) == 1, label


def test_an_arc_file_is_read_and_its_cut_header_reported(tmp_path: Path) -> None:
    # it was (review): a record had to declare a WARC Content-Length, so every ARC file (whose header line
    # ends with its length) was refused as "not one whole record"
    http = b"HTTP/1.0 200 OK\nContent-Type: text/html; charset=utf-8\n\n" + _html("خبر", DAM, "2016-05-03")
    version = b"1 0 AraStance\nURL IP-address Archive-date Content-type Archive-length\n"
    arc = (b"filedesc://news.arc 0.0.0.0 20160503000000 text/plain %d\n%s\n" % (len(version), version)
           + b"https://www.youm7.com/story/2016/5/3/dam 192.0.2.1 20160503000000 text/html %d\n%s\n" % (len(http), http))
    whole = tmp_path / "news.arc"
    whole.write_bytes(arc)
    records, stats = read_warc(str(whole), _flt(), extract=extract_article)
    assert [r.url for r in records] == ["https://www.youm7.com/story/2016/5/3/dam"] and "cut_short" not in stats.counts
    cut = tmp_path / "cut.arc"
    cut.write_bytes(arc[:arc.index(b"text/html ") + len(b"text/html ")])  # the length broken off
    records, stats = read_warc(str(cut), _flt(), extract=extract_article)
    assert records == [] and stats.counts["cut_short"] == 1 and stats.counts["records"] == 1


def test_padding_after_the_last_record_is_no_cut_and_damage_in_the_middle_or_whole_file_gzip_is_refused(
        tmp_path: Path) -> None:
    import gzip

    pages = [(f"https://www.youm7.com/story/2016/5/{i}/news", 200, "text/html; charset=utf-8",
              _html(f"خبر {i}", DAM, f"2016-05-{i + 1:02d}")) for i in range(3)]
    plain = write_warc(tmp_path / "p.warc", pages, gzip=False).read_bytes()
    zipped = write_warc(tmp_path / "g.warc.gz", pages).read_bytes()
    fine = {"plain+blank lines": plain + b"\r\n\r\n\n", "gzip+newline": zipped + b"\n",
            "gzip+NUL padding": zipped + b"\0" * 512, "gzip+empty member": zipped + gzip.compress(b""),
            "gzip+member of blank lines": zipped + gzip.compress(b"\r\n\r\n")}
    for name, data in fine.items():
        (tmp_path / "f.warc").write_bytes(data)
        records, stats = read_warc(str(tmp_path / "f.warc"), _flt(), extract=extract_article)
        assert len(records) == 3 and "cut_short" not in stats.counts, name
    third = plain.index(b"WARC/1.0", plain.index(b"WARC/1.0", plain.index(b"WARC/1.0", 1) + 1) + 1)
    (tmp_path / "bad.warc").write_bytes(plain[:third] + b"XARC" + plain[third + 4:])
    with pytest.raises(WarcError, match=f"unreadable record at byte {third:,} and more after it"):
        read_warc(str(tmp_path / "bad.warc"), _flt(), extract=extract_article)
    (tmp_path / "whole.warc.gz").write_bytes(gzip.compress(plain))
    with pytest.raises(WarcError, match="gzipped as a whole, not record by record"):
        read_warc(str(tmp_path / "whole.warc.gz"), _flt(), extract=extract_article)
