"""Claim-level train/dev/test splits, stratified, seeded and append-only.

A claim's split never changes once given: new claims fill whichever split is furthest below its
target ratio, both within their stratum (source and dominant stance) and overall, so that the
splits stay close to the ratios as the dataset grows; only claims still in the dataset count
there (a claim excluded or left out later keeps its split, for the never-move rule, but no longer
weighs on the balance). Near-duplicate claims (one cluster) share a split, so the same claim
worded twice cannot sit in train and test.

Clusters are connected components, so they can merge after their members were split: a new claim
close to a train claim and to a test claim joins the two, and so do a re-cluster or a loaded
dataset. Moving a stored split would change a published test set, so instead the cluster keeps the
split most of its members hold (ties: train, dev, test) and :func:`split_conflicts` names the
others; the build leaves them out of the dataset (``dataset_split_conflicts``), so no split holds
a claim whose near-duplicate sits in another.
"""

from __future__ import annotations

import math
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
    def pairs(self) -> int:
        """Its gold-labelled pairs."""
        return self.agree + self.disagree + self.discuss + self.unrelated

    @property
    def dominant_stance(self) -> str:
        """The most frequent related stance (ties in agree, disagree, discuss order), else unrelated."""
        counts = {s: getattr(self, s) for s in _STANCES}
        best = max(_STANCES, key=lambda s: (counts[s], -_STANCES.index(s)))
        return best if counts[best] > 0 else "unrelated"


@dataclass(frozen=True, slots=True)
class SplitConflict:
    """A claim whose near-duplicate cluster keeps another split than the one it holds."""

    claim_id: str
    group_id: str
    split: str
    kept_split: str


def _kept_split(held: Sequence[str]) -> str:
    """The split a cluster keeps: the one most of its split members hold (ties: train, dev, test)."""
    return min(Counter(held).most_common(), key=lambda kv: (-kv[1], SPLITS.index(kv[0])))[0]


def _groups(candidates: Sequence[SplitCandidate]) -> dict[str, list[SplitCandidate]]:
    """Candidates by near-duplicate cluster: the unit that must sit in one split."""
    groups: dict[str, list[SplitCandidate]] = {}
    for cand in candidates:
        groups.setdefault(cand.group_id, []).append(cand)
    return groups


def split_conflicts(candidates: Sequence[SplitCandidate], splits: Mapping[str, str]) -> list[SplitConflict]:
    """The candidates whose split differs from the one their cluster keeps, by cluster then claim.

    ``splits`` is every stored assignment; claims that are not candidates (left the dataset) take
    no part, so a duplicate that was excluded never pushes a current claim out.
    """
    out: list[SplitConflict] = []
    for group_id, members in sorted(_groups(candidates).items()):
        held = {m.claim_id: splits[m.claim_id] for m in members if m.claim_id in splits}
        if len(set(held.values())) < 2:
            continue
        kept = _kept_split(list(held.values()))
        out += [SplitConflict(c, group_id, s, kept) for c, s in sorted(held.items()) if s != kept]
    return out


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

    A new claim in a cluster that already has a split joins the split the cluster keeps. Other
    clusters are taken in a seeded order and each goes, whole, to the split with the largest
    shortfall. Only the candidates count towards the shortfalls, and of a cluster that holds two
    splits only the members in the kept one: ``existing`` may hold claims that have left the
    dataset, and they must not skew where newcomers go.
    """
    if (len(ratios) != len(SPLITS) or not all(math.isfinite(r) and 0 <= r <= 1 for r in ratios)
            or abs(sum(ratios) - 1.0) > 1e-6):
        raise ValueError(f"split ratios must be three finite numbers in [0, 1] summing to 1, got {tuple(ratios)}")
    bad = {c: s for c, s in existing.items() if s not in SPLITS}
    if bad:
        raise ValueError(f"unknown split names in existing assignments: {bad}")
    groups = _groups(candidates)

    def stratum_of(members: list[SplitCandidate]) -> str:
        lead = min(members, key=lambda c: c.claim_id)
        total = SplitCandidate(
            lead.claim_id, lead.group_id, lead.source_id,
            *(sum(getattr(m, s) for m in members) for s in ("agree", "disagree", "discuss", "unrelated")),
        )
        return f"{lead.source_id}/{total.dominant_stance}"

    per_stratum: dict[str, Counter[str]] = {}
    overall: Counter[str] = Counter()
    new: dict[str, str] = {}
    fresh: list[str] = []
    for group_id, members in sorted(groups.items()):
        stratum = per_stratum.setdefault(stratum_of(members), Counter())
        held = [existing[m.claim_id] for m in members if m.claim_id in existing]
        if held:
            joined = _kept_split(held)
            staying = sum(1 for m in members if existing.get(m.claim_id, joined) == joined)
            for m in members:
                if m.claim_id not in existing:
                    new[m.claim_id] = joined
            stratum[joined] += staying
            overall[joined] += staying
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
