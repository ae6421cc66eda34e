"""Inter-annotator agreement: Fleiss' kappa, agreement shares and the label confusion table.

Everything works on a *rating table*: one row per pair, one column per label (in
:data:`FOUR_WAY` order), each cell the number of annotators who gave that label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from tasks.stance.labels import FOUR_WAY


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


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' (1971) kappa for a table where every row has the same number of raters (>= 2).

    Chance agreement comes from the label margins; when every rating has one label, chance
    agreement is 1 and kappa is undefined (NaN), as in statsmodels.
    """
    if not table:
        raise ValueError("Fleiss' kappa needs at least one rated pair")
    raters = {sum(row) for row in table}
    if len(raters) != 1:
        raise ValueError(f"Fleiss' kappa needs the same number of ratings per pair, got {sorted(raters)}")
    n = raters.pop()
    if n < 2:
        raise ValueError(f"Fleiss' kappa needs at least two ratings per pair, got {n}")
    items = len(table)
    p_mean = sum((sum(c * c for c in row) - n) / (n * (n - 1)) for row in table) / items
    margins = [sum(row[j] for row in table) / (items * n) for j in range(len(table[0]))]
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


def agreement_shares(labels_by_pair: Mapping[str, Sequence[str]]) -> AgreementShares:
    """Full agreement (one label), partial (two or more share a label, not all) or none (all differ).

    Pairs with fewer than two labels cannot agree or disagree and are not counted.
    """
    full = partial = none = 0
    for labels in labels_by_pair.values():
        if len(labels) < 2:
            continue
        top = Counter(labels).most_common(1)[0][1]
        if top == len(labels):
            full += 1
        elif top >= 2:
            partial += 1
        else:
            none += 1
    return AgreementShares(full + partial + none, full, partial, none)


def confusion_pairs(labels_by_pair: Mapping[str, Sequence[str]]) -> list[dict[str, object]]:
    """Which labels annotators confuse: every two annotators of a pair who disagree add one
    count to that unordered label pair. Rows by count (descending), then label order; the
    share is of all disagreeing annotator pairs."""
    order = {label: i for i, label in enumerate(FOUR_WAY)}
    counts: Counter[tuple[str, str]] = Counter()
    for labels in labels_by_pair.values():
        for a, b in combinations(labels, 2):
            if a != b:
                counts[tuple(sorted((a, b), key=order.__getitem__))] += 1  # type: ignore[index]
    total = sum(counts.values())
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], order[kv[0][0]], order[kv[0][1]]))
    return [
        {"label_a": a, "label_b": b, "count": n, "share": round(n / total, 4)} for (a, b), n in rows
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


def round_agreement(round_name: str, labels_by_pair: Mapping[str, Sequence[str]]) -> RoundAgreement:
    """Agreement report for one round's labels.

    Kappa needs equal raters per pair, so it uses the pairs that got the most common number of
    labels (every pair, once a round is complete) and says how many that was.
    """
    rated = {p: list(ls) for p, ls in labels_by_pair.items() if len(ls) >= 2}
    kappa: float | None = None
    k_pairs = raters = 0
    if rated:
        raters = Counter(len(ls) for ls in rated.values()).most_common(1)[0][0]
        complete = {p: ls for p, ls in rated.items() if len(ls) == raters}
        k_pairs = len(complete)
        kappa = fleiss_kappa(rating_table(complete))
    return RoundAgreement(
        round_name, len(labels_by_pair), raters, agreement_shares(rated), kappa, k_pairs, confusion_pairs(rated)
    )


def group_labels(rows: Iterable[Mapping[str, str]]) -> dict[str, list[str]]:
    """``{pair_id: [label, ...]}`` from annotation rows, labels in annotator order."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        grouped.setdefault(row["pair_id"], []).append((row["annotator_id"], row["label"]))
    return {p: [label for _, label in sorted(v)] for p, v in grouped.items()}
