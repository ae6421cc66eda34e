"""A local stand-in for the Wayback Machine, served by :class:`snapshots.server.SnapshotServer`.

It speaks the same protocol as the real archive, under ``/archive/`` on the snapshot server:

- ``/archive/cdx/search/cdx``: the CDX API with ``url`` (exact, or ``host/*`` / ``matchType=prefix``),
  ``from``/``to`` (timestamp prefixes), ``filter`` (``field:regex``, ``!field:regex``), ``collapse``,
  ``fl``, ``output=json`` (a header row first), ``limit`` with ``showResumeKey``/``resumeKey``;
- ``/archive/web/<timestamp>id_/<original>``: a capture's original bytes; a timestamp it does not
  hold exactly, or a capture recorded as a redirect, answers 302 to the capture to read; a capture
  listed in the index but lost answers 404;
- ``/archive/wayback/available?url=&timestamp=``: the availability API (the capture closest to
  ``timestamp``; without one, the newest);
- every ``rate_limit_every``-th request answers 429 (``Retry-After: 0``), as the real archive does
  to busy clients.

The captures come from ``archive/index.json``, written by :mod:`snapshots.build`: the snapshot
pages, each under the real site's URL and a capture time in the paper's 2012–2018 period.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from arastance.base.urls import UrlError, canonicalize_url

INDEX_FILE = "archive/index.json"
PREFIX = "/archive/"
_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")


@dataclass(frozen=True)
class ArchivedCapture:
    """One capture in the emulator's index; ``file`` None means listed but lost."""

    original: str
    timestamp: str
    file: str | None
    statuscode: str = "200"
    mimetype: str = "text/html"
    digest: str = ""
    redirect_to: str | None = None

    @property
    def urlkey(self) -> str:
        return urlkey(self.original)

    def field(self, name: str) -> str:
        if name == "urlkey":
            return self.urlkey
        if name == "length":
            return "0"
        return str(getattr(self, name))


@dataclass(frozen=True)
class Answer:
    """What the emulator answers: status, body, content type and headers."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


def urlkey(url: str) -> str:
    """The SURT-style sort key the CDX server uses: ``net,norumors)/rumors/561``."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    key = ",".join(reversed(host.split("."))) + ")" + (parts.path.rstrip("/").lower() or "/")
    return key + ("?" + parts.query.lower() if parts.query else "")


def _lookup_key(url: str) -> str:
    try:
        return canonicalize_url(url).split("://", 1)[1]
    except UrlError:
        return url


def _stamp(ts: str) -> datetime:
    return datetime.strptime((ts + "00000101000000"[len(ts):])[:14], "%Y%m%d%H%M%S")


class WaybackEmulator:
    """Answers archive requests from the index under a snapshot root."""

    def __init__(self, root: Path, *, rate_limit_every: int = 0) -> None:
        index = json.loads((Path(root) / INDEX_FILE).read_text(encoding="utf-8"))
        self.root = Path(root)
        self.captures = sorted((ArchivedCapture(**c) for c in index["captures"]), key=lambda c: (c.urlkey, c.timestamp))
        self._keys = [(c.urlkey, c.timestamp) for c in self.captures]
        self.by_url: dict[str, list[ArchivedCapture]] = {}
        for capture in self.captures:
            self.by_url.setdefault(_lookup_key(capture.original), []).append(capture)
        #: 0: never; N: every N-th archive request answers 429 (may be changed while serving).
        self.rate_limit_every = rate_limit_every
        self._count = 0
        self._lock = threading.Lock()

    def limit_rate(self, every: int) -> None:
        """From now on every ``every``-th request answers 429 (0: none); the count starts again."""
        with self._lock:
            self.rate_limit_every, self._count = every, 0

    # -- dispatch ------------------------------------------------------------------------------
    def answer(self, raw_path: str, host: str) -> Answer:
        """The answer to a request for ``raw_path`` (path and query, as sent) on the server ``host``."""
        with self._lock:
            self._count += 1
            limited = self.rate_limit_every and self._count % self.rate_limit_every == 0
        if limited:
            return Answer(429, b"Too Many Requests", "text/plain", (("Retry-After", "0"),))
        parts = urlsplit(raw_path)
        path = parts.path[len(PREFIX) - 1:]
        if path == "/cdx/search/cdx":
            return self.cdx(parse_qs(parts.query, keep_blank_values=True))
        if path == "/wayback/available":
            return self.available(parse_qs(parts.query), host)
        match = re.match(r"^/web/(\d{1,14})(?:[a-z]{2}_)?/(.+)$", raw_path[len(PREFIX) - 1:])
        if match:
            return self.capture(match[1], re.sub(r"^(https?):/(?!/)", r"\1://", match[2]))
        return Answer(404, b"not an archive address", "text/plain")

    # -- CDX -----------------------------------------------------------------------------------
    def cdx(self, q: dict[str, list[str]]) -> Answer:
        url = (q.get("url") or [""])[0]
        if not url:
            return Answer(400, b"missing url parameter", "text/plain")
        prefix = url.endswith("*") or (q.get("matchType") or [""])[0] == "prefix"
        key = urlkey(url.rstrip("*"))
        key = key.rstrip("/") if prefix else key
        fields = ((q.get("fl") or [""])[0].split(",")) if q.get("fl") else list(_FIELDS)
        unknown = [f for f in fields if f not in _FIELDS]
        if unknown:
            return Answer(400, f"unknown field(s) {unknown}".encode(), "text/plain")
        start, last = 0, None
        resume = (q.get("resumeKey") or [""])[0]
        if resume:
            try:
                rkey, rts = base64.urlsafe_b64decode(resume.encode()).decode().split(" ", 1)
            except ValueError:
                return Answer(400, b"bad resumeKey", "text/plain")
            start = bisect_right(self._keys, (rkey, rts))
            last = next((c for c in self.captures if (c.urlkey, c.timestamp) == (rkey, rts)), None)
        low, high = (q.get("from") or [""])[0], (q.get("to") or [""])[0]
        filters = [(f.startswith("!"), *f.lstrip("!").split(":", 1)) for f in q.get("filter", [])]
        collapse = (q.get("collapse") or [""])[0].split(":")[0] or None
        limit = int((q.get("limit") or ["0"])[0] or 0)
        rows: list[list[str]] = []
        previous = last.field(collapse) if (collapse and last) else None
        emitted: ArchivedCapture | None = None
        for capture in self.captures[start:]:
            ck = capture.urlkey
            if not (ck.startswith(key) if prefix else ck == key):
                continue
            if low and capture.timestamp[:len(low)] < low or high and capture.timestamp[:len(high)] > high:
                continue
            if any(bool(re.fullmatch(rx, capture.field(name))) == neg for neg, name, rx in filters):
                continue
            if collapse:
                value = capture.field(collapse)
                if value == previous:
                    continue
                previous = value
            if limit and len(rows) == limit:
                break
            rows.append([capture.field(f) for f in fields])
            emitted = capture
        more = bool(limit) and len(rows) == limit and emitted is not None
        payload: list[list[str]] = [fields, *rows] if rows else []
        if more and (q.get("showResumeKey") or [""])[0] == "true":
            assert emitted is not None
            token = base64.urlsafe_b64encode(f"{emitted.urlkey} {emitted.timestamp}".encode()).decode()
            payload += [[], [token]]
        return Answer(200, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    # -- captures ------------------------------------------------------------------------------
    def _closest(self, original: str, timestamp: str) -> ArchivedCapture | None:
        found = [c for c in self.by_url.get(_lookup_key(original), []) if c.file or c.redirect_to]
        if not found:
            return None
        target = _stamp(timestamp)
        return min(found, key=lambda c: abs((_stamp(c.timestamp) - target).total_seconds()))

    def capture(self, timestamp: str, original: str) -> Answer:
        exact = next((c for c in self.by_url.get(_lookup_key(original), []) if c.timestamp == timestamp), None)
        if exact is not None and exact.redirect_to:
            return self._redirect(exact.redirect_to, original)
        if exact is not None and exact.file:
            return Answer(200, (self.root / exact.file).read_bytes(), "text/html; charset=utf-8")
        if exact is not None:
            return Answer(404, b"Hrm. The Wayback Machine has not archived that URL.", "text/html")
        nearest = self._closest(original, timestamp)
        if nearest is None:
            return Answer(404, b"Hrm. The Wayback Machine has not archived that URL.", "text/html")
        return self._redirect(nearest.timestamp, original)

    @staticmethod
    def _redirect(timestamp: str, original: str) -> Answer:
        return Answer(302, b"", "text/html", (("Location", f"{PREFIX}web/{timestamp}id_/{original}"),))

    def available(self, q: dict[str, list[str]], host: str) -> Answer:
        """The capture closest to ``timestamp``; without one the newest, as archive.org's API answers."""
        url = (q.get("url") or [""])[0]
        nearest = self._closest(url, (q.get("timestamp") or ["99991231"])[0]) if url else None
        snapshots = {}
        if nearest is not None:
            snapshots["closest"] = {"status": "200", "available": True, "timestamp": nearest.timestamp,
                                    "url": f"http://{host}{PREFIX}web/{nearest.timestamp}/{nearest.original}"}
        return Answer(200, json.dumps({"url": url, "archived_snapshots": snapshots}).encode("utf-8"))
