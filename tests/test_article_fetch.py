"""The article spider over real HTTP (offline mirror on 127.0.0.1) and the rows it becomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_disk import small_disk
from helpers_search import ApiServer, Reply, SiteServer, article_page, write_mirror_page

from arastance.base.page_text import MIN_ARABIC_RATIO, page_text
from arastance.base.urls import mirror_url
from arastance.config.search import SearchSettings
from tasks.articles import article_rows, article_status, read_fetched, run_article_spider
from tasks.search.warc import WarcFilter

AR = ["قالت وزارة الصحة إن التقارير المتداولة عن نقص الأدوية في المستشفيات الحكومية غير دقيقة.",
      "وأكد المتحدث أن المخزون يكفي لعدة أشهر وأن التوزيع يجري بانتظام في كل المحافظات."]
EN = ["The ministry of health said reports of medicine shortages in public hospitals were inaccurate.",
      "A spokesman said stocks would last several months and distribution continued as normal."]
FAST = {"DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_ENABLED": False, "RETRY_TIMES": 1, "RETRY_BACKOFF_BASE": 0.01}


def test_mirror_url_maps_domain_and_path() -> None:
    assert mirror_url("https://www.Youm7.com/story/2016/5/3/خبر?id=1", "http://127.0.0.1:8000/") == \
        "http://127.0.0.1:8000/mirror/www.youm7.com/story/2016/5/3/خبر?id=1"
    assert mirror_url("https://a.com", "http://h:1") == "http://h:1/mirror/a.com/"


@pytest.mark.parametrize(("text", "status"), [
    (" ".join(AR), "ok"), (" ".join(EN), "not_arabic"), ("قصير", "empty"), (None, "empty"),
])
def test_article_status_checks_length_and_arabic(text: str | None, status: str) -> None:
    assert article_status(text, min_arabic_ratio=0.5, min_text_chars=40)[0] == status


def test_spider_fetches_through_the_mirror_and_records_every_outcome(tmp_path: Path) -> None:
    root = tmp_path / "site"
    urls = {
        "ok": "https://news.example.com/2016/05/medicine-stocks/",
        "english": "https://english.example.com/health/story.html",
        "missing": "https://news.example.com/gone.html",
        "broken": "https://broken.example.com/a.html",
        "robots": "https://news.example.com/private/secret.html",
    }
    write_mirror_page(root, urls["ok"], article_page("الصحة تنفي نقص الأدوية", AR))
    write_mirror_page(root, urls["english"], article_page("Health ministry denies shortages", EN))
    write_mirror_page(root, urls["robots"], article_page("صفحة ممنوعة", AR))
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /mirror/news.example.com/private/\n", encoding="utf-8")
    server = SiteServer(root, {"/mirror/broken.example.com/a.html": 500})
    with server.running():
        out = run_article_spider(list(urls.values()), tmp_path / "run", mirror_base=server.base_url,
                                 scrapy_settings=FAST)
    records = {r["url"]: r for r in read_fetched(out)}
    assert set(records) == set(urls.values())
    ok = records[urls["ok"]]
    assert ok["fetch_error"] is None and ok["http_status"] == 200
    assert ok["fetch_url"] == server.base_url + "mirror/news.example.com/2016/05/medicine-stocks/"
    assert ok["title"] == "الصحة تنفي نقص الأدوية" and ok["published_date"] == "2016-05-03"
    assert ok["text"] == "\n\n".join(AR) and "<nav" in ok["html"]
    assert records[urls["missing"]]["fetch_error"].startswith("http_404")
    assert records[urls["broken"]]["fetch_error"].startswith("http_500")
    assert server.paths.count("/mirror/broken.example.com/a.html") == 2  # retried once
    assert records[urls["robots"]]["fetch_error"].startswith("robots_disallowed")
    assert "/mirror/news.example.com/private/secret.html" not in server.paths

    pages, articles = article_rows(records.values(), min_arabic_ratio=0.5, min_text_chars=40, run_id="r1")
    by_url = {a["url"]: a for a in articles}
    assert by_url[urls["ok"]]["fetch_status"] == "ok" and by_url[urls["ok"]]["language"] == "ar"
    assert by_url[urls["ok"]]["canonical_url"] == "https://news.example.com/2016/05/medicine-stocks"
    assert by_url[urls["english"]]["fetch_status"] == "not_arabic"
    assert "Arabic" in by_url[urls["english"]]["fetch_error"]
    assert by_url[urls["missing"]]["fetch_status"] == "failed" and by_url[urls["missing"]]["http_status"] == 404
    assert {p["url"] for p in pages} == {urls["ok"], urls["english"]}
    assert all(p["run_id"] == "r1" for p in pages)


def test_pages_too_large_to_record_fail_alone_and_the_wave_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One page whose record passed read_fetched's 16 MiB line limit used to make the whole
    # output file unreadable: no article of the wave was stored, on every re-run.
    monkeypatch.setenv("ARASTANCE_CRAWL__MAX_PAGE_MB", "3")
    root = tmp_path / "site"
    urls = {"ok": "https://news.example.com/ok.html", "big": "https://news.example.com/big.html",
            "escaped": "https://news.example.com/escaped.html"}
    write_mirror_page(root, urls["ok"], article_page("الصحة تنفي نقص الأدوية", AR))
    write_mirror_page(root, urls["big"], article_page("صفحة كبيرة", AR * 20_000))  # about 5 MiB
    # 2.9 MiB of control characters: each is six bytes once escaped in JSON (\u0001)
    write_mirror_page(root, urls["escaped"], article_page("رموز", ["\x01" * (29 * 10**5)]))
    server = SiteServer(root)
    with server.running():
        out = run_article_spider(list(urls.values()), tmp_path / "run", mirror_base=server.base_url,
                                 scrapy_settings=FAST)
    records = {r["url"]: r for r in read_fetched(out)}
    assert records[urls["ok"]]["fetch_error"] is None and records[urls["ok"]]["text"] == "\n\n".join(AR)
    assert records[urls["big"]]["fetch_error"].startswith("too_large: Expected to receive")
    assert records[urls["escaped"]]["fetch_error"].startswith("too_large: the page's record takes")
    assert server.paths.count("/mirror/news.example.com/big.html") == 1  # neither retried nor sought in an archive


def test_a_page_streamed_without_a_length_past_the_limit_is_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    monkeypatch.setenv("ARASTANCE_CRAWL__MAX_PAGE_MB", "1")

    class Stream(BaseHTTPRequestHandler):  # no Content-Length: Scrapy learns the size only while reading
        protocol_version = "HTTP/1.0"

        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200 if self.path.startswith("/page") else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            if self.path.startswith("/page"):
                for _ in range(40):
                    self.wfile.write(b"<p>" + "نص ".encode() * 10_000 + b"</p>")

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Stream)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        out = run_article_spider([f"http://127.0.0.1:{httpd.server_address[1]}/page"], tmp_path / "run",
                                 scrapy_settings=FAST)
    finally:
        httpd.shutdown()
        httpd.server_close()
    [record] = list(read_fetched(out))
    assert record["fetch_error"].startswith("too_large: ")  # it was "fetch_error: DownloadCancelledError: "


def test_unusable_availability_answers_leave_the_dead_link_with_its_reason(tmp_path: Path) -> None:
    # each of these used to be a spider error, and the URL got no record at all
    answers = {
        "https://gone.example.com/a": {"archived_snapshots": {"closest": "yes"}},
        "https://gone.example.com/b": {"archived_snapshots": {"closest": {"available": True, "status": "200"}}},
        "https://gone.example.com/c": {"archived_snapshots": {"closest": {"available": True, "status": "200",
                                                                          "timestamp": "20151399000000"}}},
        "https://gone.example.com/d": ["not", "an", "object"],
    }
    archive = ApiServer(lambda r: Reply(body=answers[r.params["url"]]) if r.path == "/wayback/available" else Reply(404))
    site = SiteServer(tmp_path / "empty")
    with site.running(), archive.running():
        out = run_article_spider(list(answers), tmp_path / "run", mirror_base=site.base_url, scrapy_settings=FAST,
                                 archive=(archive.url + "/", archive.url + "/wayback/available"))
    records = {r["url"]: r for r in read_fetched(out)}
    assert set(records) == set(answers)
    assert all(r["fetch_error"] == "http_404: HTTP 404; no archive capture" for r in records.values())
    asked = [r for r in archive.requests if r.path == "/wayback/available"]
    assert len(asked) == len(archive.requests) - 1 == len(answers)  # robots.txt, one question each, no capture


def test_a_redirect_loop_is_a_fetch_error_not_a_robots_refusal(tmp_path: Path) -> None:
    # it was recorded as robots_disallowed, which also skipped the archive fallback
    site = ApiServer(lambda r: Reply(302, None, {"Location": "/loop"}) if r.path == "/loop" else Reply(404))
    with site.running():
        out = run_article_spider([site.url + "/loop"], tmp_path / "run", scrapy_settings=FAST)
    [record] = list(read_fetched(out))
    assert record["fetch_error"] == "fetch_error: IgnoreRequest: max redirections reached"


def _fetched_as_served(tmp_path: Path, pages: dict[str, tuple[bytes, str]]) -> dict[str, dict]:
    """The fetched records of news.example.com pages ``name -> (bytes, Content-Type)``, served by the mirror."""
    root = tmp_path / "site"
    (root / "mirror/news.example.com").mkdir(parents=True)
    for name, (data, _) in pages.items():
        (root / "mirror/news.example.com" / name).write_bytes(data)
    server = SiteServer(root, content_types={f"/mirror/news.example.com/{name}": kind
                                             for name, (_, kind) in pages.items()})
    urls = [f"https://news.example.com/{name}" for name in pages]
    with server.running():
        out = run_article_spider(urls, tmp_path / "run", mirror_base=server.base_url, scrapy_settings=FAST)
    records = {r["url"]: r for r in read_fetched(out)}
    assert sorted(records) == sorted(urls)
    return records


def test_a_page_in_another_charset_than_declared_is_read_in_the_one_its_bytes_are(tmp_path: Path) -> None:
    # a UTF-8 page declared windows-1256 used to be stored as "ok" Arabic mojibake (ظ‚ط§ظ„طھ)
    page = article_page("الصحة تنفي نقص الأدوية", AR).replace('<meta charset="utf-8">', "")
    records = _fetched_as_served(tmp_path, {"utf8.html": (page.encode("utf-8"), "text/html; charset=windows-1256"),
                                            "legacy.html": (page.encode("cp1256"), "text/html; charset=utf-8")})
    for url in records:
        assert records[url]["text"] == "\n\n".join(AR) and records[url]["title"] == "الصحة تنفي نقص الأدوية"
        assert AR[0] in records[url]["html"]


def test_a_utf8_page_with_a_broken_character_and_a_legacy_page_declared_latin1_are_read_as_arabic(
        tmp_path: Path) -> None:
    # a UTF-8 page with one character cut in half (a PHP substr on its description) was read whole as
    # windows-1256 mojibake that passed the Arabic check; a windows-1256 page that Apache served as
    # ISO-8859-1 over its own <meta charset> became Latin letters, and not_arabic
    page = article_page("الصحة تنفي نقص الأدوية", AR)
    cut = "وقالت وزارة".encode("utf-8")[:7]
    legacy = page.replace('<meta charset="utf-8">', '<meta http-equiv="Content-Type" content="text/html; charset=windows-1256">')
    records = _fetched_as_served(tmp_path, {
        "cut.html": (page.encode("utf-8").replace(b"<title>", b'<meta name="description" content="' + cut + b'"><title>'),
                     "text/html; charset=utf-8"),
        "apache.html": (legacy.encode("cp1256"), "text/html; charset=ISO-8859-1")})
    for url in records:
        assert records[url]["text"] == "\n\n".join(AR) and records[url]["title"] == "الصحة تنفي نقص الأدوية", url
    assert 'content="وقا\ufffd"' in records["https://news.example.com/cut.html"]["html"]  # only the broken character is replaced
    _, articles = article_rows(records.values(), min_arabic_ratio=0.5, min_text_chars=40)
    assert [a["fetch_status"] for a in articles] == ["ok", "ok"]


@pytest.mark.parametrize("paragraph", [
    "El presidente anunció hoy que la situación económica está mejorando según el análisis oficial. Más aquí.",
    "Die Regierung hat heute für Österreich die Maßnahmen verkündet. Grüße aus München, Übersicht über Änderungen.",
    "Le ministère a annoncé une réforme économique très attendue à la rentrée.",
])
def test_a_latin1_page_declared_latin1_keeps_its_declared_reading(paragraph: str) -> None:
    # windows-1256 maps ó/Ö/ß to Arabic letters and marks: that reading was taken ("situaciَn",
    # "ضsterreich") because its few non-ASCII letters were mostly Arabic, though the page is not
    page = f"<html><head><title>Política</title><style>p {{color: red}}</style></head><body><p>{paragraph}</p></body></html>"
    for header in ("text/html; charset=ISO-8859-1", None):
        declared = page if header else page.replace("<head>", '<head><meta charset="iso-8859-1">')
        assert page_text(declared.encode("latin-1"), header) == (declared, None)


def test_a_legacy_arabic_page_with_latin_markup_and_menus_is_still_read_as_windows_1256() -> None:
    # Apache's default ISO-8859-1 over a windows-1256 page: its visible text, Latin menu and all, is Arabic
    script = "<script>var analytics = {account: 'UA-1234', trackPageview: true, anonymizeIp: false};</script>"
    page = (f"<html><head>{script}<title>الصحة تنفي نقص الأدوية</title></head><body>"
            f"<nav><a href='/en'>English</a> <a href='/fr'>Français</a></nav><p>{AR[0]}</p></body></html>")
    assert page_text(page.encode("cp1256"), "text/html; charset=ISO-8859-1") == (page, "cp1256")
    assert MIN_ARABIC_RATIO == SearchSettings().min_arabic_ratio == WarcFilter().min_arabic_ratio

def test_refetch_replaces_a_failed_article_and_registers_the_news_site(warehouse) -> None:
    from warehouse.retrieval import article_status as stored_status
    from warehouse.retrieval import store_articles

    url = "https://www.youm7.com/story/1/"
    failed = {"url": url, "fetched_at": "2024-01-01T10:00:00+00:00", "http_status": 503, "fetch_error": "http_503: HTTP 503"}
    fetched = {"url": url, "fetched_at": "2024-01-02T10:00:00+00:00", "http_status": 200, "fetch_error": None,
               "title": "عنوان", "published_date": "2016-05-03", "text": "\n\n".join(AR), "html": "<p>x</p>"}
    assert store_articles(warehouse, *article_rows([failed], min_arabic_ratio=0.5, min_text_chars=40)) == 1
    assert stored_status(warehouse, ["https://youm7.com/story/1"])["https://youm7.com/story/1"]["fetch_status"] == "failed"
    assert store_articles(warehouse, *article_rows([fetched], min_arabic_ratio=0.5, min_text_chars=40)) == 0
    row = warehouse.query("SELECT fetch_status, fetch_error, http_status, text, page_id FROM articles")[0]
    assert (row["fetch_status"], row["fetch_error"], row["http_status"]) == ("ok", None, 200)
    assert row["text"].startswith("قالت") and row["page_id"]
    assert warehouse.query("SELECT source_id, kind FROM sources") == [{"source_id": "youm7.com", "kind": "news"}]
    assert warehouse.scalar("SELECT count(*) FROM raw_pages") == 1


def test_the_article_fetcher_keeps_the_project_extensions_but_the_full_disk_stop() -> None:
    from scrapy.settings import Settings

    from spiders.crawlers.articles import ArticleSpider

    settings = Settings()
    settings.setmodule("spiders.settings", priority="project")
    ArticleSpider.update_settings(settings)
    extensions = settings.getdict("EXTENSIONS")
    # stopped early it would hand its caller part of the URLs with exit 0; a site crawl's stop removes its run
    assert extensions["spiders.disk_full.DiskFull"] is None
    assert extensions["spiders.stop_file.StopFile"] == 0 and extensions["spiders.log_fields.LogFields"] == 0



def test_a_feed_the_full_disk_left_without_records_is_refused_and_a_fetch_after_freeing_space_has_them_all(
        tmp_path: Path) -> None:
    # it was: with little space left the feed exporter left the feed empty (0 bytes, which gzip reads
    # as no records), logged the failed write and exited 0, and the caller read a wave in which
    # nothing had been fetched
    import random

    rng = random.Random(7)
    letters = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"
    root = tmp_path / "site"
    urls = [f"https://news.example.com/2016/05/story-{i}/" for i in range(6)]
    for url in urls:  # words of random letters: the feed does not compress below the space left
        words = [" ".join("".join(rng.choices(letters, k=6)) for _ in range(40)) + "." for _ in range(120)]
        write_mirror_page(root, url, article_page("الصحة تنفي نقص الأدوية", words))
    server = SiteServer(root, {})
    with server.running(), small_disk(tmp_path, 2) as disk:
        disk.fill(leave=12_000)  # room for the start, not for the feed's first block
        with pytest.raises(RuntimeError, match=r"articles.jsonl.gz holds 0 of the 6 records its article spider "
                                               r"fetched: its feed was not written whole \(\d+ KiB left on its disk"):
            run_article_spider(urls, disk.root / "run", mirror_base=server.base_url, scrapy_settings=FAST)
        disk.free()
        out = run_article_spider(urls, disk.root / "run", mirror_base=server.base_url, scrapy_settings=FAST)
        assert sorted(r["url"] for r in read_fetched(out)) == sorted(urls)


DEEP_JSON = "[" * 100_000 + "]" * 100_000


def test_a_page_whose_json_ld_is_nested_too_deep_is_read_without_it_and_the_wave_still_loads(tmp_path: Path) -> None:
    # it was: the JSON-LD's RecursionError left the spider's callback, the page got no record, and the
    # whole wave was refused as a feed "not written whole" (a full disk's message), on every re-run
    root = tmp_path / "site"
    urls = {"ok": "https://news.example.com/ok.html", "hostile": "https://news.example.com/hostile.html"}
    write_mirror_page(root, urls["ok"], article_page("الصحة تنفي نقص الأدوية", AR))
    hostile = article_page("الصحة تنفي نقص الأدوية", AR).replace(
        "</head>", f'<script type="application/ld+json">{DEEP_JSON}</script></head>')
    write_mirror_page(root, urls["hostile"], hostile)
    server = SiteServer(root)
    with server.running():
        out = run_article_spider(list(urls.values()), tmp_path / "run", mirror_base=server.base_url,
                                 scrapy_settings=FAST)
    records = {r["url"]: r for r in read_fetched(out)}
    assert set(records) == set(urls.values())
    for record in records.values():
        assert record["fetch_error"] is None and record["text"] == "\n\n".join(AR)
        assert record["published_date"] == "2016-05-03"


def test_a_page_the_parser_fails_on_is_that_urls_parse_error_record(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    # whatever a page makes the parser raise, the URL keeps its record: one without it refuses the whole wave
    from scrapy.http import HtmlResponse, Request

    import spiders.crawlers.articles as crawler
    from arastance.base.staging import write_url_list

    def choke(html: str, **_: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(crawler, "extract_article", choke)
    url = "https://news.example.com/ok.html"
    spider = crawler.ArticleSpider(str(write_url_list([url], tmp_path / "urls.txt")))
    live = HtmlResponse(url, body=article_page("عنوان", AR).encode(), encoding="utf-8",
                        request=Request(url, meta={"article_url": url}))
    [record] = list(spider.parse_article(live))
    assert (record.url, record.http_status, record.text) == (url, 200, None)
    assert record.fetch_error == "parse_error: RecursionError: maximum recursion depth exceeded"
    capture = "https://web.archive.org/web/20160503000000id_/" + url
    archived = HtmlResponse(capture, body=article_page("عنوان", AR).encode(), encoding="utf-8",
                            request=Request(capture, meta={"article_url": url, "live_error": "http_404: HTTP 404",
                                                           "live_status": 404}))
    [record] = list(spider.parse_article(archived))
    assert (record.http_status, record.fetch_error) == (
        404, "http_404: HTTP 404; archive copy: parse_error: RecursionError: maximum recursion depth exceeded")


def test_an_availability_answer_nested_too_deep_leaves_the_dead_link_with_its_reason(tmp_path: Path) -> None:
    # it was: the RecursionError left parse_availability, a spider error, and the URL got no record at all
    archive_root = tmp_path / "archive"
    (archive_root / "wayback").mkdir(parents=True)
    (archive_root / "wayback" / "available").write_text(DEEP_JSON, encoding="utf-8")
    archive = SiteServer(archive_root, content_types={"/wayback/available": "application/json"})
    site = SiteServer(tmp_path / "empty")
    url = "https://gone.example.com/a"
    with site.running(), archive.running():
        out = run_article_spider([url], tmp_path / "run", mirror_base=site.base_url, scrapy_settings=FAST,
                                 archive=(archive.base_url, archive.base_url + "wayback/available"))
    [record] = list(read_fetched(out))
    assert (record["url"], record["fetch_error"]) == (url, "http_404: HTTP 404; no archive capture")
    assert archive.paths.count("/wayback/available") == 1
