"""Evaluation in the method's terms: per-class F1, accuracy, macro-F1 and a confusion matrix,
plus the results table laid out like the paper's (rows models, column groups datasets)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support


@dataclass(frozen=True)
class Evaluation:
    """Metrics of one model on one dataset split."""

    labels: tuple[str, ...]
    accuracy: float
    macro_f1: float
    f1: dict[str, float]
    precision: dict[str, float]
    recall: dict[str, float]
    support: dict[str, int]
    confusion: np.ndarray  # rows gold, columns predicted, in ``labels`` order

    def as_metrics(self) -> dict[str, Any]:
        """The form stored in the warehouse's ``evaluations`` table."""
        return {"accuracy": self.accuracy, "macro_f1": self.macro_f1, "f1": self.f1,
                "precision": self.precision, "recall": self.recall, "support": self.support}


def evaluate(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> Evaluation:
    """Score predictions; macro-F1 averages over every label of the scheme, present or not,
    as the paper does (a class the model never predicts counts as F1 = 0)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    if not gold:
        raise ValueError("cannot evaluate an empty set of predictions")
    labels = tuple(labels)
    foreign = sorted({*gold, *predicted} - set(labels))
    if foreign:
        raise ValueError(f"labels {foreign} are not in the scheme {labels}")
    p, r, f, s = precision_recall_fscore_support(gold, predicted, labels=list(labels), zero_division=0)
    return Evaluation(
        labels=labels,
        accuracy=float(accuracy_score(gold, predicted)),
        macro_f1=float(np.mean(f)),
        f1={lab: float(v) for lab, v in zip(labels, f)},
        precision={lab: float(v) for lab, v in zip(labels, p)},
        recall={lab: float(v) for lab, v in zip(labels, r)},
        support={lab: int(v) for lab, v in zip(labels, s)},
        confusion=confusion_matrix(gold, predicted, labels=list(labels)),
    )


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


def results_table(results: dict[str, dict[str, Evaluation]]) -> str:
    """Markdown table: one row per model, one column group per dataset with the per-class F1,
    accuracy and macro-F1 (``results[model][dataset]``); a missing cell shows as a dash."""
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
                cells += [f"{ev.f1[lab]:.2f}" for lab in labels] + [f"{ev.accuracy:.2f}", f"{ev.macro_f1:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
