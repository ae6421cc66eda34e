"""Staged records -> warehouse rows: raw pages, preprocessed claims and the crawled sites.

Plain functions of validated records (:mod:`tasks.claim_load.staged`): bodies are checked
against their hash, claim text is cleaned and normalised (a reviewer's override wins), dates
are parsed, and every claim is keyed by its site and canonical URL.
"""

from __future__ import annotations

import gzip
import json
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arastance.base.arabic import normalize
from arastance.base.dates import parse_published
from arastance.base.ids import content_hash, stable_id
from arastance.base.sites import site_base_url
from arastance.base.staging import CLAIMS_FILE, PAGES_FILE, SITES, StagedClaim, StagedPage, StagingError
from arastance.base.urls import UrlError, canonicalize_url
from arastance.config import Settings
from tasks.claim_cleaning import DEFAULT_PATTERNS_PATH, DebunkPatterns, clean_claim, load_patterns
from tasks.claim_load.staged import StagedRunFiles


def utc_naive(moment: datetime) -> datetime:
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
                "fetched_at": utc_naive(page.fetched_at), "http_status": page.http_status,
                "content_hash": page.content_hash, "html_zlib": None if body is None else zlib.compress(body, 6),
                "parse_status": page.parse_status, "parse_error": page.parse_error,
                "original_url": page.original_url,
                "captured_at": None if page.captured_at is None else utc_naive(page.captured_at),
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
    fetched = utc_naive(claim.fetched_at)
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


def canonical_keys(staged: StagedRunFiles) -> list[tuple[str, str]]:
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
