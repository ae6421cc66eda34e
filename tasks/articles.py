"""Fetched article pages -> ``articles`` and ``raw_pages`` rows, with the Arabic check.

The article spider (``spiders/crawlers/articles.py``) runs in its own process (Twisted's reactor
starts once per process) and writes a gzip'd JSON Lines file; :func:`article_rows` turns that
file into warehouse rows. A page becomes an ``ok`` article only when its main text is long
enough (else ``empty``) and mostly Arabic (else ``not_arabic``); fetch failures keep their
reason in ``fetch_error``. The raw HTML is kept zlib-compressed in ``raw_pages``.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
from collections.abc import Iterable, Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from arastance.base.arabic import arabic_ratio
from arastance.base.disk_full import logged_disk_full
from arastance.base.ids import content_hash, stable_id
from arastance.base.jsonl import json_lines
from arastance.base.staging import (
    ARCHIVE_DAYS_FILE,
    FETCHED_FILE,
    URLS_FILE,
    read_url_list,
    write_archive_days,
    write_url_list,
)
from arastance.base.urls import UrlError, canonicalize_url, domain_of
from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from tasks.scrapy_launcher import run_scrapy

log = get_logger(__name__)


class FetchFileError(ValueError):
    """A line of the fetcher's output that cannot be loaded; names the file and line."""


def run_article_spider(urls: list[str], run_dir: Path, *, settings: Settings | None = None,
                       mirror_base: str | None = None, scrapy_settings: dict[str, Any] | None = None,
                       timeout_s: float = 3600, archive: tuple[str, str] | None = None,
                       archive_days: Mapping[str, date] | None = None) -> Path:
    """Fetch ``urls`` with the article spider in a child process; returns the output file.

    ``archive`` (the archive's root and its availability API) turns on the dead-link fallback;
    ``archive_days`` gives, by URL, the day a dead link's capture is sought around (its claim's
    date). Without one the archive answers with its newest capture, often a later, other page.

    The child gets ``settings`` (default: the ones this process loads) like every crawl child,
    through :func:`tasks.scrapy_launcher.run_scrapy`.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    urls_file = write_url_list(urls, run_dir / URLS_FILE)
    out = run_dir / FETCHED_FILE
    out.unlink(missing_ok=True)
    feeds = {str(out): {"format": "jsonlines", "encoding": "utf8", "overwrite": True,
                        "postprocessing": ["scrapy.extensions.postprocessing.GzipPlugin"]}}
    args = {"urls_file": str(urls_file)}
    if mirror_base:
        args["mirror_base"] = mirror_base
    if archive:
        args["archive_url"], args["availability_url"] = archive
        if archive_days:
            args["archive_days"] = str(write_archive_days(archive_days, run_dir / ARCHIVE_DAYS_FILE))
    options: dict[str, Any] = {"FEEDS": json.dumps(feeds), "LOG_FILE": run_dir / "scrapy.log", **(scrapy_settings or {})}
    log.info("fetching articles", extra={"urls": len(urls), "run_dir": str(run_dir)})
    done = run_scrapy("articles", settings or load_settings(), output=run_dir / "scrapy.out", args=args,
                      scrapy_settings=options, timeout_s=timeout_s)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"article spider failed (exit {done.returncode}); see {run_dir / 'scrapy.log'}: "
                           f"{done.last_lines(20)}") from logged_disk_full(done.output_tail)  # a full disk is told by it
    _check_every_url_recorded(out, len(read_url_list(urls_file)), run_dir / "scrapy.log")
    return out


def _check_every_url_recorded(out: Path, expected: int, log_file: Path) -> None:
    """Refuse a feed that lacks records: the spider records every URL it is given, a failure
    included, but Scrapy's feed exporter only logs a write it could not make and exits 0. On a full
    disk the feed was left empty (0 bytes, which gzip reads as no records), and its caller went on
    as if nothing had been fetched; a feed cut short is refused by :func:`read_fetched`. The log is
    on the same disk, so it may not say why: the space left does."""
    written = sum(1 for _ in read_fetched(out))
    if written != expected:
        free = shutil.disk_usage(out.parent).free
        raise RuntimeError(f"{out} holds {written} of the {expected} records its article spider fetched: its feed was "
                           f"not written whole ({free // 1024} KiB left on its disk; log {log_file}); fetch again")


def read_fetched(path: Path) -> Iterator[dict[str, Any]]:
    """The fetcher's records; a broken line is an error naming the file and line."""
    where = f"{path}, line 0"
    try:
        with gzip.open(path, "rb") as handle:
            for where, record in json_lines(handle, path, FetchFileError):
                for name in ("url", "fetched_at"):
                    if not isinstance(record, dict) or not isinstance(record.get(name), str):
                        raise FetchFileError(f"{where}: field {name!r} is missing")
                yield record
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # a fetcher killed mid-write
        raise FetchFileError(f"{where.replace(', line', ', after line')}: the gzip stream is cut short or "
                             f"damaged ({exc})") from None


def article_status(text: str | None, *, min_arabic_ratio: float, min_text_chars: int) -> tuple[str, str | None]:
    """``(fetch_status, reason)`` of a fetched page's main text."""
    text = (text or "").strip()
    if len(text) < min_text_chars:
        return "empty", f"main text has {len(text)} characters (< {min_text_chars})"
    ratio = arabic_ratio(text)
    if ratio < min_arabic_ratio:
        return "not_arabic", f"{ratio:.0%} of letters are Arabic (< {min_arabic_ratio:.0%})"
    return "ok", None


def _timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=None)


def article_rows(records: Iterable[dict[str, Any]], *, min_arabic_ratio: float, min_text_chars: int,
                 run_id: str | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(raw_pages rows, articles rows)`` for the fetched records (one article per URL)."""
    pages: list[dict[str, Any]] = []
    articles: dict[str, dict[str, Any]] = {}
    for rec in records:
        try:
            canonical, domain = canonicalize_url(rec["url"]), domain_of(rec["url"])
        except UrlError as exc:
            log.warning("article URL cannot be canonicalised", extra={"url": rec["url"], "error": str(exc)})
            continue
        fetched_at = _timestamp(rec["fetched_at"])
        page_id = None
        if rec.get("fetch_error"):
            status, error = "failed", rec["fetch_error"]
        else:
            status, error = article_status(rec.get("text"), min_arabic_ratio=min_arabic_ratio,
                                           min_text_chars=min_text_chars)
            # the fetcher's decoded text: its <meta charset> may still name the page's original
            # charset, so readers decode it by its bytes (arastance.base.page_text), never by that tag
            html = (rec.get("html") or "").encode("utf-8")
            digest = rec.get("content_hash") or content_hash(html)
            archived = rec.get("copy") == "archive"
            page_url = rec["fetch_url"] if archived else rec["url"]
            page_id = stable_id(page_url, digest)
            pages.append({
                "page_id": page_id, "url": page_url, "source_id": domain, "run_id": run_id,
                "fetched_at": fetched_at, "http_status": rec.get("http_status"), "content_hash": digest,
                "html_zlib": zlib.compress(html), "parse_status": "ok" if status == "ok" else "skipped",
                "parse_error": error, "original_url": rec["url"] if archived else None,
                "captured_at": _timestamp(rec["captured_at"]) if archived and rec.get("captured_at") else None,
            })
        published = rec.get("published_date")
        articles[canonical] = {
            "article_id": stable_id(canonical), "url": rec["url"], "canonical_url": canonical, "domain": domain,
            "title": rec.get("title"), "published_date": date.fromisoformat(published) if published else None,
            "text": rec.get("text") if status != "failed" else None, "language": "ar" if status == "ok" else None,
            "fetch_status": status, "fetch_error": error, "http_status": rec.get("http_status"),
            "fetched_at": fetched_at, "content_hash": pages[-1]["content_hash"] if page_id else None,
            "page_id": page_id, "fetched_copy": rec.get("copy") or "live",
            "capture_url": rec.get("fetch_url") if rec.get("copy") == "archive" else None,
        }
    return pages, list(articles.values())
