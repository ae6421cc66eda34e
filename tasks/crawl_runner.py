"""Run one site spider in its own process and hand back its staging run.

The child is started by :func:`tasks.scrapy_launcher.run_scrapy` (the parent's effective
settings travel with it); it gets the known canonical URLs for an incremental crawl through a
file, and a ``JOBDIR`` so that a crawl interrupted half-way resumes where it stopped (same run
id, same staging directory) the next time.
"""

from __future__ import annotations

import ast
import errno
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arastance.base.disk_full import DISK_FULL, logged_disk_full
from arastance.base.staging import (
    DISK_FULL_LOG,
    DISK_FULL_REASON,
    LOST_WRITE_LOG,
    LOST_WRITE_REASON,
    RUN_FILE,
    SITES,
    new_run_id,
)
from arastance.config import Settings
from arastance.base.captures import Capture, to_site_url
from arastance.base.sites import load_site_config
from arastance.base.urls import UrlError, canonicalize_url
from arastance.logging import RUN_LOG_ONLY, get_logger
from tasks.scrapy_launcher import JOBDIR_OPEN, SpiderTimeout, discard_jobdir, discarded_mark, run_scrapy, tail
from tasks.stage_locks import stage_lock
from tasks.web_archive import ArchiveError, CdxQuery
from tasks.web_archive.client import client_from_settings

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


ARCHIVE_RUN_SUFFIX = "-archive"


def crawl_log_file(settings: Settings, run_id: str) -> Path:
    """The log of every session of crawl ``run_id`` (a resumed crawl appends to it)."""
    return settings.logs_dir / "crawl" / f"{run_id}.log"


def _runs_of(root: Path, site: str, mode: str) -> list[str]:
    """Names of the run directories under ``root`` that crawls of ``site`` in ``mode`` made, newest first."""
    if not root.is_dir():
        return []
    pattern = re.compile(rf"{re.escape(site)}-\d{{8}}T\d{{12}}" + (re.escape(ARCHIVE_RUN_SUFFIX) if mode == "archive" else ""))
    return sorted((p.name for p in root.iterdir() if p.is_dir() and pattern.fullmatch(p.name)), reverse=True)


def unfinished_run(settings: Settings, site: str, mode: str = "live") -> str | None:
    """The newest run of ``site`` in ``mode`` that was interrupted (a JOBDIR, or a partial staging run
    whose JOBDIR was discarded, and no ``run.json``), if any: the next crawl goes on with it.

    A run whose crawl abandoned it (a lost write) is never resumed, however its JOBDIR survived (a
    time-out or Ctrl-C while the spider closed, a JOBDIR that could not be removed): the resumed
    crawl would skip the pages whose writes were lost. Its JOBDIR is removed here.

    A JOBDIR that Scrapy did not close (:func:`unclosed_jobdir`) is not resumed either: Scrapy
    requested nothing from it and idled to the time limit. It is discarded, and the run's crawl starts
    afresh under the same run id, so that what the run staged is kept and loaded with it (the pages
    fetched again are stored once, as after a lost queue); so is a run whose JOBDIR the launcher
    discarded when it killed the spider (:func:`tasks.scrapy_launcher.run_scrapy`). A partial run that
    never had a JOBDIR (``crawl.resumable`` off) is not: nothing says what it had fetched."""
    for run_id in _runs_of(settings.crawl_jobs_dir, site, mode):
        job, run_dir = settings.crawl_jobs_dir / run_id, crawl_staging_dir(settings) / run_id
        jobdir = job / "scrapy"
        if (run_dir / RUN_FILE).exists() or not (jobdir.is_dir() or (run_dir.is_dir() and
                                                                     discarded_mark(jobdir).exists())):
            continue
        abandoned = _abandoned_for(crawl_log_file(settings, run_id))
        if abandoned is not None:
            log.warning("not resuming a crawl that lost writes; the crawl starts afresh",
                        extra={"site": site, "run_id": run_id, "reason": abandoned[0]})
            shutil.rmtree(job, ignore_errors=True)
            continue
        unclosed = unclosed_jobdir(jobdir)
        if unclosed is not None:
            log.warning("not resuming a JOBDIR that Scrapy did not close; the run's crawl starts afresh, "
                        "keeping the pages it staged", extra={"site": site, "run_id": run_id, "reason": unclosed})
            discard_jobdir(jobdir)  # never resumed: one that cannot be removed stops the crawl, naming it
        return run_id
    return None


def unclosed_jobdir(jobdir: Path) -> str | None:
    """Why Scrapy did not close ``jobdir`` (its spider killed: SIGKILL, the OOM killer, a power loss),
    or None when it did, or there is none. Scrapy writes ``spider.state``, and ``active.json`` beside
    its request queue, when the spider closes; without them the queue files lack their headers
    (queuelib then fails on every request, and Scrapy only logs it) and ``requests.seen`` may be cut.
    Both stay from an earlier session that closed, so the launcher's :data:`JOBDIR_OPEN`, left when
    it was killed with its spider, says it too."""
    if not jobdir.exists():
        return None
    if (jobdir / JOBDIR_OPEN).exists():
        return f"{jobdir} is still marked {JOBDIR_OPEN}: its spider was killed with its launcher"
    if not (jobdir / "spider.state").is_file():
        return f"{jobdir} has no spider.state"
    queue = jobdir / "requests.queue"
    if queue.is_dir() and not (queue / "active.json").is_file():
        return f"{queue} has no active.json"
    return None


#: A job directory holding only this file, which names a warehouse: its crawl finished, and its
#: staging run waits to be loaded into that warehouse.
AWAITING_LOAD = "awaiting_load"


def unloaded_runs(settings: Settings, site: str, mode: str, warehouse: Path,
                  loaded: Callable[[list[str]], set[str]]) -> list[Path]:
    """Staging runs of ``site`` in ``mode`` whose crawl finished but that were never loaded into
    ``warehouse``, oldest first.

    A crawl stopped between its spider's end and its load (SIGTERM, a warehouse that stayed busy)
    leaves one; the next crawl of the site loads it first, so that it does not fetch those pages
    again. Only crawls launched to be loaded into this ``warehouse`` count (their job directory's
    :data:`AWAITING_LOAD` names it): a crawl for another warehouse, a plain ``scrapy crawl``
    (perhaps of the offline snapshots) or ``arastance reparse --no-load`` is loaded only when its
    user asks. ``loaded`` says which run ids the warehouse holds; a run loaded meanwhile
    (``arastance claims load``) is released here.
    """
    targets = {warehouse_mark(settings, warehouse), str(Path(warehouse).resolve())}  # and as marked before 2026-12-04
    waiting = []
    for name in _runs_of(settings.crawl_jobs_dir, site, mode):
        marker = settings.crawl_jobs_dir / name / AWAITING_LOAD
        if not marker.is_file() or marker.read_text(encoding="utf-8", errors="replace").strip() not in targets:
            continue
        if (crawl_staging_dir(settings) / name).is_dir():
            waiting.append(name)
        else:
            log.warning("a finished crawl's staging run was removed before its load; forgetting it",
                        extra={"site": site, "run_id": name})
            release_run(settings, name)
    stored = loaded(waiting) if waiting else set()
    for name in stored:
        release_run(settings, name)
    return [crawl_staging_dir(settings) / name for name in reversed(waiting) if name not in stored]


def warehouse_mark(settings: Settings, warehouse: Path) -> str:
    """How a job directory's :data:`AWAITING_LOAD` names ``warehouse``: relative to the data
    directory when it lies inside it (the default; a link inside it is not followed out of it), so
    that a data directory moved or mounted elsewhere still finds the runs that wait for its warehouse
    (an absolute path no longer matched, and they waited for good); absolute otherwise."""
    for base, target in ((Path(os.path.abspath(settings.data_dir)), Path(os.path.abspath(warehouse))),
                         (settings.data_dir.resolve(), Path(warehouse).resolve())):  # links kept, then followed
        if target.is_relative_to(base):
            return target.relative_to(base).as_posix()
    return str(Path(warehouse).resolve())


def release_run(settings: Settings, run_id: str) -> None:
    """Forget a finished crawl's job directory once its staging run is loaded."""
    shutil.rmtree(settings.crawl_jobs_dir / run_id, ignore_errors=True)


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


def archive_claim_captures(site: str, settings: Settings, limit: int | None = None) -> tuple[list[Capture], dict[str, int]]:
    """The captures of ``site``'s claim pages in the ``crawl.archive_*`` window, one per canonical URL.

    Discovery goes through the CDX API (paged, cached, polite; see :mod:`tasks.web_archive`), a
    claim page captured only as a redirect by the capture it leads to
    (:meth:`~tasks.web_archive.client.WaybackClient.discover`); captures whose URL is not a claim page (``[archive] claim_url`` in the site's TOML) are
    counted and left out, and of several spellings of one page the earliest capture is kept.
    With ``limit``, discovery stops at the CDX page where that many claim captures are known
    (a sample for ``arastance sites check``).
    """
    config = load_site_config(site)
    client = client_from_settings(settings.crawl, settings.data_dir)
    query = CdxQuery(f"{config.archive_host}/*", settings.crawl.archive_from, settings.crawl.archive_to,
                     page_size=settings.crawl.archive_page_size)

    def claim_key(original: str) -> str | None:
        """The claim page's key of a captured URL, None for any other page. The pattern is tested on
        the key, as live discovery does: an AMP or utm_ capture is the post's."""
        try:
            key = canonicalize_url(to_site_url(original, config.canonical_base))
        except UrlError:
            return None
        return key if config.is_claim_url(key) else None

    chosen: dict[str, Capture] = {}
    counts = {"archive_listed": 0, "archive_not_claim_url": 0, "archive_duplicate_spelling": 0}
    for capture in client.discover(query, follow=lambda original: claim_key(original) is not None):
        if limit is not None and len(chosen) >= limit:
            break
        counts["archive_listed"] += 1
        key = claim_key(capture.original)
        if key is None:
            counts["archive_not_claim_url"] += 1
            continue
        if key in chosen:
            counts["archive_duplicate_spelling"] += 1
            if capture.timestamp >= chosen[key].timestamp:
                continue
        chosen[key] = capture
    counts["archive_requests"] = client.requests_sent
    return sorted(chosen.values(), key=lambda c: (c.timestamp, c.original)), counts


#: The line a spider logs when it abandons its run, by the reason: its logger and message
#: (:mod:`spiders.disk_full`, :mod:`spiders.pipelines`).
ABANDONED_LINES = {DISK_FULL_REASON: ("spiders.disk_full", DISK_FULL_LOG),
                   LOST_WRITE_REASON: ("spiders.pipelines", LOST_WRITE_LOG)}


def _abandoning_line(text: str, reason: str) -> str | None:
    """The last line of a crawl's log ``text`` that abandons its run for ``reason``, or None.

    Only a line as that logger writes it counts (Scrapy's ``LOG_FORMAT``: time, ``[logger]``, level,
    message): a log also quotes the web (a header value, an error's text), and a server that sent the
    message's words made a crawl that was going well look abandoned, never loaded or resumed.
    """
    logger, message = ABANDONED_LINES[reason]
    found = re.findall(rf"^\S+ \S+ \[{re.escape(logger)}\] ERROR: {re.escape(message)}.*$", text, re.MULTILINE)
    return found[-1] if found else None


def _logged_field(line: str, key: str) -> str | None:
    """The ``key=`` field of a logged ``line`` (a value with blanks is logged as its ``repr``:
    :class:`arastance.logging.KeyValueFormatter`), or None."""
    found = re.findall(rf" {re.escape(key)}=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)", line)
    if not found:
        return None
    value = found[-1]
    return ast.literal_eval(value) if value[0] in "'\"" else value


def _abandoned_for(log_file: Path) -> tuple[str, str] | None:
    """Why the crawl logged in ``log_file`` abandoned its run (a full disk, another lost write), with
    the line saying so, or None. The spider logs it as an error when it decides to stop
    (:mod:`spiders.disk_full`, :mod:`spiders.pipelines`), and removes the run when it closes; the
    whole log is read, because a time-out may cut the close short (and Scrapy's stats, dumped after
    the line, fill the tail), and a resumed crawl's sessions share the log."""
    text = log_file.read_text(encoding="utf-8", errors="replace") if log_file.exists() else ""
    return next(((reason, line) for reason in ABANDONED_LINES
                 if (line := _abandoning_line(text, reason)) is not None), None)


def _raise_if_abandoned(site: str, run_id: str, run_dir: Path, job: Path, log_file: Path) -> None:
    """Raise the :class:`CrawlError` of a crawl that abandoned its run, after removing its JOBDIR:
    a crawl resumed from it would not fetch again the pages whose writes were lost (Scrapy counts
    them as seen). A full disk's error has the system's error as its cause, by which callers tell
    it (the flow does not retry one)."""
    abandoned = _abandoned_for(log_file)
    if abandoned is None:
        return
    reason, line = abandoned
    shutil.rmtree(job, ignore_errors=True)
    kept = ("no partial staging run is kept" if not run_dir.exists() else
            f"its partial staging run {run_dir} could not be removed (remove it once the disk is mended; it is "
            f"never loaded)")
    if job.exists():
        kept += (f"; its JOBDIR {job} could not be removed either: remove it, or the next crawl resumes the run "
                 f"and skips the pages it lost")
    last_lines = tail(log_file, 40)
    error = _logged_field(line, "error")
    if reason == DISK_FULL_REASON:
        said = [number for number, words in DISK_FULL.items() if words in (error or "")] or [errno.ENOSPC]
        raise CrawlError(f"crawl of {site} (run {run_id}) stopped: the disk filled up, and {kept}; free space and "
                         f"crawl again (log {log_file})\n{last_lines}") from OSError(said[0], DISK_FULL[said[0]])
    said = re.match(r"\[Errno (\d+)\] ([^:]+)", error or "")
    raise CrawlError(f"crawl of {site} (run {run_id}) stopped: a write to its staging run failed "
                     f"({error or 'see the log'}), and {kept}; fix that and crawl again (log {log_file})\n"
                     f"{last_lines}") from (OSError(int(said[1]), said[2]) if said else None)  # callers tell it by this


def run_verdict(summary: dict[str, Any]) -> str:
    """``"ok"``, or ``"failed: <reason>"`` for a run that found nothing usable.

    A run fails when it parsed no claim and skipped none as already known (the site's markup
    changed, the archive lists nothing in the window, every page was refused), or when every
    page it fetched failed.
    """
    pages, items, errors = summary["pages"], summary["items"], summary["errors"]
    known = summary["dropped"].get("already_known", 0)
    if pages and errors == pages:
        reasons = ", ".join(f"{k}={v}" for k, v in summary["dropped"].items() if v and k != "already_known")
        return f"failed: only fetch errors ({errors} page(s): {reasons})"
    if items == 0 and known == 0:
        return f"failed: no claims found ({pages} page(s) fetched, {errors} failed)"
    return "ok"


def _archive_arguments(site: str, settings: Settings, job: Path,
                       limit: int | None = None) -> tuple[dict[str, str], dict[str, object]]:
    """Discover the site's captures into the job directory; the spider's arguments and politeness settings."""
    try:
        captures, counts = archive_claim_captures(site, settings, limit)
    except ArchiveError as exc:
        raise CrawlError(f"archive discovery for {site} failed: {exc}") from None
    captures_file = job / "captures.jsonl"
    captures_file.write_text("".join(json.dumps(c.__dict__, ensure_ascii=False) + "\n" for c in captures),
                             encoding="utf-8")
    log.info("archive captures chosen", extra={"site": site, "captures": len(captures), **counts})
    crawl = settings.crawl
    polite = crawl.archive_delay_s > 0
    args = {"mode": "archive", "captures": str(captures_file), "archive_url": str(crawl.archive_url)}
    options: dict[str, object] = {
        "DOWNLOAD_DELAY": crawl.archive_delay_s, "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1 if polite else crawl.concurrent_requests_per_domain,
        "RETRY_TIMES": crawl.archive_retry_times,
        "ARASTANCE_ARCHIVE_DISCOVERY": json.dumps(counts),
    }
    return args, options


def run_spider(
    site: str,
    settings: Settings,
    *,
    known_urls: Iterable[str] = (),
    incremental: bool | None = None,
    scrapy_settings: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
    mode: str = "live",
    spider_args: Mapping[str, str] | None = None,
    archive_limit: int | None = None,
    load_into: Path | None = None,
) -> CrawlResult:
    """Crawl ``site`` in a child process and return its finished staging run.

    ``known_urls`` are the canonical URLs already stored; with ``incremental`` (default: the
    ``crawl.incremental`` setting) only new detail pages are fetched. An interrupted earlier run
    of the site is resumed instead of starting a new one when ``crawl.resumable`` is set.
    ``mode="archive"`` reads the site's claim pages from the web archive (``crawl.archive_*``):
    captures are discovered first, in this process, then fetched by the spider at the archive's
    polite pace (``crawl.archive_delay_s`` between requests). ``load_into`` is the warehouse the
    caller loads the run into: the run is marked as waiting for that load until
    :func:`release_run`, so that a crawl stopped before it is loaded by the next one.
    """
    if site not in SITES:
        raise ValueError(f"unknown site {site!r}; spiders exist for {', '.join(sorted(SITES))}")
    if mode not in ("live", "archive"):
        raise ValueError(f"crawl mode must be live or archive, got {mode!r}")
    # One crawl per site and mode (live, archive): a second one would "resume" the first one's live scratch
    # directory and both would append to the same staging files.
    with stage_lock(settings.data_dir / "locks", f"crawl-{site}" + (ARCHIVE_RUN_SUFFIX if mode == "archive" else "")):
        return _crawl(site, settings, known_urls=known_urls, incremental=incremental,
                      scrapy_settings=scrapy_settings, timeout_s=timeout_s, mode=mode,
                      spider_args=spider_args, archive_limit=archive_limit, load_into=load_into)


def _crawl(
    site: str,
    settings: Settings,
    *,
    known_urls: Iterable[str],
    incremental: bool | None,
    scrapy_settings: Mapping[str, str] | None,
    timeout_s: float | None,
    mode: str,
    spider_args: Mapping[str, str] | None,
    archive_limit: int | None,
    load_into: Path | None,
) -> CrawlResult:
    incremental = settings.crawl.incremental if incremental is None else incremental
    resumed_id = unfinished_run(settings, site, mode) if settings.crawl.resumable else None
    run_id = resumed_id or new_run_id(site) + (ARCHIVE_RUN_SUFFIX if mode == "archive" else "")
    log_file = crawl_log_file(settings, run_id)
    log_file.parent.mkdir(parents=True, exist_ok=True)  # first: a refusal here leaves no job directory behind
    log_file.touch()  # (the directory may exist already and refuse only the file)
    job = settings.crawl_jobs_dir / run_id
    job.mkdir(parents=True, exist_ok=True)
    known_file = job / "known_urls.txt"
    if not (job / "scrapy").is_dir():  # a fresh JOBDIR, of a new run or not, skips what is stored now
        known_file.write_text("".join(f"{u}\n" for u in known_urls), encoding="utf-8")
    args = {"run_id": run_id, "known_urls": str(known_file), "incremental": "true" if incremental else "false"}
    options: dict[str, object] = {"LOG_FILE": log_file, "LOG_FILE_APPEND": True}
    if settings.crawl.resumable:
        options["JOBDIR"] = job / "scrapy"
    if mode == "archive":
        archive_args, archive_options = _archive_arguments(site, settings, job, archive_limit)
        args.update(archive_args)
        options.update(archive_options)
    options.update(scrapy_settings or {})
    args.update(spider_args or {})  # e.g. discovery=sitemap,listing
    log.info("crawl starting", extra={"site": site, "run_id": run_id, "resumed": bool(resumed_id),
                                      "incremental": incremental, "known_urls": sum(1 for _ in known_file.open())})
    run_dir = crawl_staging_dir(settings) / run_id
    try:
        proc = run_scrapy(site, settings, output=log_file.with_suffix(".out"), args=args, scrapy_settings=options,
                          timeout_s=timeout_s)
    except SpiderTimeout:
        _raise_if_abandoned(site, run_id, run_dir, job, log_file)
        raise CrawlError(
            f"crawl of {site} (run {run_id}) exceeded {timeout_s}s and was stopped; "
            f"{'the next crawl of the site resumes it' if settings.crawl.resumable else 'it is not resumable'} "
            f"(log {log_file})\n{tail(log_file)}"
        ) from None
    elapsed = proc.elapsed_s
    if proc.returncode != 0 or not (run_dir / RUN_FILE).exists():
        if not run_dir.exists():  # nothing kept: nothing to resume
            shutil.rmtree(job, ignore_errors=True)
        _raise_if_abandoned(site, run_id, run_dir, job, log_file)
        last_lines = tail(log_file, 40)
        full = logged_disk_full(last_lines) or logged_disk_full(proc.output_tail)
        if full is not None:  # a full disk before the spider ran (Scrapy's start, the JOBDIR's first write, its log)
            raise CrawlError(f"crawl of {site} (run {run_id}) failed: the disk filled up; free space and crawl again "
                             f"(log {log_file})\n{proc.last_lines(15)}\n{last_lines}") from full
        raise CrawlError(
            f"crawl of {site} (run {run_id}) failed with exit code {proc.returncode} (log {log_file})\n"
            f"{proc.last_lines(15)}\n{tail(log_file)}"
        )
    shutil.rmtree(job, ignore_errors=True)  # the JOBDIR's queue and the inputs
    if load_into is not None:  # a mark stays until the load
        job.mkdir()
        (job / AWAITING_LOAD).write_text(f"{warehouse_mark(settings, load_into)}\n", encoding="utf-8")
    summary = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    log.info("crawl finished", extra={"site": site, "run_id": run_id, "pages": summary["pages"],
                                      "items": summary["items"], "errors": summary["errors"],
                                      "elapsed_s": round(elapsed, 2), "staging_dir": str(run_dir),
                                      "log_file": str(log_file)})
    _relay_problems(log_file, site, run_id)
    return CrawlResult(site=site, run_id=run_id, run_dir=run_dir, log_file=log_file, summary=summary,
                       resumed=bool(resumed_id), elapsed_s=elapsed)
