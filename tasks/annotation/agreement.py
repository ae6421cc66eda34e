"""Inter-annotator agreement: Fleiss' kappa, agreement shares and the label confusion table.

Everything works on a *rating table*: one row per pair, one column per label (in
:data:`FOUR_WAY` order), each cell the number of annotators who gave that label. Pairs with the
same row count the same in every figure, so the figures are computed from *rating profiles*: each
distinct row with the number of pairs that have it. A round of 840k annotations is then a few dozen
profiles that SQL counts, not a gigabyte of labels in Python; :func:`rating_table` and
:func:`rating_profiles` build the same profiles from labels held in Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from tasks.stance.labels import FOUR_WAY

#: One pair's rating-table row: how many annotators gave each label, in :data:`FOUR_WAY` order.
Profile = tuple[int, ...]


def rating_table(labels_by_pair: Mapping[str, Sequence[str]]) -> list[list[int]]:
    """Counts per label for each pair, rows in sorted pair order."""
    index = {label: i for i, label in enumerate(FOUR_WAY)}
    table = []
    for pair_id in sorted(labels_by_pair):
        row = [0] * len(FOUR_WAY)
        for label in labels_by_pair[pair_id]:
            if label not in index:
                raise ValueError(f"pair {pair_id}: {label!r} is not a 4-way stance label {FOUR_WAY}")
            row[index[label]] += 1
        table.append(row)
    return table


def rating_profiles(table: Iterable[Sequence[int]]) -> dict[Profile, int]:
    """Pairs per distinct row of a rating table, profiles in the order of their first row."""
    return dict(Counter(tuple(row) for row in table))


def profile_kappa(profiles: Mapping[Profile, int]) -> float:
    """Fleiss' kappa of the pairs counted in ``profiles`` (every profile with the same raters, >= 2).

    Chance agreement comes from the label margins; when every rating has one label, chance
    agreement is 1 and kappa is undefined (NaN), as in statsmodels. The sums are exact integers,
    divided once: the figure does not depend on the order the pairs come in.
    """
    if not profiles:
        raise ValueError("Fleiss' kappa needs at least one rated pair")
    raters = {sum(row) for row in profiles}
    if len(raters) != 1:
        raise ValueError(f"Fleiss' kappa needs the same number of ratings per pair, got {sorted(raters)}")
    n = raters.pop()
    if n < 2:
        raise ValueError(f"Fleiss' kappa needs at least two ratings per pair, got {n}")
    items = sum(profiles.values())
    p_mean = sum(w * (sum(c * c for c in row) - n) for row, w in profiles.items()) / (items * n * (n - 1))
    width = len(next(iter(profiles)))
    margins = [sum(w * row[j] for row, w in profiles.items()) / (items * n) for j in range(width)]
    p_chance = sum(p * p for p in margins)
    if p_chance == 1.0:
        return float("nan")
    return (p_mean - p_chance) / (1.0 - p_chance)


@dataclass(frozen=True, slots=True)
class AgreementShares:
    """How many pairs all annotators agree on, a majority of at least two agree on, or none."""

    pairs: int
    full: int
    partial: int
    none: int

    def share(self, count: int) -> float:
        return count / self.pairs if self.pairs else 0.0


def profile_shares(profiles: Mapping[Profile, int]) -> AgreementShares:
    """Full agreement (one label), partial (two or more share a label, not all) or none (all differ).

    Pairs with fewer than two labels cannot agree or disagree and are not counted.
    """
    full = partial = none = 0
    for row, pairs in profiles.items():
        if sum(row) < 2:
            continue
        if max(row) == sum(row):
            full += pairs
        elif max(row) >= 2:
            partial += pairs
        else:
            none += pairs
    return AgreementShares(full + partial + none, full, partial, none)


def profile_confusion(profiles: Mapping[Profile, int]) -> list[dict[str, object]]:
    """Which labels annotators confuse: every two annotators of a pair who disagree add one
    count to that unordered label pair, so a pair's annotators who gave labels a and b make
    ``count(a) * count(b)`` of them. Rows by count (descending), then label order; the share is
    of all disagreeing annotator pairs."""
    counts: Counter[tuple[int, int]] = Counter()
    for row, pairs in profiles.items():
        for a, b in combinations(range(len(row)), 2):
            if row[a] and row[b]:
                counts[(a, b)] += pairs * row[a] * row[b]
    total = sum(counts.values())
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [
        {"label_a": FOUR_WAY[a], "label_b": FOUR_WAY[b], "count": n, "share": round(n / total, 4)}
        for (a, b), n in rows
    ]


@dataclass(frozen=True, slots=True)
class RoundAgreement:
    """The agreement report of one round."""

    round: str
    pairs: int
    raters_per_pair: int
    shares: AgreementShares
    kappa: float | None
    kappa_pairs: int
    confusion: list[dict[str, object]]

    def summary_rows(self) -> list[dict[str, object]]:
        """The report as table rows (metric, value)."""
        s = self.shares
        return [
            {"metric": "pairs with >= 2 labels", "value": s.pairs},
            {"metric": "full agreement", "value": f"{s.full} ({s.share(s.full):.1%})"},
            {"metric": "two or more agree", "value": f"{s.partial} ({s.share(s.partial):.1%})"},
            {"metric": "no agreement", "value": f"{s.none} ({s.share(s.none):.1%})"},
            {
                "metric": f"Fleiss' kappa ({self.kappa_pairs} pairs x {self.raters_per_pair} raters)",
                "value": "n/a" if self.kappa is None else f"{self.kappa:.4f}",
            },
        ]


def profile_agreement(round_name: str, profiles: Mapping[Profile, int]) -> RoundAgreement:
    """Agreement report for one round's pairs, counted in ``profiles`` (in the order of each
    profile's first pair).

    Kappa needs equal raters per pair, so it uses the pairs that got the most common number of
    labels (every pair, once a round is complete; on a tie, the number of the first pair) and says
    how many that was.
    """
    rated = {row: pairs for row, pairs in profiles.items() if sum(row) >= 2}
    kappa: float | None = None
    k_pairs = raters = 0
    if rated:
        per_count: Counter[int] = Counter()
        for row, pairs in rated.items():
            per_count[sum(row)] += pairs
        raters = per_count.most_common(1)[0][0]
        complete = {row: pairs for row, pairs in rated.items() if sum(row) == raters}
        k_pairs = sum(complete.values())
        kappa = profile_kappa(complete)
    return RoundAgreement(
        round_name, sum(profiles.values()), raters, profile_shares(rated), kappa, k_pairs, profile_confusion(rated)
    )
