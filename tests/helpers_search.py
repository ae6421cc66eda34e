"""Local stand-ins for the web search APIs (real HTTP on 127.0.0.1) and small corpus builders."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

import pytest

from arastance.config import load_settings
from warehouse import open_warehouse


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class SeenRequest:
    path: str
    params: dict[str, str]
    headers: dict[str, str]


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1, serving only inside :meth:`running`."""

    _httpd: ThreadingHTTPServer

    @contextmanager
    def running(self) -> Iterator[Self]:
        thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()


class ApiServer(LoopbackServer):
    """An HTTP server whose answers come from ``handler(request) -> Reply``; it logs every request."""

    def __init__(self, handler: Callable[[SeenRequest], Reply]) -> None:
        self.handler = handler
        self.requests: list[SeenRequest] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parts = urlsplit(self.path)
                seen = SeenRequest(parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()},
                                   {k.lower(): v for k, v in self.headers.items()})
                server.requests.append(seen)
                reply = server.handler(seen)
                payload = json.dumps(reply.body, ensure_ascii=False).encode() if reply.body is not None else b""
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"


def google_items(query: str, start: int, num: int, total: int) -> list[dict[str, Any]]:
    """Google ``items`` for results ``start``..: links that encode the query and the position."""
    return [
        {
            "kind": "customsearch#result",
            "title": f"نتيجة {i} عن {query}",
            "link": f"https://news{i % 3}.example.com/article/{i}",
            "displayLink": f"news{i % 3}.example.com",
            "snippet": f"مقتطف الخبر رقم {i}",
            "pagemap": {"metatags": [{"og:type": "article", "article:published_time": f"2016-05-{(i % 28) + 1:02d}T08:00:00Z"}]},
        }
        for i in range(start, min(start + num, total + 1))
    ]


def google_body(query: str, start: int, num: int, total: int) -> dict[str, Any]:
    items = google_items(query, start, num, total)
    body: dict[str, Any] = {
        "kind": "customsearch#search",
        "queries": {"request": [{"searchTerms": query, "startIndex": start, "count": num}]},
        "searchInformation": {"totalResults": str(total)},
    }
    if items:
        body["items"] = items
    return body


def google_error(code: int, message: str, reason: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message,
                      "errors": [{"message": message, "domain": "global", "reason": reason}], "status": "X"}}


def brave_body(query: str, offset: int, count: int, total: int) -> dict[str, Any]:
    first = offset * count + 1
    results = [
        {"title": f"خبر <strong>{query}</strong> {i}", "url": f"https://brave{i % 2}.example.org/n/{i}",
         "description": f"وصف <strong>الخبر</strong> {i}", "page_age": f"2016-06-{(i % 28) + 1:02d}T10:00:00",
         "age": "May 3, 2016"}
        for i in range(first, min(first + count, total + 1))
    ]
    return {"type": "search", "query": {"original": query, "more_results_available": first + count <= total},
            "web": {"type": "search", "results": results}}


def brave_error(status: int, code: str, detail: str) -> dict[str, Any]:
    return {"type": "ErrorResponse", "error": {"id": "x", "status": status, "code": code, "detail": detail, "meta": {}}}


def serpapi_body(query: str, start: int, total: int, page_size: int = 10) -> dict[str, Any]:
    """A SerpApi Google answer with results ``start+1``..; "Fully empty" past the last one."""
    meta = {"id": "x", "status": "Success", "json_endpoint": "https://serpapi.com/searches/x.json"}
    items = [
        {"position": i - start, "title": f"خبر {i} عن {query}", "link": f"https://serp{i % 3}.example.com/n/{i}",
         "displayed_link": f"serp{i % 3}.example.com › n", "snippet": f"مقتطف {i}", "date": f"May {(i % 28) + 1}, 2016"}
        for i in range(start + 1, min(start + page_size, total) + 1)
    ]
    if not items:
        return {"search_metadata": meta, "search_parameters": {"engine": "google", "q": query},
                "search_information": {"organic_results_state": "Fully empty"},
                "error": "Google hasn't returned any results for this query."}
    body: dict[str, Any] = {"search_metadata": meta, "search_parameters": {"engine": "google", "q": query},
                            "organic_results": items, "serpapi_pagination": {"current": start // page_size + 1}}
    if start + page_size < total:
        body["serpapi_pagination"]["next"] = f"https://serpapi.com/search.json?start={start + page_size}"
    return body


def searxng_body(query: str, page: int, total: int, page_size: int = 8,
                 unresponsive: list[list[str]] | None = None) -> dict[str, Any]:
    """A SearXNG JSON answer with results of page ``page`` (1-based)."""
    first = (page - 1) * page_size + 1
    results = [
        {"url": f"https://sx{i % 2}.example.net/a/{i}", "title": f"عنوان {i} {query}", "content": f"محتوى {i}",
         "engine": "bing", "engines": ["bing"], "score": 1.0 / i, "category": "general",
         "publishedDate": f"2016-05-{(i % 28) + 1:02d}T00:00:00" if i % 2 else None}
        for i in range(first, min(first + page_size, total + 1))
    ]
    return {"query": query, "number_of_results": 0, "results": results, "answers": [], "corrections": [],
            "infoboxes": [], "suggestions": [], "unresponsive_engines": unresponsive or []}


class SiteServer(LoopbackServer):
    """Serves files under ``root`` over HTTP; ``statuses`` maps a path to a forced error status,
    ``content_types`` a path to the Content-Type it is sent with (default: HTML in UTF-8)."""

    def __init__(self, root: Path, statuses: dict[str, int] | None = None,
                 content_types: dict[str, str] | None = None) -> None:
        self.root = root
        self.statuses = statuses or {}
        self.content_types = content_types or {}
        self.paths: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                path = urlsplit(self.path).path
                site.paths.append(path)
                status = site.statuses.get(path)
                file = site.root / path.lstrip("/")
                if file.is_dir():
                    file = file / "index.html"
                if status is None and not file.is_file():
                    status = 404
                body = b"error" if status else file.read_bytes()
                ctype = site.content_types.get(path) or ("text/plain" if path.endswith(".txt") else "text/html; charset=utf-8")
                self.send_response(status or 200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/"


# Four archived stories (two Arabic news items, an old Arabic item, an English copy) for the
# historical-index tests: WARC records and stored captures.
DAM = ["نفت الحكومة الإثيوبية الأنباء عن انهيار سد النهضة بعد الأمطار الغزيرة التي شهدتها المنطقة هذا الأسبوع.",
       "وأكدت وزارة المياه أن السد سليم وأن أعمال البناء تسير وفق الخطة الموضوعة منذ البداية دون أي تأخير."]
FLU = ["نفت وزارة الصحة المصرية ما تردد عن إغلاق المدارس بسبب انتشار الإنفلونزا في القاهرة والجيزة.",
       "وقال المتحدث باسم الوزارة إن الدراسة مستمرة بشكل طبيعي وإن الحالات المسجلة محدودة للغاية ولا تدعو للقلق."]
OLD = ["أعلنت البلدية افتتاح حديقة عامة جديدة في وسط المدينة بحضور عدد كبير من السكان والمسؤولين المحليين.",
       "وتضم الحديقة ملاعب للأطفال ومسارات للمشي وأشجارا نادرة جلبت من مناطق مختلفة من البلاد والخارج."]
EN = ["The Ethiopian government denied reports that the dam collapsed after heavy rains in the region this week.",
      "The water ministry said the dam is intact and construction is proceeding according to the plan."]


def article_page(title: str, paragraphs: list[str], published: str = "2016-05-03") -> str:
    """A news page with navigation, a share bar and a footer around the story."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f'<!doctype html><html lang="ar"><head><meta charset="utf-8"><title>{title} | موقع</title>'
            f'<meta property="article:published_time" content="{published}T08:00:00Z"></head><body>'
            '<nav class="menu"><a href="/">الرئيسية</a><a href="/x">أخبار</a></nav>'
            f'<article><h1>{title}</h1><div class="share">شارك الخبر</div><div class="content">{body}</div></article>'
            "<footer><p>جميع الحقوق محفوظة للموقع ولا يجوز النقل دون إذن</p></footer></body></html>")


def write_mirror_page(root: Path, url: str, html: str) -> None:
    """Put ``html`` where the offline mirror serves ``url`` (``mirror/<domain>/<path>``)."""
    parts = urlsplit(url)
    target = root / "mirror" / parts.netloc / parts.path.lstrip("/")
    if url.endswith("/"):
        target = target / "index.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")


SEEN = datetime(2024, 1, 1)


def false_claim_row(claim_id: str, text: str, day: date | None, source_id: str = "dabegad") -> dict[str, Any]:
    """A ``claims`` row of an active false claim, as the crawl loader writes it."""
    url = f"https://{source_id}.example/{claim_id}/"
    return {"claim_id": claim_id, "source_id": source_id, "url": url, "canonical_url": url.rstrip("/"),
            "title": text, "raw_text": text, "cleaned_text": text, "veracity": "false", "published_date": day,
            "first_seen": SEEN, "last_seen": SEEN, "status": "active"}


#: The message of Google's 429 when a key's daily quota is spent.
GOOGLE_DAILY_QUOTA = ("Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service "
                      "'customsearch.googleapis.com'.")


class GoogleDailyQuota:
    """Google answering ``quota`` requests (pages of results) a day, ``total`` results a query,
    then 429 RESOURCE_EXHAUSTED 'Queries per day', as the real API does when a key's daily quota
    is spent. It keeps each request answered as (query, first result, date sort) and counts those
    refused."""

    def __init__(self, quota: int, total: int = 3) -> None:
        self.quota, self.total = quota, total
        self.answered: list[tuple[str, str, str]] = []
        self.refused = 0
        self._lock = threading.Lock()

    def pages(self, query: str) -> int:
        """How many different pages of ``query``'s results were answered."""
        return len({start for q, start, _ in self.answered if q == query})

    def __call__(self, request: SeenRequest) -> Reply:
        with self._lock:
            if len(self.answered) >= self.quota:
                self.refused += 1
                body = google_error(429, GOOGLE_DAILY_QUOTA, "rateLimitExceeded")
                body["error"]["status"] = "RESOURCE_EXHAUSTED"
                return Reply(429, body)
            self.answered.append((request.params["q"], request.params["start"], request.params.get("sort", "")))
        return Reply(body=google_body(request.params["q"], int(request.params["start"]), 10, self.total))


def search_env(monkeypatch: pytest.MonkeyPatch, **settings: str) -> None:
    """Set the search settings a run reads (``ARASTANCE_SEARCH__<NAME>``: a backend's key and local
    endpoint, say), with retry waits of 10 ms unless ``settings`` names its own."""
    for name, value in {"BACKOFF_S": "0.01", **settings}.items():
        monkeypatch.setenv(f"ARASTANCE_SEARCH__{name.upper()}", value)


def store_false_claims(texts: list[str]) -> None:
    """Store ``texts`` in the configured warehouse as active false claims ``c0``, ``c1``, ... dated from
    2016-05-01 a day apart (inside the demo world's period)."""
    with open_warehouse(load_settings().warehouse) as wh:
        wh.insert_rows("claims", [false_claim_row(f"c{i}", text, date(2016, 5, 1 + i)) for i, text in enumerate(texts)])


def write_warc(path: Path, pages: list[tuple[str, int, str, bytes]], *, gzip: bool = True) -> Path:
    """A WARC file of ``(target URI, HTTP status, content type, body)`` response records, each
    preceded by its request record, written with warcio as a crawler would."""
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=gzip)
        for uri, status, ctype, body in pages:
            request = writer.create_warc_record(uri, "request", payload=BytesIO(b""),
                                                http_headers=StatusAndHeaders("GET / HTTP/1.1", [("Host", "x")],
                                                                              is_http_request=True))
            writer.write_record(request)
            headers = StatusAndHeaders(f"{status} {'OK' if status == 200 else 'Not Found'}",
                                       [("Content-Type", ctype), ("Content-Length", str(len(body)))],
                                       protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(uri, "response", payload=BytesIO(body), http_headers=headers))
    return path


@contextmanager
def raw_answers(body: bytes, *, status: int = 200, content_type: str = "application/json",
                content_encoding: str | None = None) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A server answering every GET with ``body`` as it is (ApiServer encodes its bodies): its URL, and
    the headers of the requests it got."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            seen.append({k.lower(): v for k, v in self.headers.items()})
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if content_encoding:
                self.send_header("Content-Encoding", content_encoding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/answer", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
