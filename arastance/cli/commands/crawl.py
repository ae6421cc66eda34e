"""``arastance crawl``, ``arastance reparse`` and ``arastance snapshots build|serve``."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from typing import Optional

import typer

from arastance.base.sites import available_sites, enabled_sites, site_base_url
from arastance.cli.common import console, fail, offline_world_if, print_table, settings
from arastance.config.crawl import CrawlSettings

snapshots_app = typer.Typer(help="Build and serve the offline snapshots of the crawled sites.", no_args_is_help=True)


def _check_sites(sites: list[str] | None) -> list[str]:
    chosen = sites or enabled_sites()
    unknown = sorted(set(chosen) - set(available_sites()))
    if unknown:
        fail(f"unknown --site {', '.join(unknown)}; spiders exist for {', '.join(available_sites())}")
    return chosen


def built_snapshots() -> Path:
    """The snapshots under ``<data_dir>/snapshots``, built if missing, before any flow or server starts: a
    directory there that holds other files is one line naming it and what to do, not a traceback."""
    from snapshots.build import SnapshotDirError
    from snapshots.server import default_root

    try:
        return default_root()
    except SnapshotDirError as exc:
        fail(str(exc))


def check_offline(sites: list[str]) -> None:
    """``--offline`` crawls (or checks) only the sites the snapshots hold (any other would be crawled live, without
    the politeness delays), from snapshots built before the flow starts."""
    from snapshots.offline import NoSnapshotsError, check_snapshotted

    try:
        check_snapshotted(sites)
    except NoSnapshotsError as exc:
        fail(str(exc))
    built_snapshots()


def _day(value: Optional[str], option: str) -> Optional[date]:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"{option} must be a date YYYY-MM-DD, got {value!r}")


def _check_archive_window(start: Optional[date], end: Optional[date], crawl_settings: CrawlSettings) -> None:
    """Refuse a capture window that ends before it starts, a bound not given taken from the settings as the
    flow takes it: ``--from`` after the default ``crawl.archive_to`` was a validation traceback from the flow."""
    if (start or crawl_settings.archive_from) <= (end or crawl_settings.archive_to):
        return
    first = f"--from {start}" if start else f"crawl.archive_from {crawl_settings.archive_from}"
    last = f"--to {end}" if end else f"crawl.archive_to {crawl_settings.archive_to}"
    fail(f"{first} is after {last}" + ("" if start and end else f"; give {'--to' if start else '--from'} as well"))


def crawl(
    site: Optional[list[str]] = typer.Option(None, "--site", "-s", help="site to crawl (repeatable; default: the enabled ones)"),
    full: bool = typer.Option(False, "--full", help="re-fetch every post, not only the new ones"),
    offline: bool = typer.Option(False, "--offline", help="crawl the local snapshots instead of the real sites"),
    archive: bool = typer.Option(False, "--archive", help="read the sites as they were, from the web archive (crawl.archive_url)"),
    both: bool = typer.Option(False, "--both", help="crawl the live sites, then their archive captures"),
    from_: Optional[str] = typer.Option(None, "--from", help="first capture day of an archive crawl (default crawl.archive_from, 2012-01-01)"),
    to: Optional[str] = typer.Option(None, "--to", help="last capture day of an archive crawl (default crawl.archive_to, 2018-12-31)"),
) -> None:
    """Crawl the fact-checking sites and Reuters Arabic, live or as archived, then load the claims (Prefect flow)."""
    s = settings()
    chosen = _check_sites(site)
    if archive and both:
        fail("--archive and --both exclude each other")
    mode = "archive" if archive else "both" if both else s.crawl.mode  # crawl.mode is --archive/--both as a setting
    start, end = _day(from_, "--from"), _day(to, "--to")
    if (start or end) and mode == "live":
        fail("--from/--to choose archive captures: add --archive (or --both), or set crawl.mode")
    _check_archive_window(start, end, s.crawl)
    if offline:
        check_offline(chosen)
    from flows.crawl_sources import crawl_sources

    try:
        with offline_world_if(offline):
            rows = crawl_sources(sites=chosen, incremental=False if full else None, mode=mode,
                                 archive_from=start, archive_to=end)
    except RuntimeError as exc:
        fail(str(exc), code=1)
    print_table(rows, title="Crawl", columns=["site", "mode", "status", "pages", "claims_parsed", "new_claims",
                                              "errors", "requests", "seconds"])
    for row in rows:
        if row.get("dropped"):
            console.print(f"{row['site']} ({row['run_id']}) dropped: {row['dropped']}", highlight=False)
        if row.get("earlier_runs_loaded"):
            console.print(f"{row['site']} ({row['mode']}): loaded {row['earlier_runs_loaded']} earlier crawl(s) "
                          "stopped before their load, first", highlight=False)


def reparse(
    site: Optional[list[str]] = typer.Option(None, "--site", "-s", help="site to re-parse (repeatable; default: all)"),
    load: bool = typer.Option(True, "--load/--no-load", help="load the new staging run into the warehouse"),
) -> None:
    """Re-run extraction over the raw HTML stored in the warehouse, without re-crawling."""
    s = settings()
    chosen = _check_sites(site)
    from spiders.reparse import reparse_pages
    from warehouse import WarehouseError, open_published, open_warehouse
    from warehouse.crawl_inputs import count_detail_pages, iter_detail_pages

    rows = []
    for name in chosen:
        try:  # the readers' copy: read-only on the writer's file, parsing every page held off every writer
            with open_published(s.warehouse) as wh:
                summary, run_dir = reparse_pages(
                    iter_detail_pages(wh, name), name, site_base_url(s.sites, name), s.staging_dir / "crawl",
                    total=count_detail_pages(wh, name),
                )
        except WarehouseError as exc:
            fail(str(exc))
        row = {"site": name, "run_id": summary.run_id, "pages": summary.pages, "claims": summary.items,
               "failed": summary.errors, "staging": str(run_dir)}
        if load:
            from tasks.claim_load.load import load_crawl_run

            with open_warehouse(s.warehouse) as wh:
                row["new_claims"] = load_crawl_run(wh, run_dir, settings=s).new_claims
        rows.append(row)
    print_table(rows, title="Reparse")


@snapshots_app.command("build")
def snapshots_build(
    out: Optional[Path] = typer.Option(None, "--out", help="directory to write (default: <data_dir>/snapshots)"),
) -> None:
    """Render the offline web (fact-check sites, Reuters, news mirror) from the synthetic world."""
    s = settings()
    from snapshots.build import SnapshotDirError, build_snapshots

    try:
        summary = build_snapshots(out or s.snapshots_dir)
    except SnapshotDirError as exc:
        fail(str(exc))
    print_table([{"site": k, "pages": v} for k, v in summary.pages.items()], title=f"Snapshots in {summary.root}")


@snapshots_app.command("serve")
def snapshots_serve(
    root: Optional[Path] = typer.Option(None, "--root", help="built snapshots (default: <data_dir>/snapshots, built if missing)"),
    port: int = typer.Option(8800, "--port", min=0, max=65535, help="port on 127.0.0.1 (0: any free port)"),
    slow_delay: float = typer.Option(1.0, "--slow-delay", min=0.0, help="seconds the deliberately slow pages take"),
) -> None:
    """Serve the snapshots on 127.0.0.1 until interrupted; prints each site's base URL."""
    settings()
    from snapshots.server import SnapshotServer

    try:
        server = SnapshotServer(_served_root(root), port=port, slow_delay_s=slow_delay)
    except (FileNotFoundError, OSError) as exc:
        fail(str(exc))
    with server:
        for name in server.sites():
            console.print(f"ARASTANCE_SITES__{name.upper()}={server.site_url(name)}", highlight=False)
        console.print(f"ARASTANCE_CRAWL__ARCHIVE_URL={server.archive_url}", highlight=False)
        console.print(f"ARASTANCE_CRAWL__ARCHIVE_AVAILABILITY_URL={server.availability_url}", highlight=False)
        console.print(f"ARASTANCE_SEARCH__MIRROR_BASE={server.base_url}", highlight=False)
        console.print("serving; Ctrl-C stops", highlight=False)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


def _served_root(root: Optional[Path]) -> Path:
    """``--root`` when it holds a finished build (any other directory, the data directory say, would be
    served whole, its warehouse included); without it the default snapshots, built if missing."""
    if root is None:
        return built_snapshots()
    from snapshots.build import COMPLETE_MARKER

    if root.is_dir() and not (root / COMPLETE_MARKER).is_file():
        fail(f"--root {root} is not a snapshot build (it has no {COMPLETE_MARKER}); give a directory that "
             "`arastance snapshots build` wrote, or write one with `arastance snapshots build --out DIR`")
    return root  # a file or nothing there: the server names it


def register(app: typer.Typer) -> None:
    app.command("crawl")(crawl)
    app.command("reparse")(reparse)
    app.add_typer(snapshots_app, name="snapshots")
