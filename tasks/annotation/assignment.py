"""Who labels what: pilot, production and adjudication assignments, balanced and seeded.

Every function is deterministic for a given seed and input *set* (inputs are sorted before the
seeded shuffle), so an exported round can be re-created exactly.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

Assignment = tuple[str, str]  # (pair_id, annotator_id)


def _check_pool(annotators: Sequence[str], needed: int, what: str) -> None:
    if len(set(annotators)) != len(annotators):
        raise ValueError(f"annotator ids must be distinct, got {list(annotators)}")
    if len(annotators) < needed:
        raise ValueError(f"{what} needs at least {needed} annotators, the pool has {list(annotators)}")


def sample_pairs(pair_ids: Collection[str], size: int, seed: int) -> list[str]:
    """A seeded sample of ``size`` pairs (all of them when there are fewer), sorted."""
    chosen = sorted(pair_ids)
    random.Random(seed).shuffle(chosen)
    return sorted(chosen[:size])


def pilot_assignment(pair_ids: Collection[str], annotators: Sequence[str], size: int, seed: int) -> list[Assignment]:
    """A seeded sample of ``size`` pairs, each labelled by every annotator."""
    _check_pool(annotators, 2, "a pilot round")
    return [(p, a) for p in sample_pairs(pair_ids, size, seed) for a in sorted(annotators)]


def _least_loaded(candidates: Sequence[str], load: Mapping[str, int], rng: random.Random, k: int) -> list[str]:
    """The ``k`` candidates with the least work so far; ties broken at random (seeded)."""
    tiebreak = {a: rng.random() for a in sorted(candidates)}
    return sorted(candidates, key=lambda a: (load[a], tiebreak[a]))[:k]


def production_assignment(
    pair_ids: Collection[str], annotators: Sequence[str], per_pair: int, seed: int
) -> list[Assignment]:
    """``per_pair`` distinct annotators per pair; annotators' loads differ by at most one."""
    _check_pool(annotators, per_pair, f"{per_pair} annotators per pair")
    rng = random.Random(seed)
    order = sorted(pair_ids)
    rng.shuffle(order)
    load = {a: 0 for a in annotators}
    out: list[Assignment] = []
    for pair_id in order:
        for annotator in _least_loaded(list(annotators), load, rng, per_pair):
            load[annotator] += 1
            out.append((pair_id, annotator))
    return sorted(out)


def _adjudicators(pool: Sequence[str], labelled: Collection[str], released: Collection[str],
                  short: bool) -> list[str]:
    """Who in ``pool`` may adjudicate a pair: the first of these groups that has anyone (nobody, for a
    short pair whose pool holds only its labeller).

    1. who neither labelled nor released it: a fresh opinion;
    2. who released it and did not label it: ``annotate release`` said they would not label it, yet
       keeping them in the pool says they are back, and theirs is still an opinion of someone not in
       the dispute (``annotate adjudicate`` says the pair went back to them);
    3. who labelled it (a pool of the disputants alone: the adjudication round decides between the
       labels rather than adding one more), but not on a ``short`` pair: there the label asked for
       stands in for the one a release left missing and counts as an ordinary label
       (:func:`tasks.annotation.gold.decide`), so its labeller would agree with themselves. A
       disputant deciding their own dispute comes last: their label is taken as the gold one.
    """
    fresh = [a for a in pool if a not in labelled and a not in released]
    releasers = [a for a in pool if a in released and a not in labelled]
    labellers = [] if short else [a for a in pool if a in labelled]
    return fresh or releasers or labellers


def adjudication_assignment(
    disputed: Mapping[str, Collection[str]],
    annotators: Sequence[str],
    seed: int,
    *,
    released: Mapping[str, Collection[str]] | None = None,
    short: Collection[str] = (),
) -> list[Assignment]:
    """One adjudicator per disputed pair (``disputed`` maps it to who labelled it), least loaded first.

    ``released`` maps a pair to who gave it up with ``annotate release``, and ``short`` holds the pairs
    a release left a label short. Someone who neither labelled nor released the pair is preferred;
    :func:`_adjudicators` says who takes it when nobody in the pool is fresh: one who released it, before
    one of its disputants. A short pair that only who labelled it could take gets nobody and is left
    out: their second label would make their own label gold alone.
    """
    _check_pool(annotators, 1, "adjudication")
    released = released or {}
    rng = random.Random(seed)
    order = sorted(disputed)
    rng.shuffle(order)
    load = {a: 0 for a in annotators}
    out: list[Assignment] = []
    for pair_id in order:
        candidates = _adjudicators(annotators, disputed[pair_id], released.get(pair_id, ()), pair_id in short)
        if not candidates:
            continue
        chosen = _least_loaded(candidates, load, rng, 1)[0]
        load[chosen] += 1
        out.append((pair_id, chosen))
    return sorted(out)
