"""Model-assisted annotation: a stance model's guesses shown to annotators, uncertain pairs first.

Annotation is the slowest stage of the method. A trained model helps twice: its label appears
pre-selected in Label Studio (a task's ``predictions``, with the model version and its
confidence as ``score``), and a round labels the pairs the model is least sure of first (uncertainty
sampling: the smallest margin between its two most probable labels), which teaches the next model
more per label than a random sample does (``benchmarks/bench_active_annotation.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from tasks.stance.examples import StanceExample
from tasks.stance.model import StanceModel
from warehouse import Warehouse
from warehouse import annotation as store

TaskOrder = Literal["random", "uncertainty"]
# The names in the labeling config (tasks.annotation.label_studio.labeling_config) the result refers to.
FROM_NAME, TO_NAME = "stance", "article"


@dataclass(frozen=True, slots=True)
class Prediction:
    """A model's stance for one pair: its label, confidence and how unsure it is."""

    pair_id: str
    label: str
    score: float  # probability of ``label``
    uncertainty: float  # 1 - (top probability - second probability): 1 = a coin toss
    model_version: str


def margin_uncertainty(proba: np.ndarray) -> np.ndarray:
    """1 minus the margin between the two most probable labels, per row."""
    if proba.shape[1] < 2:
        return np.zeros(proba.shape[0])
    top2 = np.sort(proba, axis=1)[:, -2:]
    return 1.0 - (top2[:, 1] - top2[:, 0])


def predict_pairs(model: StanceModel, pairs: Mapping[str, Mapping[str, Any]], model_version: str) -> dict[str, Prediction]:
    """Predictions for pairs given as ``pair_id -> {claim, article, article_title}`` (warehouse rows).

    A model in the 3-way scheme cannot pre-select a 4-way label, so it is refused.
    """
    if "discuss" not in model.labels:
        raise ValueError(f"model {model.name} predicts {model.labels}; annotation needs a 4-way model")
    ids = sorted(pairs)
    if not ids:
        return {}
    examples = [StanceExample(claim=pairs[p]["claim"], article=pairs[p]["article"] or "", label=None, claim_id=str(p),
                              article_id=p, article_title=pairs[p].get("article_title")) for p in ids]
    proba = model.predict_proba(examples)
    best = proba.argmax(axis=1)
    unsure = margin_uncertainty(proba)
    return {p: Prediction(p, model.labels[int(best[i])], round(float(proba[i, best[i]]), 4), round(float(unsure[i]), 4),
                          model_version) for i, p in enumerate(ids)}


def predict_unassigned(wh: Warehouse, model: StanceModel, model_version: str) -> dict[str, Prediction]:
    """Predictions for every pair a new round could still be given (see ``export_round``)."""
    return predict_pairs(model, store.pair_tasks(wh, store.unassigned_pair_ids(wh)), model_version)


def most_uncertain(pair_ids: Sequence[str], predictions: Mapping[str, Prediction], size: int | None) -> list[str]:
    """``pair_ids`` most uncertain first (ties by id), at most ``size``; pairs without a prediction last."""
    ranked = sorted(pair_ids, key=lambda p: (-predictions[p].uncertainty if p in predictions else 1.0, p))
    return ranked if size is None else ranked[:size]


def label_studio_prediction(prediction: Prediction) -> dict[str, Any]:
    """One entry of a Label Studio task's ``predictions`` list (pre-selects the choice)."""
    return {
        "model_version": prediction.model_version,
        "score": prediction.score,
        "result": [{"from_name": FROM_NAME, "to_name": TO_NAME, "type": "choices",
                    "value": {"choices": [prediction.label]}}],
    }
