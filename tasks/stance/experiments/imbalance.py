"""Class imbalance: the same corpus and model under each way of handling skewed labels.

Strategies: ``none`` (plain loss), ``class_weighted`` (loss weighted by inverse class frequency),
``upsampled`` (every class drawn with replacement up to the largest), ``downsampled`` (every class
cut to the smallest), ``two_step`` (related vs unrelated first, then the rest; CPU model only).
Resampling touches only the training pairs; evaluation pairs keep their natural distribution.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tasks.stance.examples import StanceExample
from tasks.stance.experiments.results import ExperimentResult
from tasks.stance.experiments.training import ModelFactory, in_scheme, train_and_score
from tasks.stance.labels import Scheme
from tasks.stance.model import WITH_CPU_MODEL


@dataclass(frozen=True)
class Strategy:
    class_weighted: bool
    resample: str | None = None  # 'up' or 'down'
    two_stage: bool = False


STRATEGIES: dict[str, Strategy] = {
    "none": Strategy(class_weighted=False),
    "class_weighted": Strategy(class_weighted=True),
    "upsampled": Strategy(class_weighted=False, resample="up"),
    "downsampled": Strategy(class_weighted=False, resample="down"),
    "two_step": Strategy(class_weighted=True, two_stage=True),
}


def check_strategies(strategies: Sequence[str] | None, kind: str) -> list[str]:
    """The strategies as a list (none given: every one a ``kind`` model can run, which leaves out
    two_step for a transformer); an unknown or repeated one, or two_step without a CPU model (alone or in
    the ensemble), is an error. Each is checked before any model trains: a repeated one would train its
    model twice, then break the stored table's key (one row per strategy) after all the training."""
    if not strategies:
        return [name for name, s in STRATEGIES.items() if kind in WITH_CPU_MODEL or not s.two_stage]
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"unknown imbalance strategies {unknown}; expected some of {list(STRATEGIES)}")
    repeated = sorted(s for s, n in Counter(strategies).items() if n > 1)
    if repeated:
        raise ValueError(f"imbalance strategies {repeated} given more than once; give each strategy once")
    if kind not in WITH_CPU_MODEL and any(STRATEGIES[s].two_stage for s in strategies):
        raise ValueError(f"the two_step strategy needs the CPU model (kind cpu or ensemble), not a {kind} model")
    return list(strategies)


def resample(examples: Sequence[StanceExample], mode: str, seed: int = 42) -> list[StanceExample]:
    """Balance the labels: 'up' draws extra copies of each class up to the largest class, 'down'
    keeps a random subset of each class as large as the smallest; order is shuffled, seeded."""
    if mode not in ("up", "down"):
        raise ValueError(f"resampling mode must be 'up' or 'down', not {mode!r}")
    rng = np.random.default_rng(seed)
    by_label: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        by_label.setdefault(str(e.label), []).append(i)
    sizes = [len(v) for v in by_label.values()]
    target = max(sizes) if mode == "up" else min(sizes)
    chosen: list[int] = []
    for indices in by_label.values():
        if mode == "up":
            chosen += indices + list(rng.choice(indices, size=target - len(indices), replace=True))
        else:
            chosen += list(rng.choice(indices, size=target, replace=False))
    return [examples[i] for i in rng.permutation(chosen)]


def imbalance(corpus: str, train: Sequence[StanceExample], evaluation: Sequence[StanceExample], scheme: Scheme,
              make_model: ModelFactory, strategies: Sequence[str] = tuple(STRATEGIES), seed: int = 42,
              config: dict | None = None) -> ExperimentResult:
    """One row per strategy: the model trained that way on ``train``, scored on ``evaluation``.

    A model with a CPU part (kind cpu or ensemble) is told each strategy's ``two_stage`` either way,
    so that a ``model.two_stage`` setting does not turn every row into the two_step one."""
    result = ExperimentResult("imbalance", {**(config or {}), "corpus": corpus, "scheme": scheme,
                                            "strategies": list(strategies)})
    pairs = in_scheme(train, scheme)
    for name in strategies:
        strategy = STRATEGIES[name]
        used = resample(pairs, strategy.resample, seed) if strategy.resample else pairs
        overrides = {"class_weighted": strategy.class_weighted}
        if make_model.kind in WITH_CPU_MODEL:
            overrides["two_stage"] = strategy.two_stage
        result.cells += train_and_score(make_model, scheme, name, used, {corpus: evaluation}, **overrides)
    return result
