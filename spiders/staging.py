"""The staging directory of one crawl run: ``claims.jsonl``, ``pages.jsonl``, gzip'd HTML, ``run.json``.

Spiders (through :class:`spiders.pipelines.StagingPipeline`) and ``arastance reparse`` both write
runs with this class, in the format :mod:`arastance.base.staging` declares and the loader reads.
Files are appended to, so a resumed crawl (Scrapy ``JOBDIR``) keeps adding to the run it
interrupted; ``run.json`` is written last, when
the run is complete, and its counts are taken from the files so they cover every session.

A write that fails (a full disk, a disk turned read-only) is taken back: a line is appended whole
or not at all, and a page's HTML file goes with its line. From then on the run takes no more
writes (a claim whose page could not be kept would not load) and is never finished: on a full
disk the crawl stopped with "finished" and a run that could never be loaded. The crawl is then
stopped (:mod:`spiders.disk_full` for a full disk, :mod:`spiders.pipelines` for any other error)
and the run is removed (:meth:`StagingRun.abandon`).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import threading
from collections import Counter
from dataclasses import asdict
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from arastance.base.staging import (
    CLAIMS_FILE,
    PAGES_DIR,
    PAGES_FILE,
    RUN_FILE,
    ClaimItem,
    PageItem,
    RunSummary,
    data_file_manifest,
)

_STARTED_FILE = ".started_at"


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)


def failure_reason(parse_error: str | None) -> str:
    """The reason code that prefixes a page's ``parse_error`` (``"http_404: ..."`` -> ``http_404``)."""
    return (parse_error or "unknown").split(":", 1)[0].strip() or "unknown"


class StagingRun:
    """Writer for ``<staging>/crawl/<run_id>/``; use as a context manager or open/finish."""

    def __init__(self, run_dir: Path, run_id: str, source_id: str) -> None:
        self.run_dir = Path(run_dir)
        self.run_id = run_id
        self.source_id = source_id
        self._claims: int | None = None  # file descriptors, appended to with whole lines
        self._pages: int | None = None
        self._lock = threading.Lock()
        self.write_error: OSError | None = None

    def open(self) -> "StagingRun":
        """Create (or reopen, when resuming) the run directory."""
        if (self.run_dir / RUN_FILE).exists():
            raise FileExistsError(f"staging run {self.run_dir} is already finished ({RUN_FILE} exists)")
        try:
            (self.run_dir / PAGES_DIR).mkdir(parents=True, exist_ok=True)
            started = self.run_dir / _STARTED_FILE
            if not started.exists():
                started.write_text(utc_now_iso(), encoding="utf-8")
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
            self._claims = os.open(self.run_dir / CLAIMS_FILE, flags, 0o644)
            self._pages = os.open(self.run_dir / PAGES_FILE, flags, 0o644)
        except OSError as exc:  # a run that could not open takes no writes, and its caller abandons it
            self.write_error = exc
            self.close()
            raise
        return self

    def __enter__(self) -> "StagingRun":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:  # never while a line is being written from the pipeline's threads
            for fd in (self._claims, self._pages):
                if fd is not None:
                    os.close(fd)
            self._claims = self._pages = None

    def abandon(self) -> None:
        """Remove the run: a crawl resumed from it would not fetch again the pages whose writes
        were lost (Scrapy counts them as seen), so a fresh crawl takes them all; it frees the disk too."""
        self.close()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def _refuse_after_a_failed_write(self) -> None:
        if self.write_error is not None:
            raise OSError(self.write_error.errno, f"staging run {self.run_id} takes no more writes after "
                                                  f"{self.write_error}")

    def _write_line(self, fd: int | None, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, default=_json_default) + "\n").encode("utf-8")
        with self._lock:  # the staging pipeline writes from a thread pool
            self._refuse_after_a_failed_write()
            if fd is None:
                raise RuntimeError("staging run is not open")
            size = os.fstat(fd).st_size
            try:
                written = 0
                while written < len(line):
                    written += os.write(fd, line[written:])
            except OSError as exc:
                self.write_error = exc  # first: the truncate below may fail too (an I/O error, a read-only disk)
                os.ftruncate(fd, size)  # the line goes whole or not at all
                raise

    def write_page(self, page: PageItem) -> None:
        """Append a ``pages.jsonl`` line, storing the body gzip'd when the page keeps it."""
        self._refuse_after_a_failed_write()
        record = asdict(page)
        body = record.pop("body")
        keep = record.pop("keep_body")
        html_file = f"{PAGES_DIR}/{page.page_id}.html.gz" if keep and body else None
        record["html_file"] = html_file
        try:
            if html_file is not None:
                (self.run_dir / html_file).write_bytes(gzip.compress(body, compresslevel=6))
            self._write_line(self._pages, record)
        except OSError as exc:  # the page's file goes with its line
            self.write_error = self.write_error or exc
            if html_file is not None:
                with contextlib.suppress(OSError):  # a read-only disk refuses this too (and kept nothing)
                    (self.run_dir / html_file).unlink(missing_ok=True)
            raise

    def write_claim(self, claim: ClaimItem) -> None:
        self._write_line(self._claims, asdict(claim))

    def finish(self, stats: dict[str, Any] | None = None, dropped: dict[str, int] | None = None) -> RunSummary:
        """Write ``run.json``: counts from the files, drop reasons from failed pages plus ``dropped``.
        A run that lost a write is refused: it stays unfinished."""
        self.close()
        if self.write_error is not None:
            raise OSError(self.write_error.errno, f"staging run {self.run_dir} is left unfinished: a write failed "
                                                  f"({self.write_error})")
        pages = _read_jsonl(self.run_dir / PAGES_FILE)
        items = sum(1 for _ in _read_jsonl(self.run_dir / CLAIMS_FILE))
        reasons: Counter[str] = Counter()
        fetched = errors = 0
        for page in pages:
            fetched += 1
            if page["parse_status"] == "failed":
                errors += 1
                reasons[failure_reason(page.get("parse_error"))] += 1
        for reason, n in (dropped or {}).items():
            if n:
                reasons[reason] += n
        started = self.run_dir / _STARTED_FILE
        summary = RunSummary(
            run_id=self.run_id,
            source_id=self.source_id,
            started_at=started.read_text(encoding="utf-8").strip() if started.exists() else utc_now_iso(),
            finished_at=utc_now_iso(),
            pages=fetched,
            items=items,
            errors=errors,
            dropped=dict(sorted(reasons.items())),
            stats=dict(sorted((stats or {}).items())),
            files=data_file_manifest(self.run_dir),
        )
        tmp = self.run_dir / (RUN_FILE + ".tmp")
        tmp.write_text(json.dumps(asdict(summary), ensure_ascii=False, indent=2, default=_json_default), encoding="utf-8")
        os.replace(tmp, self.run_dir / RUN_FILE)
        started.unlink(missing_ok=True)
        return summary


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_run(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """``(run.json, claims, pages)`` of a finished staging run."""
    run_file = Path(run_dir) / RUN_FILE
    if not run_file.exists():
        raise FileNotFoundError(f"{run_dir} is not a finished staging run: no {RUN_FILE}")
    run = json.loads(run_file.read_text(encoding="utf-8"))
    return run, _read_jsonl(Path(run_dir) / CLAIMS_FILE), _read_jsonl(Path(run_dir) / PAGES_FILE)
