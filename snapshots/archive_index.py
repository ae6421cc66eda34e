"""The captures the archive emulator holds: every snapshot page under its real URL and a 2012–2018 time.

Besides one capture per page (shortly after the post was published, as crawlers of the time
saw it), the index holds what a real archive answers with and a client must cope with: a capture
recorded as a redirect to a later one, a capture listed but lost (404), captures outside the
paper's window, non-HTML captures, and originals spelled ``http://www.`` instead of the site's
canonical ``https://``.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import date, timedelta
from pathlib import Path

from snapshots.paths import page_file
from snapshots.fact_check_sites import CANONICAL_BASE, newest_first
from snapshots.world.model import FactCheckPost, World

WINDOW_END = date(2018, 12, 31)
UNDATED_CAPTURE = date(2016, 6, 1)


#: Where the redirecting capture points: a later capture of the same page.
REDIRECT_TARGET = "20181120080000"


def redirected_post(world: World, site: str) -> FactCheckPost:
    """The post whose first capture is a redirect to a later one (the last in listing order)."""
    return newest_first(world.posts_of(site))[-1]


def _ts(day: date, hhmmss: str = "101500") -> str:
    return f"{day:%Y%m%d}{hhmmss}"


def _digest(data: bytes) -> str:
    return base64.b32encode(hashlib.sha1(data).digest()).decode()


def _file_of(site: str, path: str) -> str:
    return f"{site}/{page_file(path)}"


def _spelling(site: str, path: str, n: int) -> str:
    """The original URL as the archive recorded it: Reuters and some Norumors pages as ``http://www.``."""
    base = CANONICAL_BASE[site]
    if site == "reuters" or (site == "norumors" and n % 3 == 0):
        base = base.replace("https://", "http://").replace("://", "://www." if site == "norumors" else "://")
    return base + path.lstrip("/")


def archive_captures(world: World, root: Path, *, listing_paths: dict[str, tuple[str, ...]],
                     missing_paths: dict[str, str]) -> list[dict[str, object]]:
    """Index rows for :class:`snapshots.archive_emulator.WaybackEmulator` (files relative to ``root``)."""
    rows: list[dict[str, object]] = []

    def add(site: str, path: str, day: date, n: int, **extra: object) -> None:
        file = _file_of(site, path)
        data = (root / file).read_bytes() if (root / file).is_file() else b""
        rows.append({"original": _spelling(site, path, n), "timestamp": _ts(min(day, WINDOW_END)), "file": file,
                     "digest": _digest(data), **extra})

    for site in ("araanews", "dabegad", "norumors"):
        posts = newest_first(world.posts_of(site))
        for n, post in enumerate(posts):
            add(site, post.path, (post.published or UNDATED_CAPTURE) + timedelta(days=3), n)
        # The last post listed: its first capture is a redirect (the site answered 301 then) to a later one.
        assert posts[-1] == redirected_post(world, site)
        first = rows[-1]
        rows.append({**first, "timestamp": REDIRECT_TARGET})
        first["redirect_to"] = REDIRECT_TARGET
    headlines = sorted(world.headlines, key=lambda h: h.published, reverse=True)
    for n, h in enumerate(headlines):
        add("reuters", h.path, h.published.date() + timedelta(days=1), n)
    for site, paths in listing_paths.items():
        for n, path in enumerate(paths):
            add(site, path, date(2018, 6, 1), n)
            add(site, path, date(2021, 3, 1), n)  # outside the paper's window
    for site, path in missing_paths.items():
        rows.append({"original": CANONICAL_BASE[site] + path.lstrip("/"), "timestamp": _ts(date(2014, 1, 9)),
                     "file": None, "digest": "LOST"})
    rows.append({"original": CANONICAL_BASE["norumors"] + "uploads/logo.png", "timestamp": _ts(date(2015, 1, 1)),
                 "file": None, "mimetype": "image/png", "digest": "IMAGE"})
    return rows
