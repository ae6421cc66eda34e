"""Run one site spider in its own process and hand back its staging run.

The child is started by :func:`tasks.scrapy_launcher.run_scrapy` (the parent's effective
settings travel with it); it gets the known canonical URLs for an incremental crawl through a
file, and a ``JOBDIR`` so that a crawl interrupted half-way resumes where it stopped (same run
id, same staging directory) the next time.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arastance.base.staging import RUN_FILE, SITES, new_run_id
from arastance.config import Settings
from arastance.logging import RUN_LOG_ONLY, get_logger
from tasks.scrapy_launcher import SpiderTimeout, run_scrapy, tail
from tasks.stage_locks import stage_lock

log = get_logger(__name__)


class CrawlError(RuntimeError):
    """A crawl process that failed; the message carries the end of its log."""


@dataclass(frozen=True)
class CrawlResult:
    """A finished crawl: its staging run directory and ``run.json``."""

    site: str
    run_id: str
    run_dir: Path
    log_file: Path
    summary: dict[str, Any]
    resumed: bool
    elapsed_s: float


def crawl_staging_dir(settings: Settings) -> Path:
    return settings.staging_dir / "crawl"


def unfinished_run(settings: Settings, site: str) -> str | None:
    """The newest run of ``site`` that was interrupted (a JOBDIR and no ``run.json``), if any."""
    root = settings.crawl_jobs_dir
    if not root.is_dir():
        return None
    candidates = sorted(
        (p.name for p in root.iterdir() if p.is_dir() and p.name.startswith(f"{site}-") and (p / "scrapy").is_dir()),
        reverse=True,
    )
    for run_id in candidates:
        if not (crawl_staging_dir(settings) / run_id / RUN_FILE).exists():
            return run_id
    return None


MAX_RELAYED = 10  # a site that fails on every page should not bury the run's log


def _relay_problems(log_file: Path, site: str, run_id: str) -> None:
    """Repeat the crawl process's WARNING and ERROR lines in the Prefect run (the first few, and
    how many): the spider runs in a process of its own, and an operator reads the run's log. The
    terminal has the figures of "crawl finished" and the log file's path already."""
    if not log_file.exists():
        return
    problems = [line for line in log_file.read_text(encoding="utf-8", errors="replace").splitlines()
                if " WARNING: " in line or " ERROR: " in line]
    for line in problems[:MAX_RELAYED]:
        log.warning("crawl log: %s", line.split("] ", 1)[-1], extra={"site": site, "run_id": run_id, **RUN_LOG_ONLY})
    if len(problems) > MAX_RELAYED:
        log.warning("more warnings in the crawl log", extra={"site": site, "run_id": run_id,
                                                             "more": len(problems) - MAX_RELAYED,
                                                             "log_file": str(log_file), **RUN_LOG_ONLY})


def run_spider(
    site: str,
    settings: Settings,
    *,
    known_urls: Iterable[str] = (),
    incremental: bool | None = None,
    scrapy_settings: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
) -> CrawlResult:
    """Crawl ``site`` in a child process and return its finished staging run.

    ``known_urls`` are the canonical URLs already stored; with ``incremental`` (default: the
    ``crawl.incremental`` setting) only new detail pages are fetched. An interrupted earlier run
    of the site is resumed instead of starting a new one when ``crawl.resumable`` is set.
    """
    if site not in SITES:
        raise ValueError(f"unknown site {site!r}; spiders exist for {', '.join(sorted(SITES))}")
    # One crawl per site: a second one would "resume" the first one's live scratch directory
    # and both would append to the same staging files.
    with stage_lock(settings.data_dir / "locks", f"crawl-{site}"):
        return _crawl(site, settings, known_urls=known_urls, incremental=incremental,
                      scrapy_settings=scrapy_settings, timeout_s=timeout_s)


def _crawl(
    site: str,
    settings: Settings,
    *,
    known_urls: Iterable[str],
    incremental: bool | None,
    scrapy_settings: Mapping[str, str] | None,
    timeout_s: float | None,
) -> CrawlResult:
    incremental = settings.crawl.incremental if incremental is None else incremental
    resumed_id = unfinished_run(settings, site) if settings.crawl.resumable else None
    run_id = resumed_id or new_run_id(site)
    job = settings.crawl_jobs_dir / run_id
    job.mkdir(parents=True, exist_ok=True)
    known_file = job / "known_urls.txt"
    if not resumed_id:
        known_file.write_text("".join(f"{u}\n" for u in known_urls), encoding="utf-8")
    log_file = settings.logs_dir / "crawl" / f"{run_id}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    args = {"run_id": run_id, "known_urls": str(known_file), "incremental": "true" if incremental else "false"}
    options: dict[str, object] = {"LOG_FILE": log_file, "LOG_FILE_APPEND": True}
    if settings.crawl.resumable:
        options["JOBDIR"] = job / "scrapy"
    options.update(scrapy_settings or {})
    log.info("crawl starting", extra={"site": site, "run_id": run_id, "resumed": bool(resumed_id),
                                      "incremental": incremental, "known_urls": sum(1 for _ in known_file.open())})
    try:
        proc = run_scrapy(site, settings, output=log_file.with_suffix(".out"), args=args, scrapy_settings=options,
                          timeout_s=timeout_s)
    except SpiderTimeout:
        raise CrawlError(
            f"crawl of {site} (run {run_id}) exceeded {timeout_s}s and was stopped; "
            f"{'the next crawl of the site resumes it' if settings.crawl.resumable else 'it is not resumable'}. "
            f"Log {log_file}:\n{tail(log_file)}"
        ) from None
    elapsed = proc.elapsed_s
    run_dir = crawl_staging_dir(settings) / run_id
    if proc.returncode != 0 or not (run_dir / RUN_FILE).exists():
        raise CrawlError(
            f"crawl of {site} (run {run_id}) failed with exit code {proc.returncode}; log {log_file}:\n"
            f"{tail(proc.output, 15)}\n{tail(log_file)}"
        )
    shutil.rmtree(job, ignore_errors=True)
    summary = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    log.info("crawl finished", extra={"site": site, "run_id": run_id, "pages": summary["pages"],
                                      "items": summary["items"], "errors": summary["errors"],
                                      "elapsed_s": round(elapsed, 2), "staging_dir": str(run_dir),
                                      "log_file": str(log_file)})
    _relay_problems(log_file, site, run_id)
    return CrawlResult(site=site, run_id=run_id, run_dir=run_dir, log_file=log_file, summary=summary,
                       resumed=bool(resumed_id), elapsed_s=elapsed)
