"""A polite client of the Wayback Machine's CDX and availability APIs.

CDX queries are paged (``limit`` + ``showResumeKey``/``resumeKey``) and every page is cached on
disk as it arrives, keyed by the archive and the query: an interrupted discovery resumes from its
last page, and a finished one is answered from the cache without asking the archive again. A
cached page or followed redirect that cannot be read (cut short by a power loss or a full disk,
hand-edited) is asked for again, with a warning naming the file.
Requests keep ``delay_s`` apart (about one a second by default) and back off on 429, 5xx and
refused connections, honouring ``Retry-After``.

The CDX server lists a capture that was a redirect with its 3xx status (``text/html 301``), so
``statuscode:200`` leaves out a page the archive only holds as a redirect within the window (an
old slug, an ``http://`` address moved to ``https://``). :meth:`WaybackClient.discover` lists such
a page by the capture of the page it leads to, found by following the archive's replay of the
redirect; a redirect is never handed on as a page to read.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx

from arastance.base.captures import Capture, capture_url, parse_capture_url, valid_timestamp
from arastance.base.cdx import REDIRECT_STATUSES, CdxAnswerError, CdxPage, CdxQuery, parse_cdx_json
from arastance.base.retry_after import retry_after_s
from arastance.base.secrets import hide_url_passwords
from arastance.base.stopping import check_stop, pause
from arastance.base.urls import UrlError, canonicalize_url
from arastance.base.whole_files import written_whole
from arastance.logging import get_logger
from tasks.search.http import AnswerTooLarge, bounded_get

log = get_logger(__name__)



class _Cause(NamedTuple):
    """How a retried request's trouble is worded: the warning before each retry, and the error after the last."""

    retrying: str
    gave_up: str


#: By the archive's answer (None: no answer at all, a refused or timed-out connection): only a 429
#: or a 503 is the archive asking to be asked less often.
_CAUSES: dict[int | None, _Cause] = {
    None: _Cause("archive unreachable; retrying", "the archive could not be reached"),
    **dict.fromkeys((429, 503), _Cause("archive asked to slow down", "the archive is refusing")),
    **dict.fromkeys((500, 502, 504),
                    _Cause("archive answered with a server error; retrying", "the archive is failing")),
}
_RETRY_STATUSES = {status for status in _CAUSES if status is not None}
#: A CDX page of the largest size allowed (150,000 rows) is about 20 MiB.
MAX_ANSWER_BYTES = 64 * 2**20
#: Hops followed from a redirect capture to the capture it leads to: its own 3xx, the archive's
#: move to the nearest capture of the target, and a few redirects the target made in turn.
MAX_REDIRECT_HOPS = 6

T = TypeVar("T")


class ArchiveError(RuntimeError):
    """The archive could not answer (after retries) or answered something that is not CDX JSON.

    Its message names the URL asked, with the password of an archive behind basic authentication
    hidden: the message travels on into run states (a crawl's, the pipeline's), which no log
    redaction reaches."""

    def __init__(self, message: str) -> None:
        super().__init__(hide_url_passwords(message))


def _cdx_page(payload: Any, source: str) -> CdxPage:
    """One CDX answer's page (:func:`arastance.base.cdx.parse_cdx_json`); a row passed over is logged, an
    answer that is not rows is an :class:`ArchiveError`."""
    try:
        page = parse_cdx_json(payload, source)
    except CdxAnswerError as exc:
        raise ArchiveError(str(exc)) from None
    for row in page.skipped:
        log.warning("CDX row skipped: no valid timestamp and original URL", extra={"source": source, "row": row})
    return page


@dataclass
class WaybackClient:
    """The CDX and availability APIs of one archive (the real one, or the snapshot emulator)."""

    archive_url: str
    availability_url: str
    cache_dir: Path | None = None
    delay_s: float = 1.0
    retries: int = 5
    backoff_s: float = 2.0
    max_backoff_s: float = 120.0
    timeout_s: float = 60.0
    #: The whole answer's limit (``timeout_s`` bounds each read): the CDX server is slow but not this slow.
    answer_deadline_s: float = 300.0
    user_agent: str = "AraStancePipeline"
    sleep: Callable[[float], None] = pause  # ends early when the run is asked to stop
    client: httpx.Client = field(default_factory=lambda: httpx.Client(follow_redirects=True))
    #: Requests actually sent (cache hits excluded), for reports and tests.
    requests_sent: int = 0
    _last_request: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        if not self.archive_url.endswith("/"):
            self.archive_url += "/"

    @property
    def cdx_url(self) -> str:
        return f"{self.archive_url}cdx/search/cdx"

    # -- HTTP --------------------------------------------------------------------------------
    def _wait_politely(self) -> None:
        wait = self.delay_s - (time.monotonic() - self._last_request)
        if wait > 0:
            self.sleep(wait)

    def get_json(self, url: str, params: list[tuple[str, str]]) -> Any:
        """GET ``url`` and decode JSON, retrying 429/5xx/refusals with backoff."""
        response = self.get(url, params)
        if response.status_code != 200:
            raise ArchiveError(f"{response.url}: HTTP {response.status_code}")
        try:
            return response.json()
        except (ValueError, RecursionError):  # RecursionError: nested deeper than json can decode
            raise ArchiveError(f"{response.url}: the archive's answer is not JSON") from None

    def get(self, url: str, params: list[tuple[str, str]] | None = None, *,
            follow_redirects: bool = True) -> httpx.Response:
        """The answer to GET ``url``, retrying 429/5xx/refusals with backoff; any other status is returned."""
        attempt = 0
        status: int | None  # the answer's status; None: no answer
        while True:
            check_stop(f"archive request {url}")
            self._wait_politely()
            self._last_request = time.monotonic()
            self.requests_sent += 1
            try:
                request = self.client.build_request("GET", url, params=params, timeout=self.timeout_s,
                                                    headers={"User-Agent": self.user_agent})
                response = bounded_get(self.client, request, max_bytes=MAX_ANSWER_BYTES,
                                       deadline_s=self.answer_deadline_s, follow_redirects=follow_redirects)
            except AnswerTooLarge as exc:
                raise ArchiveError(f"{url}: {exc}") from None
            except httpx.HTTPError as exc:
                problem, asked, status = f"{type(exc).__name__}: {exc}", None, None
            else:
                if response.status_code not in _RETRY_STATUSES:
                    return response
                status = response.status_code
                problem, asked = f"HTTP {status}", retry_after_s(response.headers)
            if attempt >= self.retries:
                raise ArchiveError(f"{url}: {problem} after {attempt + 1} attempt(s); {_CAUSES[status].gave_up}, "
                                   "try again later (cached pages are kept)")
            wait = min(self.max_backoff_s, asked if asked is not None else self.backoff_s * 2**attempt)
            log.warning(_CAUSES[status].retrying, extra={"url": url, "problem": problem,
                                                         "wait_s": round(wait, 2), "attempt": attempt + 1})
            self.sleep(wait)
            attempt += 1

    # -- CDX ---------------------------------------------------------------------------------
    def _cache_file(self, query: CdxQuery, page: int) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / "cdx" / query.cache_key(self.cdx_url) / f"page-{page:05d}.json"

    def cdx_pages(self, query: CdxQuery) -> Iterator[CdxPage]:
        """Every page of ``query``, holding only the captures within its days; cached pages come
        from disk, so a resumed discovery re-asks nothing.

        The window is checked here too: a server (or proxy) that ignores ``from``/``to`` would
        otherwise have captures of 1999 or 2024 crawled as 2012-2018 pages. Paging stops with an
        :class:`ArchiveError` when a server hands back a resume key it gave before, or a page of
        nothing but captures already listed (each with a new key, that paged for ever)."""
        number, resume_key = 0, None
        keys_seen: set[str] = set()
        listed: set[tuple[str, str]] = set()
        outside = 0
        while True:
            cache = self._cache_file(query, number)
            page = _read_cached(cache, "CDX page", _cached_cdx_page) if cache is not None else None
            if page is None:
                page = _cdx_page(self.get_json(self.cdx_url, query.params(resume_key)), f"CDX {query.url}")
                if cache is not None:
                    _store_json(cache, {"captures": [c.__dict__ for c in page.captures],
                                        "resume_key": page.resume_key})
            new = {(c.timestamp, c.original) for c in page.captures} - listed
            if page.resume_key and page.captures and not new:
                raise ArchiveError(f"CDX {query.url}: page {number + 1} lists only captures listed before; "
                                   f"stopped after {number + 1} pages")
            listed |= new
            inside = [c for c in page.captures if query.from_date <= c.captured_at.date() <= query.to_date]
            outside += len(page.captures) - len(inside)
            yield CdxPage(inside, page.resume_key)
            if not page.resume_key:
                break
            if page.resume_key in keys_seen:  # a server handing a key back would be paged (and cached) for ever
                raise ArchiveError(f"CDX {query.url}: page {number + 1} gave resume key {page.resume_key!r} again; "
                                   f"stopped after {number + 1} pages")
            keys_seen.add(page.resume_key)
            number, resume_key = number + 1, page.resume_key
        if outside:
            log.warning("archive listed captures outside the window", extra={"url": query.url, "outside": outside})

    def discover(self, query: CdxQuery, follow: Callable[[str], bool] | None = None) -> Iterator[Capture]:
        """The captures to read for ``query``'s pages: those ``query`` lists, then, for each page the
        archive holds within the days only as a redirect (an old slug, an ``http://`` address moved
        to ``https://``), the capture of the page it leads to, which may be taken after the days
        (it is the capture the archive serves for the redirect). A redirect whose target the
        archive never captured, or a page already listed, adds nothing. Following one costs about
        three requests, so ``follow`` may name the redirects' URLs worth it (a site's claim pages,
        not its tag pages and shortlinks); without it every one is followed."""
        listed: set[str] = set()
        for page in self.cdx_pages(query):
            for capture in page.captures:
                listed.add(_page_key(capture.original))
                yield capture
        followed: set[str] = set()
        for page in self.cdx_pages(query.redirects()):
            for redirect in page.captures:
                key = _page_key(redirect.original)
                if key in listed or key in followed or not _is_redirect(redirect.statuscode):
                    continue  # the page was captured whole, or a server that ignored the filter listed it
                if follow is not None and not follow(redirect.original):
                    continue
                followed.add(key)
                target = self._followed(redirect)
                if target is not None and _page_key(target.original) not in listed:
                    listed.add(_page_key(target.original))
                    yield target

    def _followed(self, redirect: Capture) -> Capture | None:
        """:meth:`redirect_target` of ``redirect``, remembered beside the CDX pages, so that a resumed
        discovery asks the archive again for no redirect it has followed: a target, or that there is
        none (one remembered in a file that cannot be read is followed again). A redirect the archive
        would not answer for (a replay failing past its retries, an answer too large) adds nothing
        this time and is asked again next time; the site's discovery goes on."""
        address = capture_url(self.archive_url, redirect.timestamp, redirect.original)
        cache = None if self.cache_dir is None else (
            self.cache_dir / "redirects" / (hashlib.sha256(address.encode()).hexdigest()[:24] + ".json"))
        cached = None if cache is None else _read_cached(cache, "redirect", _cached_redirect)
        if cached is not None:
            return cached.target
        try:
            target = self.redirect_target(redirect)
        except ArchiveError as exc:
            log.warning("archive redirect could not be followed; left out this time",
                        extra={"capture": address, "error": str(exc)})
            return None
        if cache is not None:
            _store_json(cache, {"target": None if target is None else target.__dict__})
        return target

    def redirect_target(self, redirect: Capture) -> Capture | None:
        """The capture of the page the redirect capture ``redirect`` leads to, or None when the
        archive holds none (or the chain loops, leaves the archive, or ends on no HTML page).

        The archive's hops are followed one by one: the capture's own 3xx, whose ``Location`` the
        archive moved to the target at the capture's time, then its move to the target's nearest
        capture; the first capture answering 200 is the target's."""
        address = capture_url(self.archive_url, redirect.timestamp, redirect.original)
        for _ in range(MAX_REDIRECT_HOPS):
            response = self.get(address, follow_redirects=False)
            following = self._archived_location(address, response)
            if following is not None:
                address = following
                continue
            found = parse_capture_url(address) if response.status_code == 200 else None
            mimetype = response.headers.get("content-type", "").split(";")[0].strip()
            if found is not None and mimetype == "text/html":
                return Capture(timestamp=found[0], original=found[1], statuscode="200", mimetype=mimetype)
            break
        log.warning("archive redirect leads to no captured page", extra={
            "capture": capture_url(self.archive_url, redirect.timestamp, redirect.original), "last": address})
        return None

    def _archived_location(self, address: str, response: httpx.Response) -> str | None:
        """Where the redirect ``response`` to ``address`` sends the client, when that is another
        capture in this archive (over either scheme); a redirect to the live web, or to itself, is not followed."""
        location = response.headers.get("location") if response.is_redirect else None
        following = urljoin(address, location) if location else None
        if following is None or following == address or urlsplit(following).netloc != urlsplit(address).netloc:
            return None
        return following if parse_capture_url(following) is not None else None

    def captures(self, query: CdxQuery) -> list[Capture]:
        """All captures to read for ``query`` (:meth:`discover`), one per URL (the first seen)."""
        seen: dict[str, Capture] = {}
        for capture in self.discover(query):
            seen.setdefault(capture.original, capture)
        log.info("archive captures discovered", extra={"url": query.url, "captures": len(seen),
                                                       "requests": self.requests_sent})
        return list(seen.values())

    # -- availability ------------------------------------------------------------------------
    def closest(self, url: str, timestamp: str | None = None) -> Capture | None:
        """The capture of ``url`` closest to ``timestamp`` (YYYYMMDD...), or None if there is none."""
        params = [("url", url)] + ([("timestamp", timestamp)] if timestamp else [])
        data = self.get_json(self.availability_url, params)
        snapshots = data.get("archived_snapshots") if isinstance(data, dict) else None
        closest = snapshots.get("closest") if isinstance(snapshots, dict) else None
        if not isinstance(closest, dict) or not closest.get("available") or str(closest.get("status", "200")) != "200":
            return None
        if not valid_timestamp(closest.get("timestamp")):
            raise ArchiveError(f"availability {self.availability_url}: the capture of {url} has no 4-14 digit "
                               f"timestamp: {closest.get('timestamp')!r}")
        return Capture(timestamp=closest["timestamp"], original=url, statuscode="200")


def _is_redirect(statuscode: str) -> bool:
    """Whether a listed capture was a redirect: a server that ignores ``filter`` lists every capture."""
    return re.fullmatch(REDIRECT_STATUSES, statuscode) is not None


@dataclass(frozen=True)
class _CachedRedirect:
    """A followed redirect as remembered: ``target`` None says the archive holds no page it leads to,
    which is an answer too (a redirect not remembered at all is None where it is read)."""

    target: Capture | None


def _read_cached(cache: Path, kind: str, parse: Callable[[Any], T]) -> T | None:
    """What ``parse`` makes of the JSON kept in ``cache``, or None when nothing is kept there or it
    cannot be read: empty or cut short (a power loss after the rename, a full disk), hand-edited,
    another tool's file. Such an answer is asked for again, with a warning naming the file and the
    ``kind`` of answer, rather than stop every later discovery of the site or hand on a capture that
    fails far from its cause. (A folder in the file's place is warned of too, but storing the new
    answer then fails naming both paths: the folder is for the operator to remove.)"""
    try:
        return parse(json.loads(cache.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:  # ValueError: not JSON, not UTF-8
        log.warning("cached archive answer unreadable; asking the archive again",
                    extra={"cache": kind, "path": str(cache), "error": f"{type(exc).__name__}: {exc}"})
        return None


def _cached_capture(data: Any) -> Capture:
    """A capture as :func:`_store_json` keeps it (its fields by name), with the timestamp and URL
    every later step relies on."""
    if not isinstance(data, dict):
        raise TypeError(f"a capture is a JSON object, not {type(data).__name__}")
    capture = Capture(**data)  # TypeError: a field missing, or one the client does not write
    if not (valid_timestamp(capture.timestamp) and isinstance(capture.original, str)):
        raise ValueError(f"capture timestamp {capture.timestamp!r} and original {capture.original!r} "
                         "are not a 4-14 digit moment and a URL")
    return capture


def _cached_cdx_page(data: Any) -> CdxPage:
    """A CDX page as :meth:`WaybackClient.cdx_pages` keeps it."""
    page = CdxPage([_cached_capture(c) for c in data["captures"]], data["resume_key"])
    if not isinstance(page.resume_key, (str, type(None))):
        raise TypeError(f"the resume key {page.resume_key!r} is not text")
    return page


def _cached_redirect(data: Any) -> _CachedRedirect:
    """A followed redirect as :meth:`WaybackClient._followed` keeps it."""
    found = data["target"]
    return _CachedRedirect(None if found is None else _cached_capture(found))


def _store_json(cache: Path, data: Any) -> None:
    """Keep ``data`` in ``cache``, whole and on the disk before it takes the name a later run reads."""
    with written_whole(cache.parent) as partial, open(partial / cache.name, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False)


def _page_key(original: str) -> str:
    """One key for the spellings of a page the CDX server files under one ``urlkey`` (``http://``
    and ``https://``, ``www.`` or not): its canonical URL without the scheme."""
    try:
        return canonicalize_url(original).split("://", 1)[1]
    except UrlError:
        return original


def client_from_settings(crawl: Any, data_dir: Path, **overrides: Any) -> WaybackClient:
    """A client configured by the ``crawl.archive_*`` settings, caching under ``<data_dir>/archive_cache``."""
    options: dict[str, Any] = {
        "archive_url": str(crawl.archive_url), "availability_url": crawl.availability_url,
        "cache_dir": Path(data_dir) / "archive_cache", "delay_s": crawl.archive_delay_s,
        "retries": crawl.archive_retry_times, "backoff_s": max(crawl.retry_backoff_s, 0.05),
        "max_backoff_s": crawl.retry_backoff_max_s * 4, "timeout_s": crawl.download_timeout_s,
        "user_agent": crawl.user_agent,
    }
    options.update(overrides)
    return WaybackClient(**options)
