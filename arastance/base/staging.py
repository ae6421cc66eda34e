"""The staging contract: the files a crawl or a fetch writes and the loaders read.

One declaration for both sides. The spiders and ``arastance reparse`` write a crawl run's
directory (:class:`PageItem` and :class:`ClaimItem` records, :class:`RunSummary` last); the claim
loader (:mod:`tasks.claim_load`) reads it back through :class:`StagedRun`, :class:`StagedPage`
and :class:`StagedClaim`, which validate every line. The writer records and the reader models
carry the same fields (``tests/test_staging_contract.py`` checks it), the reader only parsing
strings into dates and checking ranges and patterns. The article fetcher's files (a URL list
in, gzip'd JSON Lines out) are named here too.

A crawl run's directory, ``<staging>/crawl/<run_id>/``::

    run.json        RunSummary, written last: its presence marks the run finished; its ``files``
                    gives each data file's non-blank lines and SHA-256 (:func:`data_file_manifest`),
                    which the reader checks before trusting the files (:func:`check_manifest`)
    pages.jsonl     one StagedPage a fetched (or failed) page; bodies in pages/<page_id>.html.gz
    claims.jsonl    one StagedClaim a parsed detail page
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from arastance.base.ids import content_hash, stable_id
from arastance.base.jsonl import file_manifest
from arastance.base.sites import all_site_configs

# -- file names ---------------------------------------------------------------------------------

RUN_FILE = "run.json"
#: The finish reason of a crawl that the disk filled up: its run is removed, not finished (spiders.disk_full).
DISK_FULL_REASON = "disk_full"
#: What the crawl logs when it stops so (the launcher looks for it: a time-out may cut the close short).
DISK_FULL_LOG = "the disk is full: stopping the crawl"
#: The finish reason of a crawl that lost a staging write for another reason (an I/O error, a
#: read-only disk): its run is removed too (spiders.pipelines).
LOST_WRITE_REASON = "staging_write_failed"
#: What the crawl logs then, with the error as its ``error`` field (the launcher quotes it).
LOST_WRITE_LOG = "a write to the staging run failed"
PAGES_FILE = "pages.jsonl"
CLAIMS_FILE = "claims.jsonl"
PAGES_DIR = "pages"
#: The data files ``run.json`` carries a manifest of (``files``: lines and SHA-256).
DATA_FILES = (CLAIMS_FILE, PAGES_FILE)

#: The article fetcher's input (one URL a line) and output (gzip'd JSON Lines, one page a line).
URLS_FILE = "urls.txt"
#: The fetcher's optional second input: ``{URL: "YYYY-MM-DD"}``, the day a dead link's archive copy is sought around.
ARCHIVE_DAYS_FILE = "archive_days.json"
FETCHED_FILE = "articles.jsonl.gz"

#: The crawled sites, derived from the site registry (:mod:`arastance.base.sites`, one TOML file
#: a site): name, country, kind and the veracity of every claim they publish.
SITES: dict[str, tuple[str, str | None, str, Literal["false", "true"]]] = {
    c.source_id: (c.name, c.country_name, c.kind, c.veracity) for c in all_site_configs()
}


def new_run_id(source_id: str, now: datetime | None = None) -> str:
    """Sortable and unique enough for one site: ``<site>-<UTC timestamp with microseconds>``."""
    now = now or datetime.now(timezone.utc)
    return f"{source_id}-{now:%Y%m%dT%H%M%S%f}"


# -- the writer's records -----------------------------------------------------------------------


@dataclass(frozen=True)
class DetailFields:
    """The fields of one detail page, as the staging ``claims.jsonl`` carries them."""

    url: str
    title: str
    claim_text: str
    body_text: str
    published_raw: str | None
    published_date: str | None
    category: str | None
    is_multimedia: bool
    claim_review: dict[str, str | None] | None
    #: Which layer gave each field: css, claim_review, article_json_ld, open_graph, time
    #: (``title:<layer>`` for a claim taken from the title).
    field_layers: dict[str, str] = field(default_factory=dict)


@dataclass
class PageItem:
    """One fetched (or failed) page: provenance for ``pages.jsonl`` plus the raw body to keep
    (a site spider sends it with its ``page_fetched`` signal, never through the item feed).

    ``body`` is written gzip'd next to ``pages.jsonl`` (``html_file``) when ``keep_body`` is set,
    so that a page that failed to parse can be re-parsed later without re-crawling.
    """

    run_id: str
    page_id: str
    url: str
    source_id: str
    fetched_at: str
    http_status: int | None
    content_hash: str
    parse_status: Literal["ok", "failed", "skipped"]
    parse_error: str | None
    body: bytes
    keep_body: bool
    #: For a page read from a web archive: the page's own URL and when the archive captured it.
    original_url: str | None = None
    captured_at: str | None = None


@dataclass(frozen=True, kw_only=True)
class ClaimItem(DetailFields):
    """One parsed detail page, exactly the fields of a ``claims.jsonl`` line: the page's fields
    plus where and when it was fetched."""

    run_id: str
    source_id: str
    veracity: Literal["false", "true"]
    page_id: str
    fetched_at: str


@dataclass(frozen=True)
class RunSummary:
    """The content of ``run.json``."""

    run_id: str
    source_id: str
    started_at: str
    finished_at: str
    pages: int
    items: int
    errors: int
    dropped: dict[str, int]
    stats: dict[str, Any]
    files: dict[str, dict[str, Any]]  # per data file: non-blank lines and SHA-256, checked by the reader


def data_file_manifest(run_dir: Path) -> dict[str, dict[str, Any]]:
    """The writer's ``files`` entry of ``run.json``: ``{name: {"lines": n, "sha256": hex}}``."""
    manifest = {}
    for name in DATA_FILES:
        lines, sha256 = file_manifest(Path(run_dir) / name)
        manifest[name] = {"lines": lines, "sha256": sha256}
    return manifest


@dataclass(frozen=True)
class StoredPage:
    """A raw page as the warehouse keeps it (body zlib-compressed), for ``arastance reparse``."""

    page_id: str
    url: str
    source_id: str
    fetched_at: datetime
    http_status: int | None
    content_hash: str
    html_zlib: bytes
    #: For a page read from a web archive (``url`` is the capture's address): the page's own URL
    #: and when the archive captured it, which a re-parse keys and dates the claim by.
    original_url: str | None = None
    captured_at: datetime | None = None


def page_id_of(url: str, body: bytes) -> tuple[str, str]:
    """``(page_id, content_hash)``: a raw page's natural key is its URL and its content."""
    digest = content_hash(body)
    return stable_id(url, digest), digest


# -- the reader's models ------------------------------------------------------------------------


class StagingError(ValueError):
    """A staging run that cannot be loaded; the message names the file, line and field."""


class StagedRecord(BaseModel):
    """A staged line as the loader validates it; fields it does not know are ignored."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class StagedFile(StagedRecord):
    """What ``run.json`` announces of one data file: its non-blank lines and its SHA-256."""

    lines: int = Field(ge=0)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


class StagedRun(StagedRecord):
    """``run.json`` (:class:`RunSummary`)."""

    run_id: str = Field(min_length=1)
    source_id: str = Field(min_length=1)
    started_at: datetime
    finished_at: datetime | None = None
    pages: int = Field(ge=0)
    items: int = Field(ge=0)
    errors: int = Field(default=0, ge=0)
    dropped: dict[str, int] = Field(default_factory=dict)
    stats: dict[str, Any] = Field(default_factory=dict)
    files: dict[str, StagedFile] = Field(default_factory=dict)


def check_manifest(run_dir: Path, run: StagedRun) -> None:
    """Refuse a run whose data files are not what ``run.json`` announces, before anything is read.

    A claims or pages file cut short (a copy still running, a full disk, a crash while writing)
    would otherwise load as a complete, smaller run and be marked loaded for good. Every run
    announces its line counts (``pages``, ``items``); runs written since checksums were added
    also carry each file's SHA-256 (``files``). A refused run stays on disk and loads once its
    files are complete. Raises :class:`StagingError`.
    """
    run_dir = Path(run_dir)
    expected = {PAGES_FILE: run.pages, CLAIMS_FILE: run.items}
    for name, announced in run.files.items():
        if name not in expected:
            raise StagingError(f"{run_dir / RUN_FILE}: field 'files' names {name!r}, not a staging data file")
        if announced.lines != expected[name]:
            raise StagingError(f"{run_dir / RUN_FILE}: field 'files.{name}.lines' is {announced.lines}, "
                               f"but the run's count says {expected[name]}")
    for name, lines_expected in expected.items():
        path = run_dir / name
        if not path.is_file():
            raise StagingError(f"{path}: missing staging file ({RUN_FILE} announces {lines_expected} line(s))")
        lines, digest = file_manifest(path)
        if lines != lines_expected:
            raise StagingError(
                f"{path}: {lines} line(s), but {RUN_FILE} announces {lines_expected}; the run is incomplete "
                "(cut short or still being copied), nothing was loaded; load it again once the file is complete"
            )
        announced = run.files.get(name)
        if announced is not None and announced.sha256 is not None and announced.sha256 != digest:
            raise StagingError(
                f"{path}: its SHA-256 differs from the one {RUN_FILE} records; the file changed after the crawl "
                "finished, nothing was loaded"
            )


class StagedPage(StagedRecord):
    """A ``pages.jsonl`` line (:class:`PageItem`, its body replaced by ``html_file``)."""

    run_id: str
    page_id: str = Field(min_length=1)
    url: str = Field(min_length=1)
    source_id: str
    fetched_at: datetime
    http_status: int | None
    content_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    html_file: str | None
    parse_status: Literal["ok", "failed", "skipped"]
    parse_error: str | None = None
    original_url: str | None = None
    captured_at: datetime | None = None


class StagedClaimReview(StagedRecord):
    """The schema.org ``ClaimReview`` fields a fact-check page may carry."""

    claim_reviewed: str | None = None
    rating: str | None = None
    author: str | None = None


class StagedClaim(StagedRecord):
    """A ``claims.jsonl`` line (:class:`ClaimItem`)."""

    run_id: str
    source_id: str
    url: str = Field(min_length=1)
    title: str | None
    claim_text: str | None
    body_text: str | None
    published_raw: str | None
    published_date: date | None
    category: str | None
    is_multimedia: bool
    claim_review: StagedClaimReview | None
    veracity: Literal["false", "true"]
    page_id: str = Field(min_length=1)
    fetched_at: datetime
    field_layers: dict[str, str] | None = None


# -- the article fetcher's URL list -------------------------------------------------------------


#: What ``str.splitlines()`` ends a line at: a URL holding one would be read as two by a reader of lines.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def write_url_list(urls: Iterable[str], path: Path) -> Path:
    """The fetcher's input: one URL a line (a URL holding a line break would be read as two)."""
    urls = list(urls)
    broken = [u for u in urls if _LINE_BREAK.search(u)]
    if broken:
        raise ValueError(f"{path}: a URL to fetch holds a line break: {broken[0]!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(u + "\n" for u in urls), encoding="utf-8")
    return path


def read_url_list(path: Path) -> list[str]:
    """URLs, one a line (blank lines and ``#`` comments skipped); a relative URL is an error.

    Lines end at ``\\n`` alone (a ``\\r`` before it is stripped with the other white space):
    ``str.splitlines()`` also ended them at U+2028, U+0085 and other separators, and cut a URL holding one
    into two other URLs."""
    urls = []
    for number, line in enumerate(path.read_bytes().decode("utf-8").split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not urlsplit(line).netloc:
            raise ValueError(f"{path}, line {number}: not an absolute URL: {line!r}")
        urls.append(line)
    return urls


def write_archive_days(days: Mapping[str, date], path: Path) -> Path:
    """The day each URL's archive copy is sought around, as JSON (``{URL: "YYYY-MM-DD"}``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({u: d.isoformat() for u, d in days.items()}, ensure_ascii=False), encoding="utf-8")
    return path


def read_archive_days(path: Path) -> dict[str, date]:
    """:func:`write_archive_days`'s file back; anything but an object of URL to ISO day is an error naming the file."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
        return {str(u): date.fromisoformat(str(d)) for u, d in raw.items()}
    except ValueError as exc:  # JSONDecodeError and a bad day are ValueErrors
        raise ValueError(f"{path}: not an object of URL to YYYY-MM-DD ({exc})") from None
