"""Site health: crawl a small sample of a site (live or archived) and measure field coverage.

``arastance sites check`` and the weekly ``check_sites`` flow use this to notice, before a
crawl starves the pipeline, that a site changed its markup, moved, or vanished from the
archive: it fetches the listing (or the archive's captures) and N claim pages (a few more at most,
:func:`claim_page_budget`, for pages that give no claim) with the real spider, then reports for
each field (title, claim, date, verdict, body) the share of sampled claims that have it and which
extraction layer gave it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arastance.base.sites import crawl_modes, load_site_config
from arastance.config import Settings
from tasks.crawl_runner import CrawlError, run_spider

FIELDS = ("title", "claim", "date", "verdict", "body")
#: The staging field behind each reported field, and its key in ``field_layers``.
_SOURCES = {"title": ("title", "title"), "claim": ("claim_text", "claim"), "date": ("published_date", "published"),
            "body": ("body_text", "body")}


@dataclass
class SiteCheck:
    """The outcome of one site check; ``ok`` when every gated field reaches the threshold."""

    site: str
    mode: str
    sample: int
    pages: int = 0
    errors: int = 0
    claims: int = 0
    coverage: dict[str, float] = field(default_factory=dict)
    layers: dict[str, dict[str, int]] = field(default_factory=dict)
    gated: tuple[str, ...] = ()
    threshold: float = 0.8
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and all(self.coverage.get(f, 0.0) >= self.threshold for f in self.gated)

    def rows(self) -> list[dict[str, Any]]:
        """One row per field: coverage, the layers that gave it, whether the threshold gates it."""
        return [{"site": self.site, "mode": self.mode, "field": f, "coverage": round(self.coverage.get(f, 0.0), 3),
                 "layers": ", ".join(f"{k} {v}" for k, v in sorted(self.layers.get(f, {}).items(),
                                                                  key=lambda kv: -kv[1])) or "-",
                 "gated": f in self.gated} for f in FIELDS]

    def summary(self) -> dict[str, Any]:
        return {"site": self.site, "mode": self.mode, "status": "ok" if self.ok else "failed",
                "claims": self.claims, "pages": self.pages, "errors": self.errors,
                **{f: round(self.coverage.get(f, 0.0), 3) for f in FIELDS}, "problem": self.problem or "-"}


def _has(claim: dict[str, Any], name: str) -> tuple[bool, str | None]:
    layers = claim.get("field_layers") or {}
    if name == "verdict":
        review = claim.get("claim_review") or {}
        return bool(review.get("rating")), layers.get("verdict")
    key, layer_key = _SOURCES[name]
    return bool(claim.get(key)), layers.get(layer_key)


def coverage_of(claims: list[dict[str, Any]]) -> tuple[dict[str, float], dict[str, dict[str, int]]]:
    """Per field, the share of ``claims`` that have it and how many each layer gave."""
    coverage: dict[str, float] = {}
    layers: dict[str, dict[str, int]] = {}
    for name in FIELDS:
        hits, by_layer = 0, Counter()
        for claim in claims:
            present, layer = _has(claim, name)
            if present:
                hits += 1
                by_layer[layer or "unknown"] += 1
        coverage[name] = hits / len(claims) if claims else 0.0
        layers[name] = dict(by_layer)
    return coverage, layers


def gated_fields(site: str) -> tuple[str, ...]:
    """Fields a healthy sample must have: title, claim and date, and the site's own required ones."""
    required = {"title": "title", "claim": "claim", "body": "body", "published": "date"}
    return tuple(f for f in FIELDS if f in {"title", "claim", "date"} | {required[r] for r in load_site_config(site).required
                                                                          if r in required})


def claim_page_budget(sample: int) -> int:
    """How many claim pages a check of ``sample`` claims may ask a site for: the sample and a fifth more,
    at least 2 more, for the pages that give no claim (an empty claim block, a multimedia-only post).
    It was an item count of ``2 * sample + 2``, which Scrapy overshot by every request in flight:
    ``--sample 5`` asked the site for 30 claim pages."""
    return sample + max(2, -(-sample // 5))


def check_site(site: str, settings: Settings, *, archive: bool = False, sample: int = 10,
               threshold: float = 0.8, timeout_s: float = 600) -> SiteCheck:
    """Crawl ``sample`` claim pages of ``site`` (from its archive captures with ``archive``, or when its live
    domain is not trusted, as Dabegad's is not) and measure them."""
    if sample < 1:
        raise ValueError(f"--sample must be at least 1, got {sample}")
    # a site whose live domain is no longer trusted (live = false) is read from the archive, as the crawl does
    [mode] = crawl_modes(site, "archive" if archive else "live")
    check = SiteCheck(site, mode, sample, gated=gated_fields(site), threshold=threshold)
    check_settings = settings.model_copy(update={
        "data_dir": Path(settings.data_dir) / "site_checks",
        "crawl": type(settings.crawl).model_validate({**settings.crawl.model_dump(), "resumable": False})})
    try:
        result = run_spider(site, check_settings, incremental=False, mode=mode, timeout_s=timeout_s,
                            scrapy_settings={"ARASTANCE_MAX_DETAIL_REQUESTS": str(claim_page_budget(sample)),
                                             "CLOSESPIDER_ITEMCOUNT": str(sample)},
                            archive_limit=sample if mode == "archive" else None)
    except CrawlError as exc:
        check.problem = str(exc).splitlines()[0]
        return check
    claims = [json.loads(line) for line in (result.run_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()
              if line.strip()][:sample]
    check.pages, check.errors, check.claims = result.summary["pages"], result.summary["errors"], len(claims)
    check.coverage, check.layers = coverage_of(claims)
    if not claims:
        check.problem = (f"no claim page parsed ({check.pages} page(s) fetched, {check.errors} failed)"
                         if check.pages else "nothing fetched")
    return check
