"""A local HTTP server for the offline web, on 127.0.0.1 and a free port.

It serves a directory built by :mod:`snapshots.build` the way a web server serves a static
site (``index.html`` for directories, 404 for what is not there, a redirect to add the slash)
and plays the faults of the build's ``faults.json``: a path that always answers 500, one that
fails ``times`` times and then recovers, one that answers slowly; a test may add a path that
redirects (``{"redirect": location}`` in :attr:`SnapshotServer.faults`). A WordPress REST collection
is paged as WordPress pages it (:mod:`snapshots.wp_rest_emulator`); a test may replace its answer's
headers (``{"headers": {name: value}}``) or have it ignore ``page`` (``{"pages_ignored": true}``), as a
proxy, a cache or a hostile server would. Every request is logged in
:attr:`SnapshotServer.requests` so that tests can check what a crawler asked for.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from arastance.base.input_paths import not_a_directory
from arastance.logging import get_logger
from snapshots.paths import query_file_key
from snapshots.archive_emulator import INDEX_FILE, PREFIX as ARCHIVE_PREFIX, WaybackEmulator
from snapshots.wp_rest_emulator import COLLECTION_FILE, answer_collection

log = get_logger(__name__)

FAULTS_FILE = "faults.json"
NOT_FOUND_HTML = (
    "<!DOCTYPE html><html lang=\"ar\"><head><meta charset=\"utf-8\"><title>الصفحة غير موجودة</title></head>"
    "<body><h1>404</h1><p>الصفحة المطلوبة غير موجودة.</p></body></html>"
).encode("utf-8")
ERROR_HTML = (
    "<!DOCTYPE html><html lang=\"ar\"><head><meta charset=\"utf-8\"><title>خطأ في الخادم</title></head>"
    "<body><h1>خطأ</h1><p>حدث خطأ في الخادم، حاول لاحقا.</p></body></html>"
).encode("utf-8")


@dataclass(frozen=True)
class RequestRecord:
    """One request the server answered."""

    method: str
    path: str
    status: int
    user_agent: str | None
    #: The raw query string (``per_page=20&page=2``), empty when there is none.
    query: str = ""


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        return  # requests are recorded in SnapshotServer.requests instead of stderr

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def _send(self, status: int, body: bytes, *, content_type: str, send_body: bool, location: str | None = None,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)
        self.server.owner.record(RequestRecord(self.command, self._path(), status, self.headers.get("User-Agent"),
                                               urlsplit(self.path).query))

    def _path(self) -> str:
        return unquote(urlsplit(self.path).path)

    def _serve(self, *, send_body: bool) -> None:
        owner = self.server.owner
        path = self._path()
        query = urlsplit(self.path).query
        fault = (owner.fault_for(f"{path}?{query_file_key(query)}") if query else {}) or owner.fault_for(path)
        if owner.archive is not None and path.startswith(ARCHIVE_PREFIX) and not fault:
            answer = owner.archive.answer(self.path, self.headers.get("Host") or "127.0.0.1")
            self._send(answer.status, answer.body, content_type=answer.content_type, send_body=send_body,
                       headers=answer.headers)
            return
        if owner.latency_s:
            time.sleep(owner.latency_s)
        if fault.get("slow"):
            time.sleep(owner.slow_delay_s)
        if "status" in fault:
            status = int(fault["status"])  # type: ignore[arg-type]
            self._send(status, ERROR_HTML, content_type="text/html; charset=utf-8", send_body=send_body)
            return
        if "redirect" in fault:
            self._send(HTTPStatus.FOUND, b"", content_type="text/html; charset=utf-8", send_body=send_body,
                       location=str(fault["redirect"]))
            return
        collection = owner.rest_collection(path)
        if collection is not None:
            asked = "&".join(p for p in query.split("&") if not p.startswith("page=")) if fault.get("pages_ignored") else query
            answer = answer_collection(json.loads(collection.read_text(encoding="utf-8")), asked)
            replaced: dict[str, str] = fault.get("headers", {})  # type: ignore[assignment]
            headers = tuple((n, v) for n, v in answer.headers if n not in replaced) + tuple(replaced.items())
            self._send(answer.status, answer.body, content_type=answer.content_type, send_body=send_body,
                       headers=headers)
            return
        target = owner.resolve(path, query)
        if target is None:
            self._send(HTTPStatus.NOT_FOUND, NOT_FOUND_HTML, content_type="text/html; charset=utf-8", send_body=send_body)
            return
        if target.is_dir():
            self._send(HTTPStatus.MOVED_PERMANENTLY, b"", content_type="text/html; charset=utf-8",
                       send_body=send_body, location=self.path.split("?", 1)[0] + "/")
            return
        content_type = "text/plain; charset=utf-8" if target.suffix == ".txt" else "text/html; charset=utf-8"
        self._send(HTTPStatus.OK, target.read_bytes(), content_type=content_type, send_body=send_body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # crawlers open many connections at once; the default 5 refuses some
    owner: "SnapshotServer"

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        """A client that gave up (a crawler's time-out) is normal here, not an error to print."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionResetError, BrokenPipeError)):
            log.debug("client went away", extra={"client": client_address[0]})
            return
        super().handle_error(request, client_address)


class SnapshotServer:
    """Serves ``root`` on ``127.0.0.1``; ``port=0`` picks a free port."""

    def __init__(
        self, root: Path, *, port: int = 0, slow_delay_s: float = 1.0, latency_s: float = 0.0, faults: bool = True,
        archive_rate_limit_every: int = 0,
    ) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            blocker = not_a_directory(Path(root))
            if blocker:  # something else is there: not the "create it" case that FileNotFoundError means
                raise NotADirectoryError(f"snapshot directory {root} {blocker}; give the directory that "
                                         "`arastance snapshots build` wrote")
            raise FileNotFoundError(f"snapshot directory {root} does not exist; run `arastance snapshots build`")
        fault_file = self.root / FAULTS_FILE
        self.faults: dict[str, dict[str, object]] = (
            json.loads(fault_file.read_text(encoding="utf-8")) if faults and fault_file.exists() else {}
        )
        self.slow_delay_s = slow_delay_s
        #: Added to every response (a slow site); may be changed while serving.
        self.latency_s = latency_s
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()
        self.requests: list[RequestRecord] = []
        #: The web archive emulator, when the build wrote an archive index.
        self.archive: WaybackEmulator | None = (
            WaybackEmulator(self.root, rate_limit_every=archive_rate_limit_every)
            if (self.root / INDEX_FILE).is_file() else None
        )
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    # -- addresses ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/``"""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def archive_url(self) -> str:
        """Root of the web archive emulator (as ``crawl.archive_url``)."""
        return f"{self.base_url}archive/"

    @property
    def availability_url(self) -> str:
        """The emulator's availability API (as ``crawl.archive_availability_url``)."""
        return f"{self.archive_url}wayback/available"

    def sites(self) -> list[str]:
        """The snapshot sites served (one directory each; the news mirror and the archive are not sites)."""
        return sorted(d.name for d in self.root.iterdir() if d.is_dir() and d.name not in ("mirror", "archive"))

    def site_url(self, site: str) -> str:
        """Base URL of one snapshot site (``araanews``, ..., ``reuters``, ``mirror``)."""
        return f"{self.base_url}{site}/"

    # -- request handling ----------------------------------------------------------------------
    def fault_for(self, path: str) -> dict[str, object]:
        """The fault to play for ``path`` now; a ``times``-limited fault counts down."""
        fault = self.faults.get(path)
        if not fault:
            return {}
        limit = fault.get("times")
        if limit is None:
            return fault
        with self._lock:
            seen = self._failures.get(path, 0)
            if seen >= int(limit):  # type: ignore[call-overload]
                return {k: v for k, v in fault.items() if k not in ("status", "times")}
            self._failures[path] = seen + 1
        return fault

    def rest_collection(self, path: str) -> Path | None:
        """The WordPress REST collection file behind ``path``, if it names one (never outside the root)."""
        return self._find(Path(path.lstrip("/")) / COLLECTION_FILE, Path.is_file)

    def resolve(self, path: str, query: str = "") -> Path | None:
        """The file (or directory) for a URL path, never outside the root.

        A page that exists only with a query string (``?view=page&page=2``) is stored as
        ``<path>/index@<query>.html``; an unknown query string is ignored, as static servers do.
        """
        relative = Path(path.lstrip("/"))
        keyed = self._find(relative / f"index@{query_file_key(query)}.html", Path.is_file) if query else None
        if keyed is not None:
            return keyed
        if path.endswith("/") or relative == Path():
            return self._find(relative / "index.html", Path.is_file)
        # a directory without its slash is returned as such: the handler redirects to add it
        return self._find(relative, Path.is_file) or self._find(relative, lambda d: (d / "index.html").is_file())

    def _find(self, relative: Path, test: Callable[[Path], bool]) -> Path | None:
        """``root/relative`` resolved, if it lies under the root and passes ``test``; None otherwise, also for a
        name the file system refuses (a NUL byte, a name too long), which an address may hold: these raised
        in the request's thread and the connection dropped with no answer."""
        try:
            target = (self.root / relative).resolve()
            return target if self.root in (target, *target.parents) and test(target) else None
        except (OSError, ValueError):
            return None

    def record(self, entry: RequestRecord) -> None:
        with self._lock:
            self.requests.append(entry)

    def paths_requested(self) -> list[str]:
        with self._lock:
            return [r.path for r in self.requests]

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> "SnapshotServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="snapshot-server", daemon=True)
        self._thread.start()
        log.info("snapshot server started", extra={"root": str(self.root), "base_url": self.base_url})
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "SnapshotServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: What to do about ``<data_dir>/snapshots`` holding other files: the commands that serve it have no ``--out``.
DATA_DIR_ADVICE = "move what is there away, or set ARASTANCE_DATA_DIR to another data directory"


def default_root() -> Path:
    """The built snapshots under ``<data_dir>/snapshots``, built if missing or out of date.

    Raises :class:`snapshots.build.SnapshotDirError` when that directory holds files that are not a build.
    """
    from arastance.config import load_settings
    from snapshots.build import ensure_snapshots

    return ensure_snapshots(load_settings().snapshots_dir, advice=DATA_DIR_ADVICE)


@contextmanager
def serve_snapshots(root: Path | None = None, *, port: int = 0, slow_delay_s: float = 1.0) -> Iterator[SnapshotServer]:
    """Serve ``root`` (default: :func:`default_root`)."""
    with SnapshotServer(root or default_root(), port=port, slow_delay_s=slow_delay_s) as server:
        yield server
