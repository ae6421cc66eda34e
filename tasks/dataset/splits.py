"""Claim-level train/dev/test splits, stratified, seeded and append-only.

A claim's split never changes once given: new claims fill whichever split is furthest below its
target ratio, both within their stratum (source and dominant stance) and overall, so that the
splits stay close to the ratios as the dataset grows. Near-duplicate claims (one cluster) share
a split, so the same claim worded twice cannot sit in train and test.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SPLITS: tuple[str, str, str] = ("train", "dev", "test")
_STANCES: tuple[str, ...] = ("agree", "disagree", "discuss")


@dataclass(frozen=True, slots=True)
class SplitCandidate:
    """A claim that has gold labels: its cluster, source and label counts."""

    claim_id: str
    group_id: str
    source_id: str
    agree: int = 0
    disagree: int = 0
    discuss: int = 0
    unrelated: int = 0

    @property
    def dominant_stance(self) -> str:
        """The most frequent related stance (ties in agree, disagree, discuss order), else unrelated."""
        counts = {s: getattr(self, s) for s in _STANCES}
        best = max(_STANCES, key=lambda s: (counts[s], -_STANCES.index(s)))
        return best if counts[best] > 0 else "unrelated"


def _pick(ratios: Sequence[float], size: int, stratum: Counter[str], overall: Counter[str]) -> str:
    """The split with the largest shortfall against its ratio, in the stratum plus overall."""
    n_stratum, n_all = sum(stratum.values()), sum(overall.values())

    def shortfall(i: int) -> float:
        name = SPLITS[i]
        return (ratios[i] * (n_stratum + size) - stratum[name]) + (ratios[i] * (n_all + size) - overall[name])

    return SPLITS[max(range(len(SPLITS)), key=lambda i: (shortfall(i), -i))]


def assign_splits(
    candidates: Sequence[SplitCandidate],
    existing: Mapping[str, str],
    ratios: Sequence[float],
    seed: int,
) -> dict[str, str]:
    """Splits for the candidates not in ``existing``; existing assignments are never returned changed.

    A new claim in a cluster that already has a split joins it. Other clusters are taken in a
    seeded order and each goes, whole, to the split with the largest shortfall.
    """
    if len(ratios) != len(SPLITS) or abs(sum(ratios) - 1.0) > 1e-6 or min(ratios) < 0:
        raise ValueError(f"split ratios must be three non-negative numbers summing to 1, got {tuple(ratios)}")
    bad = {c: s for c, s in existing.items() if s not in SPLITS}
    if bad:
        raise ValueError(f"unknown split names in existing assignments: {bad}")
    groups: dict[str, list[SplitCandidate]] = {}
    for cand in candidates:
        groups.setdefault(cand.group_id, []).append(cand)

    def stratum_of(members: list[SplitCandidate]) -> str:
        lead = min(members, key=lambda c: c.claim_id)
        total = SplitCandidate(
            lead.claim_id, lead.group_id, lead.source_id,
            *(sum(getattr(m, s) for m in members) for s in ("agree", "disagree", "discuss", "unrelated")),
        )
        return f"{lead.source_id}/{total.dominant_stance}"

    per_stratum: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    for split in existing.values():
        overall[split] += 1
    new: dict[str, str] = {}
    fresh: list[str] = []
    for group_id, members in sorted(groups.items()):
        stratum = per_stratum.setdefault(stratum_of(members), Counter())
        held = [existing[m.claim_id] for m in members if m.claim_id in existing]
        for m in members:
            if m.claim_id in existing:
                stratum[existing[m.claim_id]] += 1
        if held:
            joined = min(Counter(held).most_common(), key=lambda kv: (-kv[1], SPLITS.index(kv[0])))[0]
            for m in members:
                if m.claim_id not in existing:
                    new[m.claim_id] = joined
                    stratum[joined] += 1
                    overall[joined] += 1
        else:
            fresh.append(group_id)
    random.Random(seed).shuffle(fresh)
    for group_id in fresh:
        members = groups[group_id]
        stratum = per_stratum[stratum_of(members)]
        split = _pick(ratios, len(members), stratum, overall)
        for m in members:
            new[m.claim_id] = split
        stratum[split] += len(members)
        overall[split] += len(members)
    return new
