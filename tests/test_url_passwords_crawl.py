"""A configured URL with ``user:password@`` (a site's mirror, an archive, the article mirror behind basic
authentication): the crawlers send the credentials as basic authentication and request, log and store
every page under its URL without them. Scrapy took ``user:password@host`` for the host, so every request
failed, and the page, its error (``invalid hostname: user:password@host``) and ``sources.base_url`` kept
the password in the warehouse, the crawl log and the Prefect run's log, where the error's form of it
(no scheme) escaped the redaction."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from helpers_search import LoopbackServer, SiteServer, article_page, write_mirror_page

from arastance.base.environment import environment_overridden
from arastance.base.secrets import split_url_credentials
from arastance.config import load_settings
from snapshots.offline import offline_overrides
from snapshots.server import serve_snapshots
from tasks.articles import read_fetched, run_article_spider
from tasks.claim_load.load import load_crawl_run
from tasks.crawl_runner import CrawlError, run_spider
from warehouse import open_warehouse

USER, PASSWORD, PASSWORD_IN_URL = "op", "Ses@me", "Ses%40me"  # letters and a sign: unregistered, a URL's form only
#: The interrupted crawl: robots.txt is fetched a few seconds after the start, the start page a download delay
#: later; the stop comes in between, and the graceful stop waits for the start page, whose redirect goes to
#: the resumable queue while the closing crawl sends nothing more (well inside the launcher's 30 s of grace).
STOP_AFTER_S, SLOW_DELAY_S = 15, 25
FAST = {"DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_ENABLED": False, "RETRY_TIMES": 1, "RETRY_BACKOFF_BASE": 0.01}


class BasicAuthGate(LoopbackServer):
    """A server on 127.0.0.1 passing each GET on to ``upstream`` when it carries the basic authentication
    of ``USER`` and ``password`` (its UTF-8 bytes, as RFC 7617 asks; 401 otherwise), as a mirror behind a
    password does; ``required`` off, it passes every GET on. It records each request's path and
    ``Authorization`` header in ``seen``. An authenticated request for a path in ``redirects`` is sent to its
    target (302); with ``unavailable_once``, the first authenticated request for each path gets a 503."""

    def __init__(self, upstream: str, password: str = PASSWORD, *, unavailable_once: bool = False) -> None:
        self.upstream = upstream.rstrip("/")
        self.password = password
        self.required = True
        self.redirects: dict[str, str] = {}
        self.seen: list[tuple[str, str | None]] = []
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the server's name
                authorization = self.headers.get("Authorization")
                answered_before = {path for path, auth in gate.seen if auth == gate.expected}
                gate.seen.append((self.path, authorization))
                if gate.required and authorization != gate.expected:
                    self._answer(401, b"", "text/plain", {"WWW-Authenticate": 'Basic realm="mirror"'})
                elif self.path in gate.redirects:
                    self._answer(302, b"", "text/plain", {"Location": gate.redirects[self.path]})
                elif unavailable_once and self.path not in answered_before:
                    self._answer(503, b"", "text/plain")
                else:
                    self._pass_on()

            def _pass_on(self) -> None:
                try:
                    with urllib.request.urlopen(gate.upstream + self.path) as answer:  # noqa: S310 (loopback)
                        self._answer(answer.status, answer.read(), answer.headers.get("Content-Type", "text/html"))
                except urllib.error.HTTPError as exc:
                    self._answer(exc.code, exc.read(), exc.headers.get("Content-Type", "text/html"))

            def _answer(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in {"Content-Type": ctype, "Content-Length": str(len(body)), **(headers or {})}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def expected(self) -> str:
        """The ``Authorization`` header the gate lets through."""
        return "Basic " + base64.b64encode(f"{USER}:{self.password}".encode()).decode()

    def url(self, path: str, *, credentials: bool = True) -> str:
        userinfo = f"{USER}:{quote(self.password, safe='')}@" if credentials else ""
        return f"http://{userinfo}127.0.0.1:{self._httpd.server_address[1]}/{path}"


def _password_shown(text: str) -> bool:
    return PASSWORD in text or PASSWORD_IN_URL in text


def test_a_url_is_split_from_its_credentials_percent_decoded() -> None:
    assert split_url_credentials("http://op:Ses%40me@127.0.0.1:8000/norumors/?a=b") == \
        ("http://127.0.0.1:8000/norumors/?a=b", ("op", "Ses@me"))
    assert split_url_credentials("https://u@x.com/") == ("https://x.com/", ("u", ""))
    assert split_url_credentials("https://x.com/a@b") == ("https://x.com/a@b", None)


def _crawl_and_load(incremental: bool) -> tuple[Any, dict[str, Any]]:
    settings = load_settings()
    result = run_spider("norumors", settings, incremental=incremental, timeout_s=120)
    with open_warehouse(settings.warehouse) as wh:
        load_crawl_run(wh, result.run_dir, settings=settings)
        stored = {
            "claims": wh.scalar("SELECT count(*) FROM claims"),
            "urls": wh.scalar("SELECT count(DISTINCT url) FROM raw_pages"),
            "texts": [str(v) for row in wh.query("SELECT url, parse_error FROM raw_pages UNION ALL "
                                                 "SELECT base_url, name FROM sources") for v in row.values()],
        }
    return result, stored


def test_a_site_behind_basic_authentication_is_crawled_and_stored_without_its_password(tmp_path: Path) -> None:
    """The same pages crawled without credentials (the gate open) are the same pages, not new ones."""
    with serve_snapshots() as server, BasicAuthGate(server.base_url).running() as gate:
        site = server.site_url("norumors").removeprefix(server.base_url)
        with environment_overridden({**offline_overrides(server), "ARASTANCE_SITES__NORUMORS": gate.url(site)}):
            result, first = _crawl_and_load(incremental=False)
        gate.required = False
        with environment_overridden({**offline_overrides(server),
                                     "ARASTANCE_SITES__NORUMORS": gate.url(site, credentials=False)}):
            _, second = _crawl_and_load(incremental=False)
    assert result.summary["items"] > 0 and first["claims"] == result.summary["items"]
    assert {auth for _, auth in gate.seen[:result.summary["pages"]]} == {gate.expected}
    assert not any(_password_shown(text) for text in first["texts"])
    assert "http://127.0.0.1:" in " ".join(first["texts"])  # sources.base_url: the mirror, without credentials
    shown = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".log", ".out", ".jsonl", ".json")
             and _password_shown(p.read_text(encoding="utf-8", errors="replace"))]
    assert shown == []
    assert second["claims"] == first["claims"] and second["urls"] == first["urls"]


def _files_holding(root: Path, forms: list[bytes]) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and any(form in p.read_bytes() for form in forms)]


@pytest.mark.parametrize(("password", "in_url"), [("كلمةسر", "كلمةسر"), ("pässwörd", "p%C3%A4ssw%C3%B6rd")])
def test_a_password_beyond_ascii_is_sent_as_utf8_and_shown_nowhere(tmp_path: Path, password: str, in_url: str) -> None:
    """It was: the Arabic one failed the crawl with a UnicodeEncodeError (Scrapy's helper encodes latin-1) whose
    text, ``op:كلمةسر``, stood in the crawl log and the crawl's error; ``pässwörd`` was sent as latin-1 bytes,
    which a server reading UTF-8 (curl sends it so) turned away with a 401."""
    with serve_snapshots() as server, BasicAuthGate(server.base_url, password).running() as gate:
        site = server.site_url("norumors").removeprefix(server.base_url)
        url = gate.url(site).replace(quote(password, safe=""), in_url)
        with environment_overridden({**offline_overrides(server), "ARASTANCE_SITES__NORUMORS": url}):
            result, stored = _crawl_and_load(incremental=False)
    assert result.summary["items"] > 0 and stored["claims"] == result.summary["items"]
    assert {auth for _, auth in gate.seen} == {gate.expected}
    forms = [password, quote(password, safe=""), in_url]
    assert _files_holding(tmp_path, [form.encode() for form in forms]) == []


def test_an_interrupted_crawl_keeps_no_credentials_in_its_job_directory_and_resumes_with_the_new_password(
        tmp_path: Path) -> None:
    """The start page redirects within the site and the crawl is stopped while the redirect's request waits
    in the resumable queue (``JOBDIR``). It was: that copy of the request kept the ``Authorization`` header,
    password in base64, on disk; and the resumed crawl sent that old header after the password changed (401)."""
    old_token = base64.b64encode(f"{USER}:{PASSWORD}".encode())
    with serve_snapshots() as server, BasicAuthGate(server.base_url).running() as gate:
        site = server.site_url("norumors").removeprefix(server.base_url)
        gate.redirects = {f"/{site}": f"/{site}?p=1"}
        with environment_overridden({**offline_overrides(server), "ARASTANCE_SITES__NORUMORS": gate.url(site)}):
            settings = load_settings()
            with pytest.raises(CrawlError, match="was stopped"):
                run_spider("norumors", settings, incremental=False, timeout_s=STOP_AFTER_S,
                           scrapy_settings={"DOWNLOAD_DELAY": SLOW_DELAY_S, "AUTOTHROTTLE_ENABLED": False})
        assert _files_holding(settings.crawl_jobs_dir, [f"/{site}?p=1".encode()])  # the redirect's copy was kept
        assert _files_holding(settings.crawl_jobs_dir, [b"Authorization", old_token, PASSWORD.encode()]) == []
        first_session = len(gate.seen)
        gate.password = "Changed-1"
        with environment_overridden({**offline_overrides(server), "ARASTANCE_SITES__NORUMORS": gate.url(site)}):
            result, stored = _crawl_and_load(incremental=False)
    assert result.resumed and result.summary["items"] > 0
    resumed = gate.seen[first_session:]
    assert (f"/{site}?p=1", gate.expected) in resumed and {auth for _, auth in resumed} == {gate.expected}


def test_the_credentials_go_with_a_redirect_within_the_site_and_with_each_retry(tmp_path: Path) -> None:
    """Sent only while a request is in the downloader, the header is put on the redirect's request and each
    retry again: the start page redirects, and every page answers 503 once."""
    with serve_snapshots() as server, BasicAuthGate(server.base_url, unavailable_once=True).running() as gate:
        site = server.site_url("norumors").removeprefix(server.base_url)
        gate.redirects = {f"/{site}": f"/{site}?p=1"}
        with environment_overridden({**offline_overrides(server), "ARASTANCE_SITES__NORUMORS": gate.url(site)}):
            result, stored = _crawl_and_load(incremental=False)
    assert result.summary["items"] > 0 and stored["claims"] == result.summary["items"]
    assert {auth for _, auth in gate.seen} == {gate.expected}
    paths = [path for path, _ in gate.seen]
    assert f"/{site}?p=1" in paths and len(paths) > len(set(paths)) + 1  # the redirect followed, pages retried


def test_the_article_mirror_behind_basic_authentication_is_fetched_and_recorded_without_its_password(
        tmp_path: Path) -> None:
    url = "https://news.example.com/2016/05/medicine-stocks/"
    write_mirror_page(tmp_path / "site", url, article_page("الصحة تنفي نقص الأدوية", ["نص " * 30]))
    with SiteServer(tmp_path / "site").running() as site, BasicAuthGate(site.base_url).running() as gate:
        out = run_article_spider([url], tmp_path / "run", mirror_base=gate.url(""), scrapy_settings=FAST)
    [record] = read_fetched(out)
    assert record["fetch_error"] is None and record["title"] == "الصحة تنفي نقص الأدوية"
    assert record["fetch_url"] == gate.url("mirror/news.example.com/2016/05/medicine-stocks/", credentials=False)
    assert not _password_shown((tmp_path / "run" / "scrapy.log").read_text(encoding="utf-8"))


def test_passwords_stored_before_the_fix_are_hidden_by_the_upgrade(tmp_path: Path) -> None:
    """A warehouse written by a crawl of a URL with ``user:password@`` before the crawlers sent it as basic
    authentication: its ``sources.base_url`` (never rewritten: insert-or-ignore) and its failed pages held the
    password for every SQL user."""
    from datetime import datetime

    from warehouse.migrate import apply_migrations

    secret_url = f"http://{USER}:{PASSWORD_IN_URL}@127.0.0.1:8000/norumors/"
    with open_warehouse(tmp_path / "old.duckdb", migrate=False) as wh:
        apply_migrations(wh, up_to=81)
        wh.insert_rows("sources", [{"source_id": "norumors", "name": "Norumors", "kind": "fact_check",
                                    "base_url": secret_url, "default_veracity": "false"},
                                   {"source_id": "reuters", "name": "Reuters", "kind": "news",
                                    "base_url": "https://www.reuters.com/?q=a@b", "default_veracity": "true"}])
        when = datetime(2026, 12, 1)
        wh.insert_rows("raw_pages", [
            {"page_id": "failed", "url": secret_url, "fetched_at": when, "content_hash": "", "parse_status": "failed",
             "parse_error": f"fetch_error: ValueError: invalid hostname: {USER}:{PASSWORD_IN_URL}@127.0.0.1"},
            {"page_id": "fine", "url": "http://127.0.0.1:8000/norumors/", "fetched_at": when, "content_hash": "",
             "parse_status": "failed", "parse_error": "fetch_error: 404"},
            # the same page failed again after the password was changed: one address once both are hidden
            # (it was: UNIQUE (url, content_hash) broken, the upgrade rolled back and the warehouse unopenable)
            {"page_id": "failed-again", "url": secret_url.replace(PASSWORD_IN_URL, "Changed1"),
             "fetched_at": datetime(2026, 12, 2), "content_hash": "", "parse_status": "failed",
             "parse_error": f"fetch_error: ValueError: invalid hostname: {USER}:Changed1@127.0.0.1"}])
        assert apply_migrations(wh, up_to=82) == [82]
        sources = dict(wh.con.execute("SELECT source_id, base_url FROM sources").fetchall())
        pages = {r[0]: r[1:] for r in wh.con.execute("SELECT page_id, url, parse_error FROM raw_pages").fetchall()}
    assert sources == {"norumors": "http://127.0.0.1:8000/norumors/", "reuters": "https://www.reuters.com/?q=a@b"}
    assert pages == {
        "failed": (f"http://{USER}:****@127.0.0.1:8000/norumors/",
                   f"fetch_error: ValueError: invalid hostname: {USER}:****@127.0.0.1"),
        "fine": ("http://127.0.0.1:8000/norumors/", "fetch_error: 404")}
