"""Load one crawl run's staging directory into the warehouse, all of it or nothing.

A run directory (written by the spiders or by ``arastance reparse``) holds ``run.json``,
``pages.jsonl`` (+ gzip'd bodies) and ``claims.jsonl``. Both stream through in batches, so
memory stays bounded whatever the run's size. First the raw pages (bodies checked against their
hash and stored zlib-wrapped), a batch per transaction; then, in ONE transaction, the sources,
the preprocessed claims, the duplicate clusters and the run's counts. Every line is validated as
it streams: a bad line stops the load with an error naming the file, the line and the field,
the claims' transaction is rolled back and the pages this load added are taken out again, so
nothing is stored (a process killed mid-load can leave pages behind: content-addressed, they
change nothing and the next load of the run keeps them).

Loading is idempotent: the same run loaded twice, or a re-crawl of unchanged sites, adds no
row; a claim seen again keeps its ``first_seen`` and gets a later ``last_seen``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tqdm import tqdm

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from tasks.arabic import normalize
from tasks.claim_cleaning import DEFAULT_PATTERNS_PATH, DebunkPatterns, clean_claim, load_patterns
from tasks.dates import parse_published
from tasks.dedup_index import refresh_clusters
from tasks.page_bodies import BodyError, gzip_to_zlib
from tasks.urls import UrlError, canonicalize_url
from warehouse import Warehouse, content_hash, stable_id
from warehouse import claims as claims_db
from warehouse import near_duplicates

log = get_logger(__name__)

RUN_FILE = "run.json"
PAGES_FILE = "pages.jsonl"
CLAIMS_FILE = "claims.jsonl"
#: Rows per write batch: memory holds one batch of page bodies, or of claims, at a time.
PAGE_BATCH = 1000
CLAIM_BATCH = 5000
BODY_THREADS = 2

#: The crawled sites: name, country, kind and the veracity of every claim they publish.
SITES: dict[str, tuple[str, str | None, str, Literal["false", "true"]]] = {
    "araanews": ("Araanews", "United Arab Emirates", "fact_check", "false"),
    "dabegad": ("Dabegad", "Egypt", "fact_check", "false"),
    "norumors": ("Norumors", "Saudi Arabia", "fact_check", "false"),
    "reuters": ("Reuters Arabic", None, "news", "true"),
}


class StagingError(ValueError):
    """A staging run that cannot be loaded; the message names the file, line and field."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class StagedRun(_Record):
    run_id: str = Field(min_length=1)
    source_id: str = Field(min_length=1)
    started_at: datetime
    finished_at: datetime | None = None
    pages: int = Field(ge=0)
    items: int = Field(ge=0)
    errors: int = Field(default=0, ge=0)
    dropped: dict[str, int] = Field(default_factory=dict)
    stats: dict[str, Any] = Field(default_factory=dict)


class StagedPage(_Record):
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


class StagedClaimReview(_Record):
    claim_reviewed: str | None = None
    rating: str | None = None
    author: str | None = None


class StagedClaim(_Record):
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


@dataclass(frozen=True)
class StagingRun:
    """A staging run whose ``run.json`` is valid; its records are read and checked as they stream.

    Nothing holds the whole run in memory: pages and claims come one validated record at a time,
    and any bad line raises :class:`StagingError` naming the file and the line.
    """

    run_dir: Path
    run: StagedRun

    def pages(self) -> Iterator[tuple[int, StagedPage]]:
        for lineno, page in _read_jsonl(self.run_dir / PAGES_FILE, StagedPage):
            self._check_record(PAGES_FILE, lineno, page)
            yield lineno, page

    def claim(self, lineno: int, line: str, page_ids: set[str]) -> StagedClaim:
        """One ``claims.jsonl`` line, checked against the run and against ``page_ids`` (every page of the run)."""
        where = self.run_dir / CLAIMS_FILE
        claim = _parse_line(where, lineno, line, StagedClaim)
        self._check_record(CLAIMS_FILE, lineno, claim)
        expected = SITES[claim.source_id][3]
        if claim.veracity != expected:
            raise StagingError(
                f"{where}, line {lineno}: field 'veracity' is {claim.veracity!r}, "
                f"but {claim.source_id} claims are {expected!r}"
            )
        if claim.page_id not in page_ids:
            raise StagingError(f"{where}, line {lineno}: field 'page_id' {claim.page_id!r} is not in {PAGES_FILE}")
        return claim

    def _check_record(self, name: str, lineno: int, rec: StagedPage | StagedClaim) -> None:
        if rec.run_id != self.run.run_id:
            raise StagingError(
                f"{self.run_dir / name}, line {lineno}: field 'run_id' is {rec.run_id!r}, but {RUN_FILE} says {self.run.run_id!r}"
            )
        if rec.source_id not in SITES:
            raise StagingError(f"{self.run_dir / name}, line {lineno}: unknown source_id {rec.source_id!r}; known: {sorted(SITES)}")


@dataclass
class LoadReport:
    """What one load did; ``new_*`` count rows that were not in the warehouse before."""

    run_id: str
    source_id: str
    run_dir: Path
    already_loaded: bool
    pages: int = 0
    new_pages: int = 0
    claims: int = 0
    new_claims: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    clustered_claims: int = 0  # claims whose cluster rows this load recomputed
    new_cluster_rows: int = 0
    seconds: float = 0.0

    def as_row(self) -> dict[str, Any]:
        """A flat dictionary for tables and Prefect artifacts."""
        return {
            "run_id": self.run_id, "source_id": self.source_id, "already_loaded": self.already_loaded,
            "pages": self.pages, "new_pages": self.new_pages, "claims": self.claims, "new_claims": self.new_claims,
            "statuses": ", ".join(f"{k}={v}" for k, v in sorted(self.statuses.items())),
            "dropped": ", ".join(f"{k}={v}" for k, v in sorted(self.dropped.items())),
            "clustered_claims": self.clustered_claims, "new_cluster_rows": self.new_cluster_rows,
            "seconds": round(self.seconds, 2),
        }


# -- reading and validating --------------------------------------------------------------------

_M = TypeVar("_M", bound=_Record)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(record)"
        parts.append(f"field {loc!r}: {err['msg']} (got {err.get('input')!r})"[:300])
    return "; ".join(parts)


def _parse_line(path: Path, lineno: int, line: str, model: type[_M]) -> _M:
    try:  # pydantic parses and validates the JSON in one pass (faster than json.loads first)
        return model.model_validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise StagingError(f"{path}, line {lineno}: not valid JSON: {first['msg']}") from None
        if first["type"] == "model_type":
            raise StagingError(f"{path}, line {lineno}: expected a JSON object, got {line.strip()[:40]!r}") from None
        raise StagingError(f"{path}, line {lineno}: {_describe(exc)}") from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if not path.is_file():
        raise StagingError(f"{path}: missing staging file")
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                yield lineno, line


def _read_jsonl(path: Path, model: type[_M]) -> Iterator[tuple[int, _M]]:
    for lineno, line in _lines(path):
        yield lineno, _parse_line(path, lineno, line, model)


def open_staging_run(run_dir: Path) -> StagingRun:
    """Check a staging run's directory, ``run.json`` and files; the records are checked as they are read."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise StagingError(f"{run_dir}: not a staging run directory")
    run_path = run_dir / RUN_FILE
    if not run_path.is_file():
        raise StagingError(f"{run_path}: missing (the run is unfinished or not a staging run)")
    try:
        run = StagedRun.model_validate_json(run_path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise StagingError(f"{run_path}: {_describe(exc)}") from None
    if run.source_id not in SITES:
        raise StagingError(f"{run_path}: unknown source_id {run.source_id!r}; known: {sorted(SITES)}")
    for name in (PAGES_FILE, CLAIMS_FILE):
        if not (run_dir / name).is_file():
            raise StagingError(f"{run_dir / name}: missing staging file")
    return StagingRun(run_dir, run)


def _count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


# -- turning records into rows ------------------------------------------------------------------


def _utc_naive(moment: datetime) -> datetime:
    """Warehouse timestamps are naive UTC."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def _stored_body(run_dir: Path, lineno: int, page: StagedPage) -> bytes | None:
    """The page's body as the warehouse stores it (zlib), checked against its ``content_hash``."""
    if page.html_file is None:
        return None
    path = (run_dir / page.html_file).resolve()
    where = f"{run_dir / PAGES_FILE}, line {lineno}"
    if run_dir.resolve() not in path.parents:
        raise StagingError(f"{where}: field 'html_file' {page.html_file!r} points outside the run directory")
    try:
        stored = gzip_to_zlib(path.read_bytes())
    except (OSError, BodyError) as exc:
        raise StagingError(f"{path} (from {where}): cannot read the gzip'd body: {exc}") from None
    if stored.sha256 != page.content_hash:
        raise StagingError(f"{path} (from {where}): body does not match field 'content_hash'")
    return stored.zlib_bytes


def page_row_batches(
    staged: StagingRun, page_ids: set[str], known: Callable[[list[str]], set[str]], *, batch_size: int = PAGE_BATCH
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """``(pages read, raw_pages rows of the pages not stored yet)``, ``batch_size`` pages at a time.

    Adds every page id to ``page_ids``. ``known`` says which ids are stored already: a page id
    is a hash of the URL and the body, so a stored page's body is not read again (a re-crawl of
    unchanged sites reads no body). The others are read, checked and re-wrapped by a thread
    pool, a batch at a time, so memory holds one batch of bodies whatever the run's size.
    """
    with ThreadPoolExecutor(max_workers=BODY_THREADS) as pool:
        for chunk in _chunks(staged.pages(), batch_size):
            page_ids.update(page.page_id for _, page in chunk)
            stored = known([page.page_id for _, page in chunk])
            fresh = [(lineno, page) for lineno, page in chunk if page.page_id not in stored]
            bodies = pool.map(lambda item: _stored_body(staged.run_dir, *item), fresh)
            rows = [
                {
                    "page_id": page.page_id, "url": page.url, "source_id": page.source_id, "run_id": page.run_id,
                    "fetched_at": _utc_naive(page.fetched_at), "http_status": page.http_status,
                    "content_hash": page.content_hash, "html_zlib": body,
                    "parse_status": page.parse_status, "parse_error": page.parse_error,
                }
                for (_, page), body in zip(fresh, bodies)
            ]
            yield len(chunk), rows


_T = TypeVar("_T")


def _chunks(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    chunk: list[_T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def claim_row(
    claim: StagedClaim, claim_id: str, canonical: str, *, patterns: DebunkPatterns, override: str | None = None
) -> dict[str, Any]:
    """One ``claims`` row: preprocessed text, date and status (a reviewer's override wins).

    A fact-check post's claim is its claim block; a Reuters headline's claim is its title.
    """
    review = claim.claim_review
    published_text = claim.claim_text if claim.veracity == "false" else (claim.title or claim.claim_text)
    cleaned = clean_claim(
        published_text,
        veracity=claim.veracity,
        is_multimedia=claim.is_multimedia,
        claim_reviewed=review.claim_reviewed if review else None,
        patterns=patterns,
    )
    fetched = _utc_naive(claim.fetched_at)
    published = claim.published_date
    if published is None and claim.published_raw:
        # Relative stamps ("منذ يومين") are anchored at the moment the page was fetched.
        published = parse_published(claim.published_raw, now=claim.fetched_at).date
    normalized, status, reason = cleaned.normalized_text, cleaned.status, cleaned.status_reason
    row = {
        "claim_id": claim_id,
        "source_id": claim.source_id,
        "canonical_url": canonical,
        "url": claim.url,
        "title": claim.title,
        "raw_text": published_text,
        "cleaned_text": cleaned.cleaned_text,
        "normalized_text": normalized,
        "body_text": claim.body_text,
        "veracity": claim.veracity,
        "published_date": published,
        "published_raw": claim.published_raw,
        "category": claim.category,
        "is_multimedia": claim.is_multimedia or cleaned.status_reason == "multimedia",
        "claim_review": None if review is None else json.dumps(review.model_dump(), ensure_ascii=False),
        "content_hash": content_hash(normalized) if normalized else None,
        "status": status,
        "status_reason": reason,
        "page_id": claim.page_id,
        "first_seen": fetched,
        "last_seen": fetched,
        "run_id": claim.run_id,
    }
    return row if override is None else with_override(row, override)


def with_override(row: dict[str, Any], override: str) -> dict[str, Any]:
    """A ``claims`` row with a reviewer's statement in place of the rules' (the claim becomes active)."""
    normalized = normalize(override)
    return {**row, "normalized_text": normalized, "status": "active", "status_reason": "override",
            "content_hash": content_hash(normalized) if normalized else None}


def _canonical_key(staged: StagingRun, lineno: int, claim: StagedClaim) -> tuple[str, str]:
    """``(claim_id, canonical_url)`` of a staged claim."""
    try:
        canonical = canonicalize_url(claim.url)
    except UrlError as exc:
        raise StagingError(f"{staged.run_dir / CLAIMS_FILE}, line {lineno}: field 'url': {exc}") from None
    return stable_id(claim.source_id, canonical), canonical


def _prepare(staged: StagingRun, page_ids: set[str], patterns: DebunkPatterns, lines: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Checked, preprocessed ``claims`` rows (reviewers' overrides not applied) of some lines."""
    rows = []
    for lineno, line in lines:
        claim = staged.claim(lineno, line, page_ids)
        claim_id, canonical = _canonical_key(staged, lineno, claim)
        rows.append(claim_row(claim, claim_id, canonical, patterns=patterns))
    return rows


def prepared_claims(staged: StagingRun, page_ids: set[str], patterns: DebunkPatterns) -> Iterator[list[dict[str, Any]]]:
    """The run's checked, preprocessed ``claims`` rows, ``CLAIM_BATCH`` at a time and in file order."""
    for lines in _chunks(_lines(staged.run_dir / CLAIMS_FILE), CLAIM_BATCH):
        yield _prepare(staged, page_ids, patterns, lines)


def source_rows(settings: Settings) -> list[dict[str, Any]]:
    """The four crawled sites, with the base URLs the spiders start from."""
    return [
        {
            "source_id": source_id, "name": name, "country": country, "kind": kind,
            "base_url": str(getattr(settings.sites, source_id)), "default_veracity": veracity,
        }
        for source_id, (name, country, kind, veracity) in SITES.items()
    ]


def patterns_from(settings: Settings) -> DebunkPatterns:
    return load_patterns(settings.crawl.debunk_patterns_path or DEFAULT_PATTERNS_PATH)


def load_crawl_run(wh: Warehouse, run_dir: Path, *, settings: Settings | None = None) -> LoadReport:
    """Ingest one staging run directory and report what changed; all of it is stored, or none.

    Pages, then claims, stream through in batches (bounded memory whatever the run's size). Page
    batches commit as they go; claims, clusters and the run's row commit in one transaction. A bad
    line or body anywhere rolls that transaction back and deletes the pages this load added, so a
    bad file leaves the warehouse as it was.
    """
    started = time.perf_counter()
    s = settings or load_settings()
    staged = open_staging_run(Path(run_dir))
    if claims_db.run_is_loaded(wh, staged.run.run_id):
        # A finished staging run never changes, so there is nothing to add; re-extraction of
        # stored pages makes a new run (``arastance reparse``).
        log.info("crawl run already loaded", extra={"run_id": staged.run.run_id})
        return LoadReport(
            run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=True,
            pages=_count_lines(staged.run_dir / PAGES_FILE), claims=_count_lines(staged.run_dir / CLAIMS_FILE),
            seconds=time.perf_counter() - started,
        )
    patterns = patterns_from(s)
    report = LoadReport(run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=False)
    seen: set[str] = set()
    page_ids: set[str] = set()
    statuses: Counter[str] = Counter()
    dropped: Counter[str] = Counter({k: v for k, v in staged.run.dropped.items() if v})
    veracity = SITES[staged.run.source_id][3]
    new_ids: list[str] = []
    changed_claims = 0
    dedup = {"threshold": s.crawl.near_duplicate_threshold, "shingle_size": s.crawl.shingle_size}
    added_pages: list[str] = []
    try:
        # Page bodies are most of a run's bytes, and DuckDB keeps a transaction's rows in memory
        # until it commits: each batch of pages commits on its own, and a load that fails takes
        # back the pages it added. Pages are keyed by URL and content, so nothing else changes.
        for read, pages in page_row_batches(staged, page_ids, lambda ids: claims_db.known_page_ids(wh, ids)):
            with wh.transaction():
                added_pages += claims_db.insert_raw_pages(wh, pages)
            report.pages += read
        report.new_pages = len(added_pages)
        with wh.transaction():
            index_current = near_duplicates.is_current(wh, veracity, **dedup)
            claims_db.ensure_sources(wh, source_rows(s))
            progress = tqdm(total=staged.run.items, desc=f"load {staged.run.run_id}", unit="claim", disable=None)
            for prepared in prepared_claims(staged, page_ids, patterns):
                progress.update(len(prepared))
                overrides = claims_db.overrides_for(wh, [row["claim_id"] for row in prepared])
                rows: list[dict[str, Any]] = []
                for row in prepared:
                    if row["claim_id"] in seen:  # the same page reached under two spellings of its URL
                        dropped["duplicate_url"] += 1
                        continue
                    seen.add(row["claim_id"])
                    if row["claim_id"] in overrides:
                        row = with_override(row, overrides[row["claim_id"]])
                    if row["status"] == "excluded":
                        dropped[f"excluded:{row['status_reason']}"] += 1
                    statuses[row["status"]] += 1
                    rows.append(row)
                batch = claims_db.claims_table(rows)
                for claim_id, _, is_new in claims_db.cluster_input_changes(wh, batch):
                    if is_new:
                        new_ids.append(claim_id)
                    else:
                        changed_claims += 1
                report.new_claims += claims_db.upsert_claims(wh, batch)
                report.claims += len(rows)
            progress.close()
            report.statuses, report.dropped = dict(sorted(statuses.items())), dict(sorted(dropped.items()))
            if new_ids or changed_claims:  # a re-crawl of unchanged sites skips deduplication
                report.clustered_claims, report.new_cluster_rows = refresh_clusters(
                    wh, veracity, new_claim_ids=new_ids, changed_claims=changed_claims, index_current=index_current,
                    **dedup,
                )
            claims_db.insert_crawl_run(wh, _crawl_run_row(staged, report))
    except BaseException:
        if added_pages:
            with wh.transaction():
                claims_db.delete_pages(wh, added_pages)
        raise
    report.seconds = time.perf_counter() - started
    log.info("crawl run loaded", extra=report.as_row())
    return report


def _crawl_run_row(staged: StagingRun, report: LoadReport) -> dict[str, Any]:
    run = staged.run
    load_stats = {
        "claims": report.claims, "statuses": report.statuses, "new_pages": report.new_pages,
        "clustered_claims": report.clustered_claims,
    }
    return {
        "run_id": run.run_id,
        "source_id": run.source_id,
        "started_at": _utc_naive(run.started_at),
        "finished_at": None if run.finished_at is None else _utc_naive(run.finished_at),
        "staging_path": str(staged.run_dir),
        "pages": run.pages,
        "items": run.items,
        "new_claims": report.new_claims,
        "errors": run.errors,
        "dropped": json.dumps(report.dropped, ensure_ascii=False, sort_keys=True),
        "stats": json.dumps({**run.stats, "load": load_stats}, ensure_ascii=False, sort_keys=True, default=str),
    }


def set_claim_override(
    wh: Warehouse, claim_id: str, text: str, *, reviewer: str, note: str | None = None, now: datetime | None = None
) -> None:
    """Record a reviewer's statement for a claim; it wins over the rules from now on, reloads included."""
    statement = " ".join(text.split())
    if not statement:
        raise ValueError(f"override text for claim {claim_id!r} is empty")
    if not reviewer.strip():
        raise ValueError(f"override for claim {claim_id!r} needs a reviewer name")
    normalized = normalize(statement)
    claims_db.set_override(
        wh, claim_id, statement, normalized_text=normalized, content_hash=content_hash(normalized),
        reviewer=reviewer.strip(), reviewed_at=_utc_naive(now or datetime.now(timezone.utc)), note=note,
    )
