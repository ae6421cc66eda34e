"""Build the whole offline web into one directory, ready for :mod:`snapshots.server`.

Layout: ``<root>/<site>/...`` for the three fact-checking sites and ``<root>/reuters/...``,
``<root>/mirror/<domain>/<path>`` for news articles, ``<root>/archive/index.json`` (the
captures the web archive emulator holds), ``<root>/robots.txt`` and
``<root>/faults.json`` (which paths answer 500, slowly, or only after a retry). Besides the
world's pages, each site's oldest listing page links to four pages that are not posts: a draft
that robots.txt disallows, a removed post (404), a post whose server always fails (500) and a
page whose HTML is a broken error page (200, nothing to parse).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from arastance.base.input_paths import blocked_directory
from arastance.base.whole_files import foreign_files
from arastance.logging import get_logger
from snapshots.archive_emulator import INDEX_FILE as ARCHIVE_INDEX_FILE
from snapshots.archive_index import archive_captures
from snapshots.fact_check_sites import (
    ListingEntry,
    newest_first,
    render_fact_check_site,
    write_page,
)
from snapshots.news_sites import render_news_sites
from snapshots.reuters_site import render_reuters_site
from snapshots.wordpress import ENDPOINTS as WORDPRESS_ENDPOINTS
from snapshots.wordpress import render_wordpress_endpoints
from snapshots.world import build_world
from snapshots.world.model import World

log = get_logger(__name__)

SITES = ("araanews", "dabegad", "norumors", "reuters")
FAULTS_FILE = "faults.json"
ROBOTS_FILE = "robots.txt"
COMPLETE_MARKER = ".complete"
FORMAT_VERSION = "5"  # bump when a renderer changes, so that cached builds are redone

#: Path (under a site) of each non-post page linked from the oldest listing page.
EXTRA_PATHS = {
    "draft": "/private/draft-preview/",
    "removed": "/2014/01/removed-post/",
    "server_error": "/2014/01/server-error/",
    "broken": "/2014/01/database-error/",
}
_EXTRA_TITLES = {
    "draft": "مسودة: مقال قيد المراجعة",
    "removed": "مقال محذوف",
    "server_error": "مقال لا يفتح",
    "broken": "صفحة معطوبة",
}
#: What a WordPress site prints when its database is down: a 200 with nothing to parse, cut short.
BROKEN_HTML = (
    "<!DOCTYPE html><html lang=\"ar\" dir=\"rtl\"><head><meta charset=\"utf-8\"><title>خطأ في قاعدة البيانات"
    "</title></head><body id=\"error-page\"><div class=\"wp-die-message\"><h2>خطأ في إنشاء اتصال بقاعدة البيانات"
    "<p>حاول لاحقا"
)
DRAFT_HTML = (
    "<!DOCTYPE html><html lang=\"ar\" dir=\"rtl\"><head><meta charset=\"utf-8\"><title>مسودة</title></head>"
    "<body><h1 class=\"entry-title\">مسودة غير منشورة</h1><p>هذه الصفحة ليست للنشر.</p></body></html>"
)


@dataclass(frozen=True)
class BuildSummary:
    """What was built: pages per site, the fault plan and the robots.txt rules."""

    root: Path
    pages: dict[str, int]
    faults: dict[str, dict[str, object]]
    disallowed: tuple[str, ...]


def _extras() -> list[ListingEntry]:
    return [ListingEntry(path, _EXTRA_TITLES[kind], _EXTRA_TITLES[kind], date(2014, 1, 1))
            for kind, path in EXTRA_PATHS.items()]


def _fault_plan(world: World) -> dict[str, dict[str, object]]:
    """Per-site faults: the extras' 500, one world page that fails once (then recovers after a
    retry) and one that answers slowly; Reuters' second listing page (a query-string address) also fails once."""
    faults: dict[str, dict[str, object]] = {}
    for site in SITES:
        faults[f"/{site}{EXTRA_PATHS['server_error']}"] = {"status": 500}
        if site == "reuters":
            paths = [h.path for h in sorted(world.headlines, key=lambda h: h.published, reverse=True)]
            faults["/reuters/news/archive/topNews?page=2&pageSize=10&view=page"] = {"status": 500, "times": 1}
        else:
            paths = [p.path for p in newest_first(world.posts_of(site))]
        faults[f"/{site}{paths[1]}"] = {"status": 503, "times": 1}
        faults[f"/{site}{paths[2]}"] = {"slow": True}
    return faults


class SnapshotDirError(ValueError):
    """The output directory holds something that is not a snapshot build, so it must not be replaced."""


#: What to do about an output directory that is not a build, when the directory was chosen (``--out``).
CHOOSE_ANOTHER = "choose a new or empty directory"


def check_replaceable(out_dir: Path, advice: str = CHOOSE_ANOTHER) -> None:
    """Refuse an ``out_dir`` that a build would wrongly delete or wrongly make: something other than a
    directory there or above it (a file; a symbolic link to nothing, whose target a build made, with every
    directory up to it), or a directory with files but no finished build's marker (``--out .`` or the data
    directory must never be wiped). ``advice`` ends the message: what the command that chose ``out_dir``
    lets its user do about it."""
    blocked = blocked_directory(out_dir)
    if blocked is not None:
        where, blocker = blocked
        named = where if where == out_dir else f"{out_dir}: {where}"  # ``out/sub`` under a link to nothing
        raise SnapshotDirError(f"{named} {blocker}; {advice}")
    if foreign_files(out_dir, _is_build):
        raise SnapshotDirError(f"{out_dir} holds files that are not a snapshot build (it has no {COMPLETE_MARKER}); "
                               f"{advice}")


def _is_build(directory: Path) -> bool:
    """Whether ``directory`` holds a finished build: the marker is written last, into the staging directory."""
    return (directory / COMPLETE_MARKER).is_file()


def _target(out_dir: Path, advice: str) -> Path:
    """``out_dir`` with its links followed (``.`` has no name to put the staging directory beside), once
    :func:`check_replaceable` took it as given: resolved first, a symbolic link to nothing named its target,
    where a build then made every missing directory."""
    check_replaceable(Path(out_dir), advice)
    return Path(out_dir).resolve()


@contextmanager
def _building(out_dir: Path) -> Iterator[None]:
    """Hold the build lock of ``out_dir``'s parent directory: a second process building the same snapshots
    (two offline crawls, or a demo, on a fresh data directory) waits here instead of deleting the first's
    staging directory under it. The directory itself is locked, so that no lock file is left beside the build."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def build_snapshots(out_dir: Path, world: World | None = None) -> BuildSummary:
    """Render every site of ``world`` (the default world) into ``out_dir``, replacing an earlier build there.

    The pages are rendered into a sibling directory that replaces ``out_dir`` once complete, so an
    interrupted build leaves the earlier one whole, and ``out_dir`` only ever holds finished builds
    (which is what lets :func:`check_replaceable` tell them from anything else).
    """
    out_dir = _target(out_dir, CHOOSE_ANOTHER)
    with _building(out_dir):
        return _build(out_dir, world or build_world(), CHOOSE_ANOTHER)


def _build(out_dir: Path, world: World, advice: str) -> BuildSummary:
    """:func:`build_snapshots` once its lock is held."""
    check_replaceable(out_dir, advice)
    staging = out_dir.with_name(f".{out_dir.name}.building")
    if staging.exists():  # left by an interrupted build
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        summary = _render(staging, world)
    except BaseException:  # a full disk stayed full with the half build until the next one
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _replace(out_dir, staging)
    log.info("snapshots built", extra={"root": str(out_dir), **{f"pages_{k}": v for k, v in summary.pages.items()}})
    return replace(summary, root=out_dir)


def _replace(out_dir: Path, staging: Path) -> None:
    """Move the finished build in ``staging`` over ``out_dir``. The earlier build is moved aside whole
    first and deleted last: deleting it in place, a refusal partway (a read-only part) left half of
    it under its marker, which the offline crawls then trusted."""
    earlier = out_dir.with_name(f".{out_dir.name}.replaced-{time.time_ns()}")
    if out_dir.exists():
        out_dir.rename(earlier)
    try:
        staging.rename(out_dir)
    except BaseException:
        if earlier.exists():
            earlier.rename(out_dir)
        raise
    shutil.rmtree(earlier, ignore_errors=True)
    if earlier.exists():
        log.warning("the earlier snapshot build could not be deleted whole; the new one is in place",
                    extra={"earlier": str(earlier), "root": str(out_dir)})


def _render(out_dir: Path, world: World) -> BuildSummary:
    """Every site's pages, the archive's captures, robots.txt, the fault plan and, last, the marker."""
    pages: dict[str, int] = {}
    listings: dict[str, tuple[str, ...]] = {}
    for site in SITES:
        site_dir = out_dir / site
        if site == "reuters":
            rendered = render_reuters_site(world, site_dir, extra_entries=_extras())
        else:
            rendered = render_fact_check_site(world, site, site_dir, extra_entries=_extras())
        if site in WORDPRESS_ENDPOINTS:
            render_wordpress_endpoints(site, newest_first(world.posts_of(site)), site_dir, list(EXTRA_PATHS.values()))
        write_page(site_dir, EXTRA_PATHS["draft"], DRAFT_HTML)
        write_page(site_dir, EXTRA_PATHS["broken"], BROKEN_HTML)
        pages[site] = len(rendered.detail_paths)
        listings[site] = rendered.listing_paths
    pages["mirror"] = render_news_sites(world, out_dir)
    disallowed = tuple(f"/{site}{EXTRA_PATHS['draft']}" for site in SITES)
    robots = "User-agent: *\n" + "".join(f"Disallow: {p}\n" for p in disallowed)
    (out_dir / ROBOTS_FILE).write_text(robots, encoding="utf-8")
    captures = archive_captures(world, out_dir, listing_paths=listings,
                                missing_paths={site: EXTRA_PATHS["removed"] for site in SITES})
    index_file = out_dir / ARCHIVE_INDEX_FILE
    index_file.parent.mkdir(parents=True, exist_ok=True)
    index_file.write_text(json.dumps({"captures": captures}, ensure_ascii=False), encoding="utf-8")
    pages["archive"] = len(captures)
    faults = _fault_plan(world)
    (out_dir / FAULTS_FILE).write_text(json.dumps(faults, ensure_ascii=False, indent=2), encoding="utf-8")
    (out_dir / COMPLETE_MARKER).write_text(build_stamp(world), encoding="utf-8")
    return BuildSummary(root=out_dir, pages=pages, faults=faults, disallowed=disallowed)


def build_stamp(world: World) -> str:
    """What a build depends on: the renderers' format version and the world's content."""
    digest = hashlib.sha256(repr((world.posts, world.headlines, world.articles)).encode("utf-8")).hexdigest()
    return f"{FORMAT_VERSION}:{digest[:16]}"


def ensure_snapshots(out_dir: Path, advice: str = CHOOSE_ANOTHER) -> Path:
    """Build the snapshots into ``out_dir`` unless a complete build of the same world is there.

    The stamp is read again once the build lock is held: a process that waited for another's build
    of the same world finds it done and does not build it again.
    """
    world = build_world()
    out_dir = _target(out_dir, advice)
    if not _is_current(out_dir, world):
        with _building(out_dir):
            if not _is_current(out_dir, world):
                _build(out_dir, world, advice)
    return out_dir


def _is_current(out_dir: Path, world: World) -> bool:
    """Whether ``out_dir`` holds a finished build of ``world`` by the current renderers."""
    marker = out_dir / COMPLETE_MARKER
    return marker.is_file() and marker.read_text(encoding="utf-8") == build_stamp(world)
