"""Re-key stored claims to today's canonical URL, keeping their ids and every former spelling.

Claims stored before canonicalisation changed keep the key they were given: ``http://site/x``
(a site's ``http://`` and ``http://www.`` spellings now key its ``https`` address) or a
``web.archive.org/web/<ts>/<original>`` capture address (an archive crawl now keys the original
URL). A re-crawl knows them all the same (the crawl re-canonicalises the stored keys it is given),
but SQL sees two spellings for one site and joins by URL miss them. This gives each such claim
the key a crawl would give it today, as the crawl computes it (:class:`spiders.site_urls.SiteUrls`
puts the site's host in any scheme or ``www.`` spelling on its ``canonical_base``).

A claim whose current form another claim of its source holds already is a duplicate: merging is
a reviewer's decision, so both are left as they are and reported. Run again, nothing changes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache

from arastance.base.captures import parse_capture_url, to_site_url
from arastance.base.ids import stable_id
from arastance.base.sites import SiteConfigError, load_site_config
from arastance.base.urls import UrlError, canonicalize_url
from arastance.config import load_settings
from arastance.logging import get_logger
from tasks.claim_load.load import load_lock_wait_s
from tasks.stage_locks import stage_lock, warehouse_locks
from warehouse import Warehouse
from warehouse.claim_urls import Move, claim_urls, held_forms, rekey

log = get_logger(__name__)


@dataclass(frozen=True)
class Duplicate:
    """Claims of one source that today's canonicalisation gives one URL: left for a reviewer."""

    source_id: str
    canonical_url: str
    claim_ids: tuple[str, ...]  # the claims stored under it or re-keyed to it first, then those that would move


@dataclass
class RekeyReport:
    """What a re-keying did: ``moved`` claims, ``duplicates`` left, claims with no web URL left."""

    moved: list[Move] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    not_web: int = 0


@cache
def _canonical_base(source_id: str) -> str | None:
    """The real site's address a source's claims are keyed by; None for a source with no site
    configuration (claims loaded from a dataset)."""
    try:
        return load_site_config(source_id).canonical_base
    except SiteConfigError:
        return None


def current_form(source_id: str, url: str) -> str | None:
    """The canonical URL a crawl gives the claim at ``url`` today; None when ``url`` is no web
    address (``arastance:<id>`` of a claim loaded from a dataset)."""
    capture = parse_capture_url(url)
    original = capture[1] if capture else url
    base = _canonical_base(source_id)
    try:
        return canonicalize_url(to_site_url(original, base) if base else original)
    except UrlError:
        return None


def plan(rows: Iterable[dict[str, str]], held: dict[tuple[str, str], set[str]]) -> RekeyReport:
    """The moves that give ``rows`` (stored claims) their current form, and the duplicates that
    stop some: a form held by another claim, or one that two claims would both move to."""
    report = RekeyReport()
    wanted: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        form = current_form(row["source_id"], row["url"])
        if form is None:
            report.not_web += 1
        elif form != row["canonical_url"]:
            wanted[(row["source_id"], form)].append(row)
    for (source_id, form), movers in sorted(wanted.items()):
        holders = sorted(held.get((source_id, form), set()) - {row["claim_id"] for row in movers})
        if holders or len(movers) > 1:
            report.duplicates.append(Duplicate(source_id, form, (*holders, *(row["claim_id"] for row in movers))))
            continue
        [row] = movers
        report.moved.append(Move(row["claim_id"], source_id, row["canonical_url"], form, stable_id(source_id, form)))
    return report


def rekey_claims(wh: Warehouse, *, now: datetime | None = None) -> RekeyReport:
    """Re-key every stored claim whose canonical URL is not today's form (see the module), in one
    transaction under the warehouse's ``load`` lock (a load meanwhile would read half of it); on a
    DuckLake it waits for a load of this host as a load does (it was refused at once)."""
    with stage_lock(warehouse_locks(wh.path), "load", wait_s=load_lock_wait_s(wh, load_settings())):
        report = plan(claim_urls(wh), held_forms(wh))
        rekey(wh, report.moved, (now or datetime.now(timezone.utc)).replace(tzinfo=None))
    for dup in report.duplicates:
        log.warning("claims left with one canonical URL: a duplicate to merge",
                    extra={"source_id": dup.source_id, "canonical_url": dup.canonical_url, "claim_ids": list(dup.claim_ids)})
    log.info("claims re-keyed", extra={"moved": len(report.moved), "duplicates": len(report.duplicates),
                                       "not_web": report.not_web, "warehouse": wh.location})
    return report
