"""Train one model and score it on several sets: the step every experiment repeats."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from arastance.config import Settings
from arastance.logging import get_logger
from tasks.stance.examples import StanceExample
from tasks.stance.experiments.results import Cell
from tasks.stance.labels import Scheme, to_scheme
from tasks.stance.metrics import evaluate
from tasks.stance.model import StanceModel, create_model, require_labels

log = get_logger(__name__)


class ModelFactory(Protocol):
    """Scheme and config overrides -> a new, untrained model of ``kind``. The kind is known before any
    model is built, because which overrides apply depends on it (``two_stage`` is a CPU model's)."""

    kind: str

    def __call__(self, scheme: Scheme, **overrides: Any) -> StanceModel: ...


@dataclass(frozen=True)
class SettingsModelFactory:
    """:func:`tasks.stance.model.create_model` with the settings, the kind and ``fixed`` overrides bound."""

    settings: Settings
    kind: str
    fixed: dict[str, Any] = field(default_factory=dict)

    def __call__(self, scheme: Scheme, **overrides: Any) -> StanceModel:
        return create_model(self.kind, self.settings.model, scheme, embedding_cache=self.settings.embedding_cache,
                            **{**self.fixed, **overrides})


def model_factory(settings: Settings, kind: str | None, **fixed: Any) -> ModelFactory:
    """A factory of untrained models of ``kind`` (default: model.default) with ``fixed`` overrides:
    an experiment trains a fresh model per cell, each configured the same way."""
    return SettingsModelFactory(settings, kind or settings.model.default, fixed)


def in_scheme(examples: Sequence[StanceExample], scheme: Scheme) -> list[StanceExample]:
    """The examples with their labels mapped into ``scheme`` (4-way to 3-way merges discuss and unrelated)."""
    return [replace(e, label=to_scheme(e.label, scheme)) if e.label is not None else e for e in examples]


def train_and_score(make_model: ModelFactory, scheme: Scheme, row: str, train: Sequence[StanceExample],
                    evaluation: Mapping[str, Sequence[StanceExample]], **overrides: Any) -> list[Cell]:
    """Fit a ``scheme`` model on ``train`` and score it on every evaluation set (column -> pairs)."""
    model = make_model(scheme, **overrides)
    pairs = in_scheme(train, scheme)
    require_labels(pairs, model.labels)
    started = time.perf_counter()
    model.fit(pairs)
    seconds = time.perf_counter() - started
    cells = []
    for column, examples in evaluation.items():
        scored = in_scheme(examples, scheme)
        ev = evaluate(require_labels(scored, model.labels), model.predict(scored), model.labels,
                      groups=[e.claim_id for e in scored])
        log.info("experiment cell", extra={"row": row, "column": column, "scheme": scheme,
                                           "macro_f1": round(ev.macro_f1, 4), "train_seconds": round(seconds, 1)})
        cells.append(Cell(row=row, column=column, scheme=scheme, evaluation=ev, train_pairs=len(pairs),
                          train_seconds=seconds))
    return cells
