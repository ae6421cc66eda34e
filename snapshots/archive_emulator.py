"""A local stand-in for the Wayback Machine, served by :class:`snapshots.server.SnapshotServer`.

It speaks the same protocol as the real archive, under ``/archive/`` on the snapshot server:

- ``/archive/cdx/search/cdx``: the CDX API with ``url`` (exact, ``host/*`` or ``*.host``) and ``matchType``
  (``exact``, ``prefix``, ``host``, ``domain``), ``from``/``to`` (timestamp prefixes), ``filter``
  (``field:regex``, ``!field:regex``), ``collapse`` (``field`` or ``field:N``, the first N characters),
  ``fl``, ``output=json`` (a header row first; without it space-separated lines, as the real server answers),
  ``limit`` (``-N``: the last N) with ``showResumeKey``/``resumeKey``; a parameter it cannot read answers 400;
- ``/archive/web/<timestamp>id_/<original>``: a capture's original bytes; a timestamp it does not
  hold exactly answers 302 to the nearest capture; a capture listed in the index but lost answers
  404, a timestamp that is no date (month 99) 400;
- a capture recorded as a redirect (``redirect_to``: the URL the site sent its visitor to, or the
  timestamp of a later capture of the same page) is listed with its 3xx status, as the real CDX
  server lists one (``text/html 301``), so ``filter=statuscode:200`` leaves it out; its ``id_``
  replay answers that status with the ``Location`` moved into the archive
  (``/web/<its timestamp>id_/<target>``), and a capture that redirects to the very page asked for
  (``http://`` to ``https://``) is passed over, as the Wayback Machine passes over self-redirects
  (evidence, public code: nla/outbackcdx's test ``testSelfRedirectFiltering``; pywb's sample CDX rows,
  which list redirects as ``301``/``302`` and revisits as ``warc/revisit -``; edgi-govdata-archiving/wayback,
  ``wayback/_client.py``, on replayed redirects whose ``Location`` stays in the archive);
- ``/archive/wayback/available?url=&timestamp=``: the availability API (the capture closest to
  ``timestamp``, with its status; without one, the newest);
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
from collections.abc import Callable
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
    """One capture in the emulator's index; ``file`` None means listed but lost.

    ``redirect_to`` makes it a redirect: an absolute URL (the page the site sent its visitor to) or
    the timestamp of a later capture of the same page. Its status is then a 3xx, 301 unless the
    index says which; a status the index gives must agree with ``redirect_to``.
    """

    original: str
    timestamp: str
    file: str | None
    statuscode: str = ""
    mimetype: str = "text/html"
    digest: str = ""
    redirect_to: str | None = None

    def __post_init__(self) -> None:
        status = self.statuscode or ("301" if self.redirect_to else "200")
        if bool(self.redirect_to) != bool(re.fullmatch(r"3\d\d", status)):
            raise ValueError(f"archive index: capture {self.timestamp} of {self.original} has status {status} "
                             f"and redirect_to {self.redirect_to!r}; a redirect has a 3xx status and a target")
        object.__setattr__(self, "statuscode", status)

    @property
    def urlkey(self) -> str:
        return urlkey(self.original)

    @property
    def target(self) -> str | None:
        """The capture address the replay of a redirect sends the client to (None for no redirect):
        the target URL at this capture's time, as the Wayback Machine rewrites ``Location``."""
        if not self.redirect_to:
            return None
        if self.redirect_to.isdigit():
            return f"{PREFIX}web/{self.redirect_to}id_/{self.original}"
        return f"{PREFIX}web/{self.timestamp}id_/{self.redirect_to}"

    def redirects_to_itself(self, lookup_key: str) -> bool:
        """Whether this capture is a redirect to the page whose lookup key is ``lookup_key``: an
        ``http://`` capture moved to ``https://``, replayed for the ``https://`` page, would send the
        client back to itself."""
        return bool(self.redirect_to) and not self.redirect_to.isdigit() and _lookup_key(self.redirect_to) == lookup_key

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


class BadRequest(ValueError):
    """A parameter the archive cannot read; answered 400 with this message, which names it."""


def _stamp(ts: str) -> datetime:
    try:
        return datetime.strptime((ts + "00000101000000"[len(ts):])[:14], "%Y%m%d%H%M%S")
    except ValueError:
        raise BadRequest(f"timestamp {ts!r} is not a date and time YYYYMMDDhhmmss") from None


def _param(q: dict[str, list[str]], name: str) -> str:
    return (q.get(name) or [""])[0]


def _integer(value: str, name: str) -> int:
    try:
        return int(value or 0)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {value!r}") from None


def _known_field(name: str, parameter: str) -> str:
    if name not in _FIELDS:
        raise BadRequest(f"{parameter}: unknown field {name!r}; fields are {', '.join(_FIELDS)}")
    return name


def _url_matcher(url: str, match_type: str) -> Callable[[str], bool]:
    """Which urlkeys ``url`` asks for: ``*.host`` is a domain query and ``…*`` a prefix one, as on the real server."""
    if url.startswith("*."):
        url, match_type = url[2:], "domain"
    elif url.endswith("*"):
        url, match_type = url[:-1], "prefix"
    key = urlkey(url)
    host = key.split(")", 1)[0]
    if match_type in ("", "exact"):
        return lambda k: k == key
    if match_type == "prefix":
        return lambda k: k.startswith(key.rstrip("/"))
    if match_type == "host":
        return lambda k: k.split(")", 1)[0] == host
    if match_type == "domain":
        return lambda k: (k.split(")", 1)[0] + ",").startswith(host + ",")  # the host or one under it
    raise BadRequest(f"matchType must be exact, prefix, host or domain, not {match_type!r}")


def _filter(spec: str) -> Callable[[ArchivedCapture], bool]:
    """``field:regex`` keeps the captures whose field matches, ``!field:regex`` those whose field does not."""
    negated = spec.startswith("!")
    name, colon, pattern = spec.removeprefix("!").partition(":")
    if not colon:
        raise BadRequest(f"filter {spec!r} is not field:regex")
    _known_field(name, "filter")
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise BadRequest(f"filter {spec!r}: {exc}") from None
    return lambda c: bool(regex.fullmatch(c.field(name))) != negated


def _collapser(spec: str) -> Callable[[ArchivedCapture], str] | None:
    """``field`` collapses on the whole field, ``field:N`` on its first N characters."""
    if not spec:
        return None
    name, _, width = spec.partition(":")
    _known_field(name, "collapse")
    n = _integer(width, "collapse's length") or None
    return lambda c: c.field(name)[:n]


def _cdx_answer(rows: list[list[str]], fields: list[str], resume_key: str | None, as_json: bool) -> Answer:
    """JSON (a header row first, then ``[]`` and ``[resumeKey]``) or text lines (then a blank line and the key)."""
    if as_json:
        payload: list[list[str]] = [fields, *rows] if rows else []
        payload += [[], [resume_key]] if resume_key else []
        return Answer(200, json.dumps(payload, ensure_ascii=False).encode("utf-8"))
    lines = [" ".join(row) for row in rows] + (["", resume_key] if resume_key else [])
    return Answer(200, "".join(f"{line}\n" for line in lines).encode("utf-8"), "text/plain; charset=utf-8")


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
        try:
            return self._dispatch(raw_path, host)
        except BadRequest as exc:
            return Answer(400, str(exc).encode("utf-8"), "text/plain; charset=utf-8")

    def _dispatch(self, raw_path: str, host: str) -> Answer:
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
        url = _param(q, "url")
        if not url:
            raise BadRequest("missing url parameter")
        matches = _url_matcher(url, _param(q, "matchType"))
        fields = [_known_field(f, "fl") for f in _param(q, "fl").split(",")] if q.get("fl") else list(_FIELDS)
        start, last = self._resume(_param(q, "resumeKey"))
        low, high = _param(q, "from"), _param(q, "to")
        filters = [_filter(f) for f in q.get("filter", [])]
        collapse = _collapser(_param(q, "collapse"))
        limit = _integer(_param(q, "limit"), "limit")
        rows: list[ArchivedCapture] = []
        previous = collapse(last) if (collapse and last) else None
        for capture in self.captures[start:]:
            if not matches(capture.urlkey):
                continue
            if low and capture.timestamp[:len(low)] < low or high and capture.timestamp[:len(high)] > high:
                continue
            if not all(keep(capture) for keep in filters):
                continue
            if collapse:
                value = collapse(capture)
                if value == previous:
                    continue
                previous = value
            if limit > 0 and len(rows) == limit:
                break
            rows.append(capture)
        if limit < 0:  # the last N, as the real server answers a negative limit
            rows = rows[limit:]
        more = limit > 0 and len(rows) == limit
        token = None
        if more and _param(q, "showResumeKey") == "true":
            token = base64.urlsafe_b64encode(f"{rows[-1].urlkey} {rows[-1].timestamp}".encode()).decode()
        return _cdx_answer([[c.field(f) for f in fields] for c in rows], fields, token, _param(q, "output") == "json")

    def _resume(self, resume_key: str) -> tuple[int, ArchivedCapture | None]:
        """Where a page resumed with ``resume_key`` starts, and the capture the page before it ended on."""
        if not resume_key:
            return 0, None
        try:
            rkey, rts = base64.urlsafe_b64decode(resume_key.encode()).decode().split(" ", 1)
        except ValueError:
            raise BadRequest("bad resumeKey") from None
        last = next((c for c in self.captures if (c.urlkey, c.timestamp) == (rkey, rts)), None)
        return bisect_right(self._keys, (rkey, rts)), last

    # -- captures ------------------------------------------------------------------------------
    def _replayable(self, original: str) -> list[ArchivedCapture]:
        """The captures a request for ``original`` may be answered with: self-redirects passed over."""
        key = _lookup_key(original)
        return [c for c in self.by_url.get(key, []) if not c.redirects_to_itself(key)]

    def _closest(self, original: str, timestamp: str) -> ArchivedCapture | None:
        found = [c for c in self._replayable(original) if c.file or c.redirect_to]
        if not found:
            return None
        target = _stamp(timestamp)
        return min(found, key=lambda c: abs((_stamp(c.timestamp) - target).total_seconds()))

    def capture(self, timestamp: str, original: str) -> Answer:
        exact = next((c for c in self._replayable(original) if c.timestamp == timestamp), None)
        if exact is not None and exact.target:
            return Answer(int(exact.statuscode), b"", "text/html", (("Location", exact.target),))
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
            snapshots["closest"] = {"status": nearest.statuscode, "available": True, "timestamp": nearest.timestamp,
                                    "url": f"http://{host}{PREFIX}web/{nearest.timestamp}/{nearest.original}"}
        return Answer(200, json.dumps({"url": url, "archived_snapshots": snapshots}).encode("utf-8"))
