"""Staged records -> warehouse rows: raw pages, preprocessed claims and the crawled sites.

Plain functions of validated records (:mod:`tasks.claim_load.staged`), a batch at a time so
memory stays bounded whatever the run's size: bodies are checked against their hash and
re-wrapped as zlib (:mod:`tasks.page_bodies`), claim text is cleaned and normalised (a
reviewer's override wins), dates are parsed, and every claim is keyed by its site and
canonical URL.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, TypeVar

from arastance.base.arabic import normalize
from arastance.base.dates import parse_published
from arastance.base.ids import content_hash, stable_id
from arastance.base.secrets import split_url_credentials
from arastance.base.sites import load_site_config, site_base_url
from arastance.base.staging import CLAIMS_FILE, PAGES_FILE, SITES, StagedClaim, StagedPage, StagingError
from arastance.base.urls import UrlError, canonicalize_url
from arastance.config import Settings
from tasks.claim_cleaning import DEFAULT_PATTERNS_PATH, DebunkPatterns, clean_claim, load_patterns
from tasks.claim_load.staged import RunPages, StagedRunStream
from tasks.page_bodies import BodyError, gzip_to_zlib

#: Rows per write batch: memory holds one batch of page bodies, or of claims, at a time.
PAGE_BATCH = 1000
CLAIM_BATCH = 5000
BODY_THREADS = 2


def utc_naive(moment: datetime) -> datetime:
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
    staged: StagedRunStream, page_ids: RunPages, known: Callable[[list[str]], set[str]], *, batch_size: int = PAGE_BATCH
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """``(pages read, raw_pages rows of the pages not stored yet)``, ``batch_size`` pages at a time.

    Adds every page to ``page_ids``. ``known`` says which ids are stored already: a page id
    is a hash of the URL and the body, so a stored page's body is not read again (a re-crawl of
    unchanged sites reads no body). The others are read, checked and re-wrapped by a thread
    pool, one batch ahead: the next batch's bodies are read while the caller writes this one
    (zlib, hashlib and DuckDB release the GIL), so memory holds two batches of bodies whatever
    the run's size. A page repeated in the next batch may be read twice; it is stored once.
    """
    with ThreadPoolExecutor(max_workers=BODY_THREADS) as pool:
        ahead: tuple[int, list[tuple[int, StagedPage]], list[Future[bytes | None]]] | None = None
        for chunk in chunks(staged.pages(), batch_size):
            page_ids.update((page.page_id, page.captured_at) for _, page in chunk)
            stored = known([page.page_id for _, page in chunk])
            fresh = [(lineno, page) for lineno, page in chunk if page.page_id not in stored]
            reading = (len(chunk), fresh, [pool.submit(_stored_body, staged.run_dir, *item) for item in fresh])
            if ahead is not None:
                yield ahead[0], _page_rows(ahead[1], ahead[2])
            ahead = reading
        if ahead is not None:
            yield ahead[0], _page_rows(ahead[1], ahead[2])


def _page_rows(fresh: list[tuple[int, StagedPage]], bodies: list[Future[bytes | None]]) -> list[dict[str, Any]]:
    """``raw_pages`` rows of ``fresh`` pages once their bodies are read (a bad body raises here)."""
    return [
        {
            "page_id": page.page_id, "url": page.url, "source_id": page.source_id, "run_id": page.run_id,
            "fetched_at": utc_naive(page.fetched_at), "http_status": page.http_status,
            "content_hash": page.content_hash, "html_zlib": body.result(),
            "parse_status": page.parse_status, "parse_error": page.parse_error,
            "original_url": page.original_url,
            "captured_at": None if page.captured_at is None else utc_naive(page.captured_at),
        }
        for (_, page), body in zip(fresh, bodies)
    ]


_T = TypeVar("_T")


def chunks(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    chunk: list[_T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def claim_row(
    claim: StagedClaim, claim_id: str, canonical: str, *, patterns: DebunkPatterns, override: str | None = None,
    noun_phrases: Literal["active", "review"] = "active", captured_at: datetime | None = None,
) -> dict[str, Any]:
    """One ``claims`` row: preprocessed text, date and status (a reviewer's override wins).

    A fact-check post's claim is its claim block; a Reuters headline's claim is its title.
    ``captured_at`` is when a web archive captured the page (None for a live fetch).
    """
    review = claim.claim_review
    published_text = claim.claim_text if claim.veracity == "false" else (claim.title or claim.claim_text)
    cleaned = clean_claim(
        published_text,
        veracity=claim.veracity,
        is_multimedia=claim.is_multimedia,
        claim_reviewed=review.claim_reviewed if review else None,
        patterns=patterns,
        noun_phrases=noun_phrases,
    )
    fetched = utc_naive(claim.fetched_at)
    published = claim.published_date
    if published is None and claim.published_raw:
        # Relative stamps ("منذ يومين") are anchored at the moment the page was written as read: an
        # archived page's capture, not the crawl that read it years later (a staging run written before
        # a parser read the stamp is dated here), on the site's calendar, as the spider dates it.
        published = parse_published(claim.published_raw, now=captured_at or claim.fetched_at,
                                    tz=load_site_config(claim.source_id).timezone).date
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
        "field_layers": json.dumps(claim.field_layers, ensure_ascii=False) if claim.field_layers else None,
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


def canonical_key(staged: StagedRunStream, lineno: int, claim: StagedClaim) -> tuple[str, str]:
    """``(claim_id, canonical_url)`` of a staged claim."""
    try:
        canonical = canonicalize_url(claim.url)
    except UrlError as exc:
        raise StagingError(f"{staged.run_dir / CLAIMS_FILE}, line {lineno}: field 'url': {exc}") from None
    return stable_id(claim.source_id, canonical), canonical


def _prepare(staged: StagedRunStream, page_ids: RunPages, patterns: DebunkPatterns, lines: list[tuple[int, str]],
             noun_phrases: Literal["active", "review"]) -> list[dict[str, Any]]:
    """Checked, preprocessed ``claims`` rows (reviewers' overrides not applied) of some lines."""
    rows = []
    for lineno, line in lines:
        claim = staged.claim(lineno, line, page_ids)
        claim_id, canonical = canonical_key(staged, lineno, claim)
        rows.append(claim_row(claim, claim_id, canonical, patterns=patterns, noun_phrases=noun_phrases,
                              captured_at=page_ids[claim.page_id]))
    return rows


def prepared_claims(staged: StagedRunStream, page_ids: RunPages, patterns: DebunkPatterns,
                    noun_phrases: Literal["active", "review"] = "active") -> Iterator[list[dict[str, Any]]]:
    """The run's checked, preprocessed ``claims`` rows, ``CLAIM_BATCH`` at a time and in file order.

    ``page_ids`` must hold every page of the run (read the pages first), with its capture time; ``noun_phrases`` is
    ``crawl.noun_phrase_claims``.
    """
    for lines in chunks(staged.claim_lines(), CLAIM_BATCH):
        yield _prepare(staged, page_ids, patterns, lines, noun_phrases)


def source_rows(settings: Settings) -> list[dict[str, Any]]:
    """The registered sites, with the base URLs the spiders start from, without the ``user:password@`` of a
    site behind basic authentication: every SQL user reads the table, and the password is the operator's."""
    return [
        {
            "source_id": source_id, "name": name, "country": country, "kind": kind,
            "base_url": split_url_credentials(site_base_url(settings.sites, source_id))[0],
            "default_veracity": veracity,
        }
        for source_id, (name, country, kind, veracity) in SITES.items()
    ]


def patterns_from(settings: Settings) -> DebunkPatterns:
    return load_patterns(settings.crawl.debunk_patterns_path or DEFAULT_PATTERNS_PATH)
