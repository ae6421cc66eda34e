"""True-claim selection: the Reuters headlines about the same topics and times as the false seeds.

The fact-checking sites only debunk false claims, so true claims come from Reuters Arabic
headlines. For every seed (a false claim) the headlines dated within +/-N months of the seed are
ranked by TF-IDF cosine similarity on normalised Arabic text and at most ``top_k`` above
``min_similarity`` are kept (:mod:`tasks.true_claims.rank` does the vectorised work). A
headline chosen by several seeds is one true claim with every (seed, score, rank) as its
provenance.

Screening before ranking, each exclusion recorded with its reason:

* ``no_text``: a seed or headline without a single word;
* ``multimedia``: a headline that is mainly a video or photo gallery (``is_multimedia``);
* ``no_date``: an undated seed or headline under the default ``undated_policy='exclude'``
  (with ``'ignore_window'`` it is kept and matched without a window instead);
* ``duplicate``: a headline with the same normalised words as an earlier one (the earliest
  dated, then smallest ``claim_id``, is kept and ``detail`` names it; a later repeat does not
  widen the kept headline's window).

Ties in score go to the headline closer in time to the seed, then the earlier one, then the
smaller ``claim_id``. Everything here is a plain function over records: the same input, in any
order, gives the same output, and nothing touches the warehouse.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

import numpy as np

from arastance.base.arabic import tokenize
from arastance.config.selection import SelectionSettings
from arastance.logging import get_logger
from tasks.true_claims.rank import rank_in_windows, vectorize
from tasks.true_claims.window import ordinals, window_ordinals

log = get_logger(__name__)

Role = Literal["seed", "headline"]
Reason = Literal["no_text", "no_date", "multimedia", "duplicate"]


@dataclass(frozen=True)
class ClaimRecord:
    """What selection needs to know of a claim: its id, text, date and whether it is multimedia."""

    claim_id: str
    text: str | None
    published_date: date | None
    is_multimedia: bool = False


@dataclass(frozen=True)
class Exclusion:
    """A seed or headline left out of the selection, and why."""

    claim_id: str
    role: Role
    reason: Reason
    detail: str | None = None


@dataclass(frozen=True)
class Match:
    """One headline chosen for one seed: cosine ``score`` and ``rank`` (1 = best) for that seed."""

    seed_claim_id: str
    headline_claim_id: str
    score: float
    rank: int


@dataclass(frozen=True)
class SelectionResult:
    """The matches (by seed id, then rank), the exclusions (by role, id) and the counts."""

    matches: list[Match]
    exclusions: list[Exclusion]
    seeds_total: int
    seeds_eligible: int
    seeds_used: int
    headlines_total: int
    headlines_eligible: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def selected_headline_ids(self) -> list[str]:
        """Each chosen headline once, however many seeds chose it."""
        return sorted({m.headline_claim_id for m in self.matches})

    @property
    def seeds_matched(self) -> int:
        return len({m.seed_claim_id for m in self.matches})

    def exclusion_counts(self) -> dict[str, int]:
        """``{"<role>:<reason>": n}``, e.g. ``{"seed:no_date": 3}``, sorted by key."""
        counts = Counter(f"{e.role}:{e.reason}" for e in self.exclusions)
        return dict(sorted(counts.items()))

    def summary(self) -> dict[str, Any]:
        """The figures a report needs, as plain data."""
        return {
            "seeds_total": self.seeds_total,
            "seeds_eligible": self.seeds_eligible,
            "seeds_used": self.seeds_used,
            "seeds_matched": self.seeds_matched,
            "headlines_total": self.headlines_total,
            "headlines_eligible": self.headlines_eligible,
            "selected_headlines": len(self.selected_headline_ids),
            "matches": len(self.matches),
            "excluded": self.exclusion_counts(),
        }


def _check_unique(records: Sequence[ClaimRecord], role: Role) -> None:
    seen: set[str] = set()
    for i, rec in enumerate(records):
        if rec.claim_id in seen:
            raise ValueError(f"{role} record {i}: claim_id {rec.claim_id!r} appears more than once")
        seen.add(rec.claim_id)


@dataclass(frozen=True)
class Screened:
    """Records that passed screening, in ranking order, with their normalised words, and the rest."""

    records: list[ClaimRecord]
    words: list[list[str]]
    excluded: list[Exclusion]


def screen_seeds(seeds: Sequence[ClaimRecord], undated_policy: str) -> Screened:
    """Seeds that can be matched (sorted by ``claim_id``) and the excluded ones with a reason."""
    screened = Screened([], [], [])
    for rec in sorted(seeds, key=lambda r: r.claim_id):
        words = tokenize(rec.text)
        if not words:
            screened.excluded.append(Exclusion(rec.claim_id, "seed", "no_text"))
        elif rec.published_date is None and undated_policy == "exclude":
            screened.excluded.append(Exclusion(rec.claim_id, "seed", "no_date"))
        else:
            screened.records.append(rec)
            screened.words.append(words)
    return screened


def _headline_order(rec: ClaimRecord) -> tuple[bool, date, str]:
    """Dated headlines by date, then the undated ones; ``claim_id`` breaks ties."""
    return (rec.published_date is None, rec.published_date or date.min, rec.claim_id)


def screen_headlines(headlines: Sequence[ClaimRecord], undated_policy: str) -> Screened:
    """Candidate headlines in ranking order (date, then ``claim_id``; undated last) and the excluded ones."""
    screened = Screened([], [], [])
    first_with_text: dict[str, str] = {}
    for rec in sorted(headlines, key=_headline_order):
        words = tokenize(rec.text)
        if not words:
            screened.excluded.append(Exclusion(rec.claim_id, "headline", "no_text"))
        elif rec.is_multimedia:
            screened.excluded.append(Exclusion(rec.claim_id, "headline", "multimedia"))
        elif rec.published_date is None and undated_policy == "exclude":
            screened.excluded.append(Exclusion(rec.claim_id, "headline", "no_date"))
        elif (key := " ".join(words)) in first_with_text:
            screened.excluded.append(Exclusion(rec.claim_id, "headline", "duplicate", first_with_text[key]))
        else:
            first_with_text[key] = rec.claim_id
            screened.records.append(rec)
            screened.words.append(words)
    return screened


def sample_indices(n: int, size: int, seed: int) -> list[int]:
    """A reproducible, ascending sample of ``size`` positions out of ``n`` (all when ``size`` is 0 or >= n).

    Drawn over seeds sorted by ``claim_id``, the sample does not depend on input order.
    """
    if size == 0 or size >= n:
        return list(range(n))
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False)).tolist()


def selection_params(settings: SelectionSettings) -> dict[str, Any]:
    """The settings that decide the result, as plain JSON-able data (the run's recorded params)."""
    return {
        "window_months": settings.window_months,
        "top_k": settings.top_k,
        "min_similarity": settings.min_similarity,
        "analyzer": settings.analyzer,
        "ngram_range": list(settings.ngram_range),
        "undated_policy": settings.undated_policy,
        "headline_sources": sorted(settings.headline_sources),
        "sample_size": settings.sample_size,
        "seed": settings.seed,
    }


def input_fingerprint(seeds: Sequence[ClaimRecord], headlines: Sequence[ClaimRecord]) -> str:
    """SHA-256 over every input field, independent of record order: same input, same fingerprint."""
    digest = hashlib.sha256()
    for role, records in (("seed", seeds), ("headline", headlines)):
        for rec in sorted(records, key=lambda r: r.claim_id):
            fields = [role, rec.claim_id, rec.text or "", rec.published_date.isoformat() if rec.published_date else "",
                      "1" if rec.is_multimedia else "0"]
            digest.update(json.dumps(fields, ensure_ascii=False).encode("utf-8"))
            digest.update(b"\n")
    return digest.hexdigest()


def select_true_claims(
    seeds: Sequence[ClaimRecord], headlines: Sequence[ClaimRecord], settings: SelectionSettings
) -> SelectionResult:
    """Choose, for each seed, the most similar headlines within its date window.

    Deterministic: records are sorted by ``claim_id`` (headlines by date first), the sample is
    drawn with ``settings.seed`` and ties are broken by time distance, date and ``claim_id``.
    """
    _check_unique(seeds, "seed")
    _check_unique(headlines, "headline")
    eligible = screen_seeds(seeds, settings.undated_policy)
    picked = sample_indices(len(eligible.records), settings.sample_size, settings.seed)
    used = [eligible.records[i] for i in picked]
    candidates = screen_headlines(headlines, settings.undated_policy)
    heads = candidates.records
    matches: list[Match] = []
    if used and heads:
        seed_vecs, head_vecs = vectorize(
            [eligible.words[i] for i in picked], candidates.words, settings.analyzer, settings.ngram_range
        )
        start, end = window_ordinals([r.published_date for r in used], settings.window_months)
        ranking = rank_in_windows(
            seed_vecs, head_vecs,
            ordinals([r.published_date for r in used]), start, end,
            ordinals([h.published_date for h in heads]),
            top_k=settings.top_k, min_similarity=settings.min_similarity,
        )
        matches = [
            Match(used[r].claim_id, heads[c].claim_id, s, k)
            for r, c, s, k in zip(ranking.seed_rows.tolist(), ranking.headline_cols.tolist(),
                                  ranking.scores.tolist(), ranking.ranks.tolist())
        ]
    result = SelectionResult(
        matches=matches,
        exclusions=sorted(eligible.excluded + candidates.excluded, key=lambda e: (e.role, e.claim_id)),
        seeds_total=len(seeds),
        seeds_eligible=len(eligible.records),
        seeds_used=len(used),
        headlines_total=len(headlines),
        headlines_eligible=len(heads),
        params=selection_params(settings),
    )
    log.info("selected true claims", extra={k: v for k, v in result.summary().items() if k != "excluded"})
    return result
