"""Dead article links fall back to the closest web-archive capture before they are dropped, and the
article (hence its pairs) records which copy was read. Real HTTP against the snapshot server's
news mirror and its archive emulator."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

import pytest

from helpers_spiders import snapshot_root, world
from snapshots.server import SnapshotServer
from tasks.articles import article_rows, read_fetched, run_article_spider
from warehouse import Warehouse
from warehouse.retrieval import store_articles

pytestmark = pytest.mark.slow
FAST = {"DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_ENABLED": False, "RETRY_TIMES": 1, "RETRY_BACKOFF_BASE": 0.01}


def test_a_dead_link_is_read_from_its_closest_capture_and_says_so(tmp_path: Path, warehouse: Warehouse) -> None:
    article = world().articles[0]
    rumour = world().posts_of("norumors")[3]  # not in the news mirror (dead there), archived
    urls = {"live": f"https://{article.domain}{article.path}", "archived": f"https://norumors.net{rumour.path}",
            "gone": "https://news.example.com/never-archived.html"}
    with SnapshotServer(snapshot_root()) as server:
        out = run_article_spider(list(urls.values()), tmp_path / "run", mirror_base=server.base_url,
                                 scrapy_settings=FAST, archive=(server.archive_url, server.availability_url))
        asked = [p for p in server.paths_requested() if p.endswith("/wayback/available")]
    records = {r["url"]: r for r in read_fetched(out)}
    live, archived, gone = (records[urls[k]] for k in ("live", "archived", "gone"))
    assert live["copy"] == "live" and live["fetch_error"] is None
    assert archived["copy"] == "archive" and archived["fetch_error"] is None
    assert "/archive/web/" in archived["fetch_url"] and "id_/" in archived["fetch_url"]
    assert archived["captured_at"] < "2019" and rumour.title in archived["title"]
    assert gone["fetch_error"].startswith("http_404") and gone["fetch_error"].endswith("no archive capture")
    assert len(asked) == 2, "only the dead links ask the archive"

    pages, articles = article_rows(records.values(), min_arabic_ratio=0.5, min_text_chars=40, run_id="r1")
    store_articles(warehouse, pages, articles)
    rows = {r["url"]: r for r in warehouse.query("SELECT url, fetched_copy, capture_url, fetch_status FROM articles")}
    assert rows[urls["archived"]]["fetched_copy"] == "archive" and rows[urls["archived"]]["capture_url"] == archived["fetch_url"]
    assert rows[urls["live"]]["fetched_copy"] == "live" and rows[urls["live"]]["capture_url"] is None
    assert rows[urls["gone"]]["fetch_status"] == "failed"
    page = warehouse.query("SELECT url, original_url, captured_at FROM raw_pages WHERE original_url IS NOT NULL")
    assert [p["original_url"] for p in page] == [urls["archived"]] and page[0]["url"] == archived["fetch_url"]


def test_a_dead_link_is_read_from_the_capture_of_its_claims_period_not_the_newest(tmp_path: Path) -> None:
    # it was: the availability API was asked without a day, and the real one then answers with the
    # newest capture: here the site's later "page not found", a page that is no article at all
    from helpers_search import DAM, article_page

    url = "https://news.example.com/2016/dam.html"
    root = tmp_path / "web"
    (root / "archive").mkdir(parents=True)
    (root / "archive" / "dam-2016.html").write_text(article_page("إثيوبيا تنفي انهيار السد", DAM), encoding="utf-8")
    (root / "archive" / "dam-2023.html").write_text(article_page("الصفحة غير موجودة", ["عذرا، الصفحة المطلوبة غير متاحة."]),
                                                    encoding="utf-8")
    (root / "archive" / "index.json").write_text(json.dumps({"captures": [
        {"original": url, "timestamp": "20160504101500", "file": "archive/dam-2016.html"},
        {"original": url, "timestamp": "20230101101500", "file": "archive/dam-2023.html"}]}), encoding="utf-8")
    with SnapshotServer(root) as server:
        archive = (server.archive_url, server.availability_url)
        dated = run_article_spider([url], tmp_path / "dated", mirror_base=server.base_url, scrapy_settings=FAST,
                                   archive=archive, archive_days={url: date(2016, 5, 3)})
        undated = run_article_spider([url], tmp_path / "undated", mirror_base=server.base_url, scrapy_settings=FAST,
                                     archive=archive)
        asked = [r.query for r in server.requests if r.path.endswith("/wayback/available")]
    [period], [newest] = read_fetched(dated), read_fetched(undated)
    assert period["copy"] == "archive" and period["captured_at"].startswith("2016-05-04")
    assert period["title"] == "إثيوبيا تنفي انهيار السد"
    assert newest["captured_at"].startswith("2023"), "the emulator answers as archive.org does without a day"
    assert asked == [urlencode({"url": url, "timestamp": "20160503"}), urlencode({"url": url})]


def test_an_archive_copy_dates_from_its_capture_and_a_capture_of_another_page_is_no_copy(tmp_path: Path) -> None:
    # it was: "two days ago" in a 2016 capture was counted from today (outside the claim's window), and
    # a dead article whose capture redirects to the site's home page was stored as the home page
    from urllib.parse import unquote, urlsplit

    from helpers_search import DAM, OLD

    from arastance.base.captures import capture_url

    dated, gone, home = ("https://news.example.com/2016/dam.html", "https://news.example.com/2016/gone.html",
                         "https://news.example.com/")
    root = tmp_path / "web"
    (root / "archive").mkdir(parents=True)
    for name, title, paragraphs in (("dam", "إثيوبيا تنفي انهيار السد", DAM), ("home", "الصفحة الرئيسية", OLD)):
        story = "".join(f"<p>{p}</p>" for p in paragraphs)
        (root / "archive" / f"{name}.html").write_text(
            f'<html><head><meta charset="utf-8"><title>{title}</title></head><body><article><h1>{title}</h1>'
            f'<span class="date">منذ يومين</span>{story}</article></body></html>', encoding="utf-8")
    (root / "archive" / "index.json").write_text(json.dumps({"captures": [
        {"original": dated, "timestamp": "20160504101500", "file": "archive/dam.html"},
        {"original": dated.replace("https://", "http://www."), "timestamp": "20160504101600", "file": "archive/dam.html"},
        {"original": gone, "timestamp": "20160504101500", "file": "archive/dam.html"},
        {"original": home, "timestamp": "20160504101600", "file": "archive/home.html"}]}), encoding="utf-8")
    with SnapshotServer(root) as server:
        # the archive keeps the spelling it crawled: the same page on http://www. is the article's copy
        for url, to in ((gone, home), (dated, dated.replace("https://", "http://www."))):
            moved = capture_url(server.archive_url, "20160504101500", url)
            server.faults[unquote(urlsplit(moved).path)] = {"redirect": capture_url(server.archive_url, "20160504101600", to)}
        out = run_article_spider([dated, gone], tmp_path / "run", mirror_base=server.base_url, scrapy_settings=FAST,
                                 archive=(server.archive_url, server.availability_url),
                                 archive_days={dated: date(2016, 5, 3), gone: date(2016, 5, 3)})
    records = {r["url"]: r for r in read_fetched(out)}
    assert records[dated]["copy"] == "archive" and records[dated]["published_date"] == "2016-05-02"
    assert "id_/http://www.news.example.com/" in records[dated]["fetch_url"]
    assert records[gone]["fetch_error"] == f"http_404: HTTP 404; archive copy: redirected to another page: {home}"
    assert records[gone]["text"] is None
    _, articles = article_rows(records.values(), min_arabic_ratio=0.5, min_text_chars=40)
    assert {a["url"]: a["fetch_status"] for a in articles} == {dated: "ok", gone: "failed"}


def test_without_an_archive_a_dead_link_is_dropped_with_its_reason(tmp_path: Path) -> None:
    with SnapshotServer(snapshot_root()) as server:
        out = run_article_spider(["https://news.example.com/gone.html"], tmp_path / "run",
                                 mirror_base=server.base_url, scrapy_settings=FAST)
    [record] = list(read_fetched(out))
    assert record["copy"] == "live" and record["fetch_error"].startswith("http_404")
