"""The staging directory of one crawl run: ``claims.jsonl``, ``pages.jsonl``, gzip'd HTML, ``run.json``.

Spiders (through :class:`spiders.pipelines.StagingPipeline`) and ``arastance reparse`` both write
runs with this class, in the format :mod:`arastance.base.staging` declares and the loader reads.
Files are appended to, so a resumed crawl (Scrapy ``JOBDIR``) keeps adding to the run it
interrupted; ``run.json`` is written last, when
the run is complete, and its counts are taken from the files so they cover every session.
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from collections import Counter
from dataclasses import asdict
from datetime import date, datetime, timezone
from pathlib import Path
from typing import IO, Any

from arastance.base.staging import CLAIMS_FILE, PAGES_DIR, PAGES_FILE, RUN_FILE, ClaimItem, PageItem, RunSummary

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
        self._claims: IO[str] | None = None
        self._pages: IO[str] | None = None
        self._lock = threading.Lock()

    def open(self) -> "StagingRun":
        """Create (or reopen, when resuming) the run directory."""
        if (self.run_dir / RUN_FILE).exists():
            raise FileExistsError(f"staging run {self.run_dir} is already finished ({RUN_FILE} exists)")
        (self.run_dir / PAGES_DIR).mkdir(parents=True, exist_ok=True)
        started = self.run_dir / _STARTED_FILE
        if not started.exists():
            started.write_text(utc_now_iso(), encoding="utf-8")
        self._claims = open(self.run_dir / CLAIMS_FILE, "a", encoding="utf-8")
        self._pages = open(self.run_dir / PAGES_FILE, "a", encoding="utf-8")
        return self

    def __enter__(self) -> "StagingRun":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fh in (self._claims, self._pages):
            if fh is not None:
                fh.close()
        self._claims = self._pages = None

    def _write_line(self, fh: IO[str] | None, record: dict[str, Any]) -> None:
        if fh is None:
            raise RuntimeError("staging run is not open")
        line = json.dumps(record, ensure_ascii=False, default=_json_default) + "\n"
        with self._lock:  # the staging pipeline writes from a thread pool
            fh.write(line)
            fh.flush()

    def write_page(self, page: PageItem) -> None:
        """Append a ``pages.jsonl`` line, storing the body gzip'd when the page keeps it."""
        record = asdict(page)
        body = record.pop("body")
        keep = record.pop("keep_body")
        html_file = None
        if keep and body:
            html_file = f"{PAGES_DIR}/{page.page_id}.html.gz"
            (self.run_dir / html_file).write_bytes(gzip.compress(body, compresslevel=6))
        record["html_file"] = html_file
        self._write_line(self._pages, record)

    def write_claim(self, claim: ClaimItem) -> None:
        self._write_line(self._claims, asdict(claim))

    def finish(self, stats: dict[str, Any] | None = None, dropped: dict[str, int] | None = None) -> RunSummary:
        """Write ``run.json``: counts from the files, drop reasons from failed pages plus ``dropped``."""
        self.close()
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
