"""Migration 083: the passwords of URLs behind basic authentication that the crawlers and the search
stored before they sent them as such, in the columns migration 082 left alone. The article fetcher's
failures keep no page, only ``articles.fetch_error`` (``fetch_error: ValueError: invalid hostname:
user:password@host``, the article mirror's or the archive's), and after an upgrade to 082 the password
was still in the warehouse and its published copy, for every SQL user. On a DuckDB file and on a
DuckLake (a lake runs the migration's backfill too)."""

from __future__ import annotations

import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
from helpers_lake import lake_env, postgres  # noqa: F401 - the fixtures

from tasks.articles import article_rows
from warehouse import Warehouse, open_warehouse
from warehouse.lake_schema import _lake_backfill
from warehouse.migrate import apply_migrations, available_migrations
from warehouse.publish import published_path
from warehouse.retrieval import store_articles

USER, PASSWORD, PASSWORD_IN_URL = "op", "Ses@me", "Ses%40me"
MIRROR = f"http://{USER}:{PASSWORD_IN_URL}@127.0.0.1:8000/"
WHEN = "2026-12-01T10:00:00+00:00"
#: What the article fetcher recorded before it sent a URL's credentials as basic authentication (Scrapy took
#: ``user:password@host`` for the host); the last one through a proxy, which passed the URL on as it was.
FETCHED_BEFORE_THE_FIX = [
    {"url": "https://news.example.com/a.html", "fetch_url": f"{MIRROR}mirror/news.example.com/a.html",
     "fetched_at": WHEN, "http_status": None,
     "fetch_error": f"fetch_error: ValueError: invalid hostname: {USER}:{PASSWORD_IN_URL}@127.0.0.1"},
    {"url": "https://news.example.com/dead.html", "fetch_url": "https://news.example.com/dead.html",
     "fetched_at": WHEN, "http_status": 404,
     "fetch_error": "http_404: HTTP 404; archive copy: fetch_error: ValueError: invalid hostname: "
                    f"{USER}:{PASSWORD}@127.0.0.1"},
    {"url": "https://news.example.com/moved.html", "fetch_url": f"{MIRROR}archive/web/2016id_/https://x.com/",
     "fetched_at": WHEN, "http_status": 404,
     "fetch_error": f"http_404: HTTP 404; archive copy: not_a_capture: {MIRROR}archive/web/2016id_/https://x.com/"},
    {"url": "https://news.example.com/kept.html",
     "fetch_url": f"{MIRROR}archive/web/20160504101500id_/https://news.example.com/kept.html",
     "fetched_at": WHEN, "http_status": 200, "fetch_error": None, "title": "عنوان", "text": "نص عربي " * 30,
     "html": "<html><body>نص</body></html>", "copy": "archive", "captured_at": "2016-05-04T10:15:00+00:00"},
]


#: An error that holds "word:x@" and no password: an address to write to, a time before a proxy's name.
NO_PASSWORD = "http_403: blocked; contact mailto:abuse@example.org or xmpp:ops@example.org; timeout after 12:30@proxy"


def _store_before_the_fix(wh: Warehouse) -> None:
    """The rows a warehouse at schema 081 held: the article fetcher's, a site crawl's failed page whose error
    names another URL than its own, and a search backend's error naming its URL."""
    pages, articles = article_rows(FETCHED_BEFORE_THE_FIX, min_arabic_ratio=0.5, min_text_chars=40, run_id="r1")
    store_articles(wh, pages, articles)
    when = datetime(2026, 12, 1)
    wh.insert_rows("raw_pages", [{
        "page_id": "redirected", "url": "http://127.0.0.1:8000/norumors/", "fetched_at": when, "content_hash": "",
        "parse_status": "failed", "html_zlib": zlib.compress(b""),
        "parse_error": f"fetch_error: ValueError: invalid hostname: {USER}:{PASSWORD_IN_URL}@mirror.local"}, {
        "page_id": "no-password", "url": "http://127.0.0.1:8000/norumors/x/", "fetched_at": when,
        "content_hash": "", "parse_status": "failed", "html_zlib": zlib.compress(b""), "parse_error": NO_PASSWORD}])
    wh.insert_rows("claim_retrieval", [{
        "claim_id": "c1", "backend": "searxng", "status": "failed", "updated_at": when,
        "error": "searxng search: Client error '401 Unauthorized' for url "
                 f"'http://admin:{PASSWORD_IN_URL}@127.0.0.1:8888/search?q=x'"}])


def _text_columns(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """Every column of every table that holds text: VARCHAR, lists of it, JSON, maps."""
    return con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name IN (SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database()) "
        "AND (data_type LIKE '%VARCHAR%' OR data_type LIKE '%JSON%') ORDER BY ALL").fetchall()


def _passwords_shown(con: duckdb.DuckDBPyConnection) -> list[str]:
    """``table.column: value`` of every stored text that holds a password."""
    shown = []
    for table, column in _text_columns(con):
        text = f'CAST("{column}" AS VARCHAR)'
        query = f'SELECT {text} FROM "{table}" WHERE contains({text}, ?) OR contains({text}, ?)'
        found = con.execute(query, [PASSWORD, PASSWORD_IN_URL]).fetchall()
        shown += [f"{table}.{column}: {value}" for (value,) in found]
    return shown


def _contents(con: duckdb.DuckDBPyConnection) -> dict[str, list[Any]]:
    """Every row of every table."""
    tables = [t for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY ALL").fetchall()]
    return {t: sorted(map(repr, con.execute(f'SELECT * FROM "{t}"').fetchall())) for t in tables}


@pytest.mark.parametrize("backend", ["duckdb", pytest.param("ducklake", marks=pytest.mark.slow)])
def test_passwords_that_082_left_are_hidden_by_the_upgrade_once(backend: str, tmp_path: Path,
                                                                request: pytest.FixtureRequest) -> None:
    if backend == "ducklake":
        request.getfixturevalue("lake_env")
    path = tmp_path / "warehouse.duckdb" if backend == "duckdb" else None
    with open_warehouse(path, migrate=False) as wh:
        apply_migrations(wh, up_to=81)
        _store_before_the_fix(wh)
        assert apply_migrations(wh, up_to=82) == [82]
        # the articles' three errors and capture, the failed page's error, the search error
        assert len(_passwords_shown(wh.con)) == 6
        assert apply_migrations(wh) == [83]
        assert _passwords_shown(wh.con) == []
        errors = dict(wh.con.execute("SELECT url, fetch_error FROM articles").fetchall())
        captures = [c for (c,) in wh.con.execute("SELECT capture_url FROM articles WHERE capture_url IS NOT NULL")
                    .fetchall()]
        [search_error] = [e for (e,) in wh.con.execute("SELECT error FROM claim_retrieval").fetchall()]
        assert wh.scalar("SELECT parse_error FROM raw_pages WHERE page_id = 'no-password'") == NO_PASSWORD
        upgraded = _contents(wh.con)
    hidden = f"http://{USER}:****@127.0.0.1:8000/"
    assert errors == {
        "https://news.example.com/a.html": f"fetch_error: ValueError: invalid hostname: {USER}:****@127.0.0.1",
        "https://news.example.com/dead.html":
            f"http_404: HTTP 404; archive copy: fetch_error: ValueError: invalid hostname: {USER}:****@127.0.0.1",
        "https://news.example.com/moved.html":
            f"http_404: HTTP 404; archive copy: not_a_capture: {hidden}archive/web/2016id_/https://x.com/",
        "https://news.example.com/kept.html": None}
    assert captures == [f"{hidden}archive/web/20160504101500id_/https://news.example.com/kept.html"]
    assert "'http://admin:****@127.0.0.1:8888/search?q=x'" in search_error
    if path is not None:  # the readers' copy, published as the upgrade closed
        with duckdb.connect(str(published_path(path)), read_only=True) as published:
            assert _contents(published) == upgraded
    # opened again, nothing changes; and its statements, run again, change nothing either
    with open_warehouse(path) as wh:
        assert _contents(wh.con) == upgraded
        [migration] = [m for m in available_migrations() if m.version == 83]
        with wh.transaction() as con:
            for statement in _lake_backfill(migration.sql):
                con.execute(statement)
        assert _contents(wh.con) == upgraded
        assert wh.scalar("SELECT max(version) FROM schema_version") == 83
