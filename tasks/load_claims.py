"""Load one crawl run's staging directory into the warehouse, all of it or nothing.

A run directory (written by the spiders or by ``arastance reparse``) holds ``run.json``,
``pages.jsonl`` (+ gzip'd bodies) and ``claims.jsonl``. Every line is validated before the
warehouse is touched: a bad line stops the load with an error naming the file, the line and
the field, and nothing is stored. Then, in ONE transaction: the sources, the raw pages (bodies
zlib-compressed), the preprocessed claims, the duplicate clusters and the run's counts.

Loading is idempotent: the same run loaded twice, or a re-crawl of unchanged sites, adds no
row; a claim seen again keeps its ``first_seen`` and gets a later ``last_seen``.
"""

from __future__ import annotations

import gzip
import json
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tqdm import tqdm

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from spiders.site_config import all_site_configs, site_base_url
from tasks.arabic import normalize
from tasks.claim_cleaning import DEFAULT_PATTERNS_PATH, DebunkPatterns, clean_claim, load_patterns
from tasks.dates import parse_published
from tasks.dedup import cluster_claims
from tasks.urls import UrlError, canonicalize_url
from warehouse import Warehouse, content_hash, stable_id
from warehouse import claims as claims_db

log = get_logger(__name__)

RUN_FILE = "run.json"
PAGES_FILE = "pages.jsonl"
CLAIMS_FILE = "claims.jsonl"

#: The crawled sites (from the site registry): name, country, kind and the veracity of every claim they publish.
SITES: dict[str, tuple[str, str | None, str, Literal["false", "true"]]] = {
    c.source_id: (c.name, c.country_name, c.kind, c.veracity) for c in all_site_configs()
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
    original_url: str | None = None
    captured_at: datetime | None = None


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
    field_layers: dict[str, str] | None = None


@dataclass(frozen=True)
class StagedRunFiles:
    """A validated staging run: each record with the line it came from."""

    run_dir: Path
    run: StagedRun
    pages: list[tuple[int, StagedPage]]
    claims: list[tuple[int, StagedClaim]]


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
    clustered_claims: int = 0  # claims in clusters of the veracities re-clustered by this load
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


def _read_jsonl(path: Path, model: type[_M]) -> Iterator[tuple[int, _M]]:
    if not path.is_file():
        raise StagingError(f"{path}: missing staging file")
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:  # pydantic parses and validates the JSON in one pass (faster than json.loads first)
                yield lineno, model.model_validate_json(line)
            except ValidationError as exc:
                first = exc.errors()[0]
                if first["type"] == "json_invalid":
                    raise StagingError(f"{path}, line {lineno}: not valid JSON: {first['msg']}") from None
                if first["type"] == "model_type":
                    raise StagingError(f"{path}, line {lineno}: expected a JSON object, got {line.strip()[:40]!r}") from None
                raise StagingError(f"{path}, line {lineno}: {_describe(exc)}") from None


def read_staging_run(run_dir: Path) -> StagedRunFiles:
    """Read and validate a whole staging run; any bad line is a :class:`StagingError`."""
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
    pages = list(_read_jsonl(run_dir / PAGES_FILE, StagedPage))
    claims = list(_read_jsonl(run_dir / CLAIMS_FILE, StagedClaim))
    page_ids = {p.page_id for _, p in pages}
    for name, records in ((PAGES_FILE, pages), (CLAIMS_FILE, claims)):
        for lineno, rec in records:
            if rec.run_id != run.run_id:
                raise StagingError(
                    f"{run_dir / name}, line {lineno}: field 'run_id' is {rec.run_id!r}, but {RUN_FILE} says {run.run_id!r}"
                )
            if rec.source_id not in SITES:
                raise StagingError(f"{run_dir / name}, line {lineno}: unknown source_id {rec.source_id!r}; known: {sorted(SITES)}")
    for lineno, claim in claims:
        expected = SITES[claim.source_id][3]
        if claim.veracity != expected:
            raise StagingError(
                f"{run_dir / CLAIMS_FILE}, line {lineno}: field 'veracity' is {claim.veracity!r}, "
                f"but {claim.source_id} claims are {expected!r}"
            )
        if claim.page_id not in page_ids:
            raise StagingError(f"{run_dir / CLAIMS_FILE}, line {lineno}: field 'page_id' {claim.page_id!r} is not in {PAGES_FILE}")
    return StagedRunFiles(run_dir, run, pages, claims)


# -- turning records into rows ------------------------------------------------------------------


def _utc_naive(moment: datetime) -> datetime:
    """Warehouse timestamps are naive UTC."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def _page_body(run_dir: Path, lineno: int, page: StagedPage) -> bytes | None:
    if page.html_file is None:
        return None
    path = (run_dir / page.html_file).resolve()
    where = f"{run_dir / PAGES_FILE}, line {lineno}"
    if run_dir.resolve() not in path.parents:
        raise StagingError(f"{where}: field 'html_file' {page.html_file!r} points outside the run directory")
    try:
        body = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise StagingError(f"{path} (from {where}): cannot read the gzip'd body: {exc}") from None
    if content_hash(body) != page.content_hash:
        raise StagingError(f"{path} (from {where}): body does not match field 'content_hash'")
    return body


def page_rows(staged: StagedRunFiles) -> list[dict[str, Any]]:
    """``raw_pages`` rows; bodies are checked against their hash and zlib-compressed."""
    rows = []
    for lineno, page in staged.pages:
        body = _page_body(staged.run_dir, lineno, page)
        rows.append(
            {
                "page_id": page.page_id, "url": page.url, "source_id": page.source_id, "run_id": page.run_id,
                "fetched_at": _utc_naive(page.fetched_at), "http_status": page.http_status,
                "content_hash": page.content_hash, "html_zlib": None if body is None else zlib.compress(body, 6),
                "parse_status": page.parse_status, "parse_error": page.parse_error,
                "original_url": page.original_url,
                "captured_at": None if page.captured_at is None else _utc_naive(page.captured_at),
            }
        )
    return rows


def claim_row(
    claim: StagedClaim, claim_id: str, canonical: str, *, patterns: DebunkPatterns, override: str | None
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
    if override is not None:
        normalized, status, reason = normalize(override), "active", "override"
    return {
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
        "field_layers": json.dumps(claim.field_layers, ensure_ascii=False) if claim.field_layers else None,
        "first_seen": fetched,
        "last_seen": fetched,
        "run_id": claim.run_id,
    }


def _canonical_keys(staged: StagedRunFiles) -> list[tuple[str, str]]:
    """``(claim_id, canonical_url)`` of every staged claim, in file order."""
    keys = []
    for lineno, claim in staged.claims:
        try:
            canonical = canonicalize_url(claim.url)
        except UrlError as exc:
            raise StagingError(f"{staged.run_dir / CLAIMS_FILE}, line {lineno}: field 'url': {exc}") from None
        keys.append((stable_id(claim.source_id, canonical), canonical))
    return keys


def source_rows(settings: Settings) -> list[dict[str, Any]]:
    """The registered sites, with the base URLs the spiders start from."""
    return [
        {
            "source_id": source_id, "name": name, "country": country, "kind": kind,
            "base_url": site_base_url(settings.sites, source_id), "default_veracity": veracity,
        }
        for source_id, (name, country, kind, veracity) in SITES.items()
    ]


def patterns_from(settings: Settings) -> DebunkPatterns:
    return load_patterns(settings.crawl.debunk_patterns_path or DEFAULT_PATTERNS_PATH)


def refresh_clusters(wh: Warehouse, veracity: str, *, threshold: float, shingle_size: int) -> tuple[int, int]:
    """Recompute the duplicate clusters of one veracity over the whole warehouse.

    Returns ``(claims in clusters, new or changed cluster rows)``. Clusters span runs and sites,
    so they are a function of every stored claim, not of the run just loaded.
    """
    ids, texts = claims_db.cluster_input(wh, veracity)
    members = cluster_claims(ids, texts, threshold=threshold, shingle_size=shingle_size)
    rows = [
        {"claim_id": m.claim_id, "cluster_id": m.cluster_id, "similarity": m.similarity, "method": m.method}
        for m in members
    ]
    return len(rows), claims_db.replace_clusters(wh, veracity, rows)


def load_crawl_run(wh: Warehouse, run_dir: Path, *, settings: Settings | None = None) -> LoadReport:
    """Ingest one staging run directory in one transaction and report what changed.

    Validation and preprocessing happen before the transaction opens, so a bad file leaves the
    warehouse exactly as it was.
    """
    started = time.perf_counter()
    s = settings or load_settings()
    staged = read_staging_run(Path(run_dir))
    if claims_db.run_is_loaded(wh, staged.run.run_id):
        # A finished staging run never changes, so there is nothing to add; re-extraction of
        # stored pages makes a new run (``arastance reparse``).
        log.info("crawl run already loaded", extra={"run_id": staged.run.run_id})
        return LoadReport(
            run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=True,
            pages=len(staged.pages), claims=len(staged.claims), seconds=time.perf_counter() - started,
        )
    patterns = patterns_from(s)
    pages = page_rows(staged)
    keys = _canonical_keys(staged)
    overrides = claims_db.overrides_for(wh, [claim_id for claim_id, _ in keys])
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    dropped: Counter[str] = Counter({k: v for k, v in staged.run.dropped.items() if v})
    for (_, claim), (claim_id, canonical) in tqdm(
        list(zip(staged.claims, keys)), desc=f"preprocess {staged.run.run_id}", unit="claim", disable=None
    ):
        if claim_id in seen:  # the same page reached under two spellings of its URL
            dropped["duplicate_url"] += 1
            continue
        seen.add(claim_id)
        row = claim_row(claim, claim_id, canonical, patterns=patterns, override=overrides.get(claim_id))
        if row["status"] == "excluded":
            dropped[f"excluded:{row['status_reason']}"] += 1
        rows.append(row)
    statuses = Counter(r["status"] for r in rows)
    report = LoadReport(
        run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir,
        already_loaded=False,
        pages=len(pages), claims=len(rows), statuses=dict(sorted(statuses.items())), dropped=dict(sorted(dropped.items())),
    )
    with wh.transaction():
        claims_db.ensure_sources(wh, source_rows(s))
        report.new_pages = claims_db.insert_raw_pages(wh, pages)
        batch = claims_db.claims_table(rows)
        changed = claims_db.cluster_input_changes(wh, batch)
        report.new_claims = claims_db.upsert_claims(wh, batch)
        for veracity in sorted(changed):
            clustered, new_rows = refresh_clusters(
                wh, veracity, threshold=s.crawl.near_duplicate_threshold, shingle_size=s.crawl.shingle_size
            )
            report.clustered_claims += clustered
            report.new_cluster_rows += new_rows
        claims_db.insert_crawl_run(wh, _crawl_run_row(staged, report))
    report.seconds = time.perf_counter() - started
    log.info("crawl run loaded", extra=report.as_row())
    return report


def _crawl_run_row(staged: StagedRunFiles, report: LoadReport) -> dict[str, Any]:
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
