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


def adjudication_assignment(
    disputed: Mapping[str, Collection[str]], annotators: Sequence[str], seed: int
) -> list[Assignment]:
    """One adjudicator per disputed pair, least loaded first.

    Someone who has not labelled the pair is preferred (a fresh third opinion); when the whole
    pool has labelled it (a pilot pair with no agreement), anyone in the pool adjudicates it,
    as the adjudication round decides between the labels rather than adding one more.
    """
    _check_pool(annotators, 1, "adjudication")
    rng = random.Random(seed)
    order = sorted(disputed)
    rng.shuffle(order)
    load = {a: 0 for a in annotators}
    out: list[Assignment] = []
    for pair_id in order:
        free = [a for a in annotators if a not in disputed[pair_id]] or list(annotators)
        chosen = _least_loaded(free, load, rng, 1)[0]
        load[chosen] += 1
        out.append((pair_id, chosen))
    return sorted(out)
