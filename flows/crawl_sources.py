"""Prefect flow ``crawl_sources``: crawl each site in its own process, load each staging run.

The flow only orchestrates. Each site (and mode) is a ``crawl_site`` flow run of its own, named
``crawl-<site>-<mode>``, that crawls and loads that site, so the Prefect UI shows each site's
state. Spiders run as child processes (:mod:`tasks.crawl_runner`; Twisted's
reactor cannot restart inside one process) and may run side by side; loading into the
warehouse (:func:`tasks.claim_load.load.load_crawl_run`) happens one run at a time, the warehouse
having a single writer. A crawl task that fails is retried once, and the retry resumes the
interrupted crawl from its Scrapy JOBDIR; one stopped by a full disk is not retried (it would stop
the same way). The sites' addresses come from the settings: the demo,
``arastance crawl --offline`` and the tests crawl the offline snapshots by running this flow
inside ``snapshots.offline.offline_world()``; the flow itself knows nothing of them.

``mode`` (default ``crawl.mode``) chooses where pages come from: ``live`` sites, the web
``archive`` (captures in ``crawl.archive_from``..``crawl.archive_to``), or ``both``: a live pass,
then an archive pass that skips what the live pass stored. A site whose run parses no claim
(and skips none as already known), or whose every page failed, ends its ``crawl_site`` run
Failed with the reason; the other sites are still crawled and loaded, and then the
``crawl_sources`` run ends Failed naming the failed sites.
"""

from __future__ import annotations

import threading
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from pydantic import Field

from arastance.base.sites import available_sites, crawl_modes, enabled_sites
from arastance.base.stopping import check_stop, stop_on_exit
from arastance.base.staging import StagingError
from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from flows.artifacts import table_artifact
from flows.runners import unless_disk_refuses_writes, warehouse_busy
from tasks.claim_load.load import LoadReport, load_crawl_run
from tasks.crawl_runner import CrawlError, CrawlResult, release_run, run_spider, run_verdict, unloaded_runs
from warehouse import flow_warehouse, open_warehouse
from warehouse.claims import loaded_run_ids
from warehouse.crawl_inputs import known_canonical_urls

log = get_logger(__name__)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE,
      task_run_name="known-urls-{site}")
def stored_claim_urls(warehouse_path: Path, site: str) -> list[str]:
    """Canonical URLs already stored for ``site`` (retried while another writer holds the file)."""
    with open_warehouse(warehouse_path) as wh:
        return known_canonical_urls(wh, site)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE,
      task_run_name="unloaded-runs-{site}-{mode}")
def unloaded_staging_runs(warehouse_path: Path, site: str, mode: str, settings: Settings) -> list[Path]:
    """Finished crawls of ``site`` in ``mode`` never loaded (:func:`tasks.crawl_runner.unloaded_runs`)."""
    with open_warehouse(warehouse_path) as wh:
        return unloaded_runs(settings, site, mode, warehouse_path, lambda run_ids: loaded_run_ids(wh, run_ids))


@task(retries=1, retry_delay_seconds=5, retry_condition_fn=unless_disk_refuses_writes, cache_policy=NO_CACHE,
      task_run_name="crawl-{site}-{mode}")
def crawl_site(site: str, settings: Settings, known_urls: list[str], incremental: bool, mode: str,
               warehouse_path: Path) -> CrawlResult:
    """One spider process; its staging run comes back, marked as waiting to be loaded into
    ``warehouse_path``. A retry resumes a crawl that timed out."""
    return run_spider(site, settings, known_urls=known_urls, incremental=incremental,
                      timeout_s=settings.crawl.run_timeout_s, mode=mode, load_into=warehouse_path)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE,
      task_run_name="load-{run_dir.name}")
def load_staging_run(warehouse_path: Path, run_dir: Path, settings: Settings) -> LoadReport:
    """Load one finished staging run into the warehouse (idempotent; retried while it is busy)."""
    with open_warehouse(warehouse_path) as wh:
        return load_crawl_run(wh, run_dir, settings=settings)


def summary_row(result: CrawlResult, loaded: LoadReport, mode: str = "live") -> dict[str, Any]:
    """The per-site line of the flow's result and artifact."""
    s = result.summary
    return {
        "site": result.site,
        "mode": mode,
        "status": run_verdict(s),
        "run_id": result.run_id,
        "pages": s["pages"],
        "claims_parsed": s["items"],
        "new_claims": loaded.new_claims,
        "errors": s["errors"],
        "dropped": ", ".join(f"{k}={v}" for k, v in s["dropped"].items() if v) or "-",
        "requests": s["stats"].get("downloader/request_count", 0),
        "resumed": result.resumed,
        "seconds": round(result.elapsed_s, 1),
    }


class SiteRunFailed(RuntimeError):
    """A site's ``crawl_site`` run failed; carries its summary row, so the parent's result and
    artifact still list the site (the run's state message is the reason)."""

    def __init__(self, reason: str, row: dict[str, Any]) -> None:
        super().__init__(reason, row)
        self.row = row

    def __str__(self) -> str:
        return str(self.args[0])


def _failed_row(site: str, mode: str, reason: str) -> dict[str, Any]:
    """The summary row of a site whose crawl or load raised before a summary existed."""
    return {"site": site, "mode": mode, "status": f"failed: {reason.splitlines()[0]}"}


# The warehouse has a single writer: the sites' runs crawl side by side but open it one at a time.
_WAREHOUSE_TURN = threading.Lock()


def _load_earlier_runs(warehouse_path: Path, site: str, mode: str, settings: Settings) -> int:
    """Load the site's finished but unloaded crawls before crawling again, so that the crawl knows
    their claims and does not fetch them twice; return how many were loaded. One that cannot be
    loaded is logged and left for ``arastance claims load``: it does not stop this crawl."""
    count = 0
    for run_dir in unloaded_staging_runs(warehouse_path, site, mode, settings):
        check_stop(f"loading the earlier crawls of {site}")
        try:
            report = load_staging_run(warehouse_path, run_dir, settings)
        except StagingError as exc:
            log.warning("an earlier crawl could not be loaded; fix it and `arastance claims load` it, or remove it",
                        extra={"site": site, "run_dir": str(run_dir), "error": str(exc)[:500]})
            continue
        release_run(settings, run_dir.name)
        if not report.already_loaded:  # another crawl of the site may have loaded it meanwhile
            log.info("loaded an earlier crawl that was stopped before its load",
                     extra={"site": site, "run_id": report.run_id, "new_claims": report.new_claims})
            count += 1
    return count


def crawl_settings(window: dict[str, date]) -> Settings:
    """The settings, with ``window`` (archive_from and/or archive_to given to ``crawl_sources``) over
    the crawl's archive window. Each site's run reads them itself: given as a parameter, the whole
    settings were stored with every ``crawl_site`` run, credentials inside URLs in clear."""
    settings = load_settings()
    if not window:
        return settings
    return settings.model_copy(update={
        "crawl": type(settings.crawl).model_validate({**settings.crawl.model_dump(), **window})})


@flow(name="crawl_site", flow_run_name="crawl-{site}-{mode}", validate_parameters=False)
def crawl_one_site(site: str, mode: str, window: dict[str, date], warehouse_path: Path,
                   incremental: bool) -> dict[str, Any]:
    """Crawl and load one site in one mode, as a flow run of its own so that the Prefect UI shows
    each site's state: Failed, with the reason as its message, when the crawl or the load
    raised, or when the run found nothing usable (:func:`tasks.crawl_runner.run_verdict`).

    Returns the site's summary row; a failure raises :class:`SiteRunFailed` carrying it.
    """
    settings = crawl_settings(window)
    with _WAREHOUSE_TURN:
        earlier = _load_earlier_runs(warehouse_path, site, mode, settings)
        known = stored_claim_urls(warehouse_path, site) if incremental else []
    try:
        result = crawl_site(site, settings, known, incremental, mode, warehouse_path)
    except CrawlError as exc:
        log.error("crawl failed", extra={"site": site, "mode": mode, "error": str(exc)[:500]})
        row = _failed_row(site, mode, str(exc))
    else:
        try:
            with _WAREHOUSE_TURN:
                loaded = load_staging_run(warehouse_path, result.run_dir, settings)
        except StagingError as exc:  # this run stays on disk for `arastance claims load`
            log.error("load failed", extra={"site": site, "run_dir": str(result.run_dir), "error": str(exc)[:500]})
            row = _failed_row(site, mode, f"load {str(exc)}")
        else:
            release_run(settings, result.run_id)
            row = summary_row(result, loaded, mode)
    row["earlier_runs_loaded"] = earlier
    if row["status"] != "ok":
        raise SiteRunFailed(f"{site} ({mode}): {row['status'].removeprefix('failed: ')}", row)
    return row


@task(cache_policy=NO_CACHE, task_run_name="site-{site}-{mode}")
def site_run(site: str, mode: str, window: dict[str, date], warehouse_path: Path, incremental: bool) -> dict[str, Any]:
    """Run ``crawl_site`` for one site and hand back its row whatever its state: a task, so that
    the sites' runs go side by side on the flow's task runner (Prefect runs a subflow called
    directly to its end before the next one starts)."""
    state = crawl_one_site(site, mode, window, warehouse_path, incremental, return_state=True)
    if state.is_completed():
        return state.result()
    error = state.result(raise_on_failure=False)
    if isinstance(error, SiteRunFailed):
        return error.row
    return _failed_row(site, mode, state.message or f"crawl_site run ended {state.name}")


def _crawl_pass(sites: list[str], mode: str, window: dict[str, date], path: Path,
                incremental: bool) -> list[dict[str, Any]]:
    """Crawl and load ``sites`` in ``mode``, one ``crawl_site`` run each, side by side; one
    site's failure leaves the others to finish. A SIGTERM (or Ctrl-C) that ends the wait asks the
    sites' threads to stop: their discovery and spiders end, and nothing more is loaded."""
    with stop_on_exit():
        futures = [site_run.submit(site, mode, window, path, incremental) for site in sites]
        return [future.result() for future in futures]


@flow(name="crawl_sources", validate_parameters=True)
def crawl_sources(
    sites: Annotated[list[str], Field(min_length=1)] | None = None,
    incremental: bool | None = None,
    warehouse_path: str | None = None,
    mode: Literal["live", "archive", "both"] | None = None,
    archive_from: date | None = None,
    archive_to: date | None = None,
) -> list[dict[str, Any]]:
    """Crawl ``sites`` (default: the enabled ones), load what they found, and report per site.

    Args:
        sites: spiders to run (default: the sites enabled in arastance/base/site_configs: araanews,
            dabegad, norumors, reuters; an empty list is refused, not read as all).
        incremental: fetch only posts whose canonical URL is not yet in the warehouse, and stop
            paginating at the first listing page with nothing new (default: the
            crawl.incremental setting).
        warehouse_path: the DuckDB warehouse; default: the configured one.
        mode: live, archive or both (default: the crawl.mode setting).
        archive_from: first capture day of an archive crawl (default: crawl.archive_from).
        archive_to: last capture day of an archive crawl (default: crawl.archive_to).

    Returns one summary row per site and pass.
    """
    chosen = sites or enabled_sites()
    unknown = sorted(set(chosen) - set(available_sites()))
    if unknown:
        raise ValueError(f"unknown site(s) {unknown}; spiders exist for {available_sites()}")
    window = {k: v for k, v in (("archive_from", archive_from), ("archive_to", archive_to)) if v is not None}
    settings = crawl_settings(window)
    mode = mode or settings.crawl.mode
    incremental = settings.crawl.incremental if incremental is None else incremental
    path = flow_warehouse(warehouse_path, settings)
    passes: dict[str, list[str]] = {"live": [], "archive": []}
    for site in chosen:
        for site_mode in crawl_modes(site, mode):
            passes[site_mode].append(site)
    rows: list[dict[str, Any]] = []
    for pass_mode in ("live", "archive"):  # live first: the archive pass skips what it stored
        if passes[pass_mode]:
            rows += _crawl_pass(passes[pass_mode], pass_mode, window, path, incremental)
    table_artifact(rows, key="crawl-sources", description="per-site crawl and load figures")
    failed = [f"{r['site']} ({r['mode']}): {r['status'].removeprefix('failed: ')}" for r in rows if r["status"] != "ok"]
    if failed:
        loaded = sorted({r["site"] for r in rows if r["status"] == "ok"})
        raise RuntimeError(f"crawl or load failed for {'; '.join(failed)}"
                           + (f"; loaded: {', '.join(loaded)}" if loaded else ""))
    return rows
