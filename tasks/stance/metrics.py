"""Evaluation in the method's terms: per-class F1, accuracy, macro-F1 and a confusion matrix,
plus the results table laid out like the paper's (rows models, column groups datasets).

Dev and test splits of these corpora are small where it matters (Khouja's dev split has 16 "other"
pairs, Baly's 25 disagree), so one pair moves macro-F1 by a point or more. Every evaluation of pairs
with claim ids therefore also gives a 95 % interval of macro-F1 from a claim bootstrap
(:func:`bootstrap_macro_f1`): a reader can see whether two models, or a model and a goal, differ by
more than the split can tell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

# bootstrap draws behind an interval: enough for the ends of a 95 % interval to settle within about .005
BOOTSTRAP_RESAMPLES = 1000
INTERVAL_LEVEL = 0.95


@dataclass(frozen=True)
class Evaluation:
    """Metrics of one model on one dataset split.

    The per-class figures (``f1``, ``precision``, ``recall``) of a class on neither side, absent from
    gold and never predicted, are NaN: they are 0 / 0, and 0 would read as a class the model got all
    wrong (a perfect model showed F1 0 for it beside macro-F1 1, which leaves the class out). NaN, unlike
    None, keeps every reader of these floats working: Prefect's table artifacts and the CLI's JSON write it
    as null, the model card's data as null and its tables as a dash, and the warehouse stores no row for
    it (NaN there would turn a SQL ``avg`` or ``max`` over the classes into NaN).
    """

    labels: tuple[str, ...]
    accuracy: float
    macro_f1: float
    f1: dict[str, float]
    precision: dict[str, float]
    recall: dict[str, float]
    support: dict[str, int]
    confusion: np.ndarray  # rows gold, columns predicted, in ``labels`` order
    # the 95 % claim-bootstrap interval of macro-F1 (None when scored without claim ids)
    macro_f1_interval: tuple[float, float] | None = None

    def as_metrics(self) -> dict[str, Any]:
        """The form stored in the warehouse's ``evaluations`` table."""
        interval = {} if self.macro_f1_interval is None else {
            "macro_f1_low": self.macro_f1_interval[0], "macro_f1_high": self.macro_f1_interval[1]}
        return {"accuracy": self.accuracy, "macro_f1": self.macro_f1, **interval, "f1": self.f1,
                "precision": self.precision, "recall": self.recall, "support": self.support}


def macro_f1_of(confusion: np.ndarray) -> np.ndarray:
    """Macro-F1 of a confusion matrix (rows gold, columns predicted), or of each of a stack of them.

    The mean runs over the classes present in gold or predictions: a class the model misses (gold
    has it, nothing predicts it) or invents (predicted, gold lacks it) counts as F1 = 0, but a class
    absent from both sides is left out. Counting that one as 0 too would mark down a split, or a
    bootstrap draw, for lacking a rare class (a perfect model would score .67 on a 3-way split without
    disagree), which says nothing about the model. Every macro-F1 of this project is this one:
    :func:`evaluate`, each draw of :func:`bootstrap_macro_f1`, and the CPU model's tuning.
    """
    confusion = np.asarray(confusion, dtype=float)
    hits = np.diagonal(confusion, axis1=-2, axis2=-1)
    denominator = _gold_plus_predicted(confusion)
    present = denominator > 0
    f1 = np.divide(2 * hits, denominator, out=np.zeros_like(hits), where=present)
    return f1.sum(axis=-1) / present.sum(axis=-1)


def _gold_plus_predicted(confusion: np.ndarray) -> np.ndarray:
    """Each class's gold pairs plus its predictions, F1's denominator 2 tp + fp + fn: the row sum
    (tp + fn) plus the column sum (tp + fp). Zero only for a class on neither side."""
    return confusion.sum(axis=-1) + confusion.sum(axis=-2)


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    """:func:`macro_f1_of` the pairs' confusion matrix over ``labels`` (which must hold every label used)."""
    return float(macro_f1_of(confusion_matrix(gold, predicted, labels=list(labels))))


def bootstrap_macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str],
                       groups: Sequence[str], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 42) -> np.ndarray:
    """Macro-F1 of ``resamples`` bootstrap draws in which a group's pairs are drawn together.

    A claim's pairs share its text and mostly its label, so they are not independent: drawing pairs
    one by one would understate the spread. Each draw takes as many groups as there are, with
    replacement (groups in order of first appearance, so a seed always gives the same draws), and
    is scored from the summed confusion matrices of the groups drawn, as :func:`evaluate` would score
    it (:func:`macro_f1_of`: a draw without any claim of a rare class is not marked down for it).
    """
    if not len(gold) == len(predicted) == len(groups):
        raise ValueError(f"{len(gold)} gold labels, {len(predicted)} predictions and {len(groups)} groups: "
                         "one of each per pair")
    if not gold:
        raise ValueError("cannot bootstrap an empty set of predictions")
    index = {label: i for i, label in enumerate(labels)}
    members = {group: g for g, group in enumerate(dict.fromkeys(groups))}
    per_group = np.zeros((len(members), len(labels), len(labels)))
    for truth, guess, group in zip(gold, predicted, groups):
        per_group[members[group], index[truth], index[guess]] += 1
    rng = np.random.default_rng(seed)
    drawn = np.stack([np.bincount(rng.integers(len(members), size=len(members)), minlength=len(members))
                      for _ in range(resamples)])
    return macro_f1_of(np.einsum("rg,gij->rij", drawn, per_group))


def evaluate(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str],
             groups: Sequence[str] | None = None) -> Evaluation:
    """Score predictions. Macro-F1 averages over the labels present in gold or predictions
    (:func:`macro_f1_of`): a class the model never predicts, or predicts where gold has none, counts
    as F1 = 0, one absent from both is left out. The per-class figures cover every label of the
    scheme: a class the model misses or invents has F1 0 (its precision or recall 0 too), one absent
    from both has support 0 and NaN for the rest (:class:`Evaluation`). With ``groups`` (each pair's
    claim id) the evaluation also carries macro-F1's 95 % claim-bootstrap interval."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    if not gold:
        raise ValueError("cannot evaluate an empty set of predictions")
    labels = tuple(labels)
    foreign = sorted({*gold, *predicted} - set(labels))
    if foreign:
        raise ValueError(f"labels {foreign} are not in the scheme {labels}")
    p, r, f, s = precision_recall_fscore_support(gold, predicted, labels=list(labels), zero_division=0)
    confusion = confusion_matrix(gold, predicted, labels=list(labels))
    scored = _gold_plus_predicted(confusion) > 0
    return Evaluation(
        labels=labels,
        accuracy=float(accuracy_score(gold, predicted)),
        macro_f1=float(macro_f1_of(confusion)),
        f1=_per_class(labels, f, scored),
        precision=_per_class(labels, p, scored),
        recall=_per_class(labels, r, scored),
        support={lab: int(v) for lab, v in zip(labels, s)},
        confusion=confusion,
        macro_f1_interval=None if groups is None else interval(bootstrap_macro_f1(gold, predicted, labels, groups)),
    )


def _per_class(labels: tuple[str, ...], values: np.ndarray, scored: np.ndarray) -> dict[str, float]:
    """``values`` by label, NaN for a label not ``scored`` (on neither side: its figure is 0 / 0, not 0)."""
    return {lab: float(v) if has else math.nan for lab, v, has in zip(labels, values, scored)}


def interval_text(evaluation: Evaluation, before: str = "", digits: int = 2) -> str:
    """``[low–high]`` of macro-F1's interval (after ``before``), or nothing when the evaluation has none."""
    if evaluation.macro_f1_interval is None:
        return ""
    low, high = evaluation.macro_f1_interval
    return f"{before}[{low:.{digits}f}–{high:.{digits}f}]"


def interval(draws: np.ndarray, level: float = INTERVAL_LEVEL) -> tuple[float, float]:
    """The central ``level`` percentile interval of bootstrap ``draws``."""
    low, high = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def plot_confusion(evaluation: Evaluation, path: Path, title: str) -> Path:
    """Save the confusion matrix as a PNG (counts in cells, gold on rows)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cm = evaluation.confusion
    fig, ax = plt.subplots(figsize=(4.8, 4.2), dpi=100)
    ax.imshow(cm, cmap="Blues")
    ax.set_xticks(range(len(evaluation.labels)), evaluation.labels, rotation=30, ha="right")
    ax.set_yticks(range(len(evaluation.labels)), evaluation.labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(title, fontsize=9)
    threshold = cm.max() / 2 if cm.size else 0
    for (i, j), value in np.ndenumerate(cm):
        ax.text(j, i, str(value), ha="center", va="center", color="white" if value > threshold else "black")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


_ABBREV = {"agree": "A", "disagree": "D", "discuss": "Ds", "unrelated": "U", "other": "O"}


def figure_text(value: float, digits: int = 2) -> str:
    """A table cell of ``digits`` decimals; a dash for NaN (a per-class figure of a class on neither side
    of a split, :class:`Evaluation`)."""
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def per_class_text(evaluation: Evaluation, digits: int = 3) -> str:
    """Each label's F1 on one line (``agree 0.812  disagree –  ...``), as the benchmarks print it."""
    return "  ".join(f"{label} {figure_text(f1, digits)}" for label, f1 in evaluation.f1.items())


def results_table(results: dict[str, dict[str, Evaluation]]) -> str:
    """Markdown table: one row per model, one column group per dataset with the per-class F1,
    accuracy and macro-F1 (``results[model][dataset]``), the latter with its 95 % interval where the
    evaluation has one. A missing cell shows as a dash: a whole group where the model was not
    evaluated on that dataset, a class's F1 where the split has the class on neither side (macro-F1
    leaves it out, so the row's per-class cells average to the macro-F1 beside them)."""
    datasets: dict[str, tuple[str, ...]] = {}
    for per_dataset in results.values():
        for name, ev in per_dataset.items():
            datasets.setdefault(name, ev.labels)
    header = ["Model"]
    for name, labels in datasets.items():
        header += [f"{name} {_ABBREV.get(lab, lab)}" for lab in labels] + [f"{name} Acc", f"{name} F1"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for model, per_dataset in results.items():
        cells = [model]
        for name, labels in datasets.items():
            ev = per_dataset.get(name)
            if ev is None:
                cells += ["–"] * (len(labels) + 2)
            else:
                cells += [figure_text(ev.f1[lab]) for lab in labels] + [f"{ev.accuracy:.2f}", f"{ev.macro_f1:.2f}"
                                                                     + interval_text(ev, " ")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
