"""Cross-dataset transfer: train on each corpus, evaluate on each (the paper's open question of
how AraStance, Baly et al. 2018 and Khouja 2020 differ).

A pair of 4-way corpora is compared in 4-way labels; as soon as one side is 3-way (Khouja), both
are mapped to 3-way (discuss and unrelated become other), so each training corpus yields at most
one model per scheme.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arastance.config import Settings

from tasks.stance.datasets import WarehouseGold
from tasks.stance.examples import StanceExample
from tasks.stance.experiments.results import ExperimentResult
from tasks.stance.experiments.training import ModelFactory, train_and_score
from tasks.stance.labels import Scheme
from tasks.stance.runs import dataset_path
from warehouse.connection import WarehouseBusyError

CORPORA: tuple[str, ...] = ("warehouse", "arastance", "baly", "khouja")


@dataclass(frozen=True)
class Corpus:
    """A corpus as the experiment uses it: its training pairs and its evaluation pairs."""

    name: str
    native_scheme: Scheme
    train: Sequence[StanceExample]
    evaluation: Sequence[StanceExample]


def locate_corpora(settings: Settings, names: Sequence[str] | None,
                   paths: Mapping[str, str | Path]) -> dict[str, Path]:
    """Corpus name -> location: the ``names`` asked for (default: every corpus given in ``paths`` or
    whose data is present where the settings put it), at ``paths`` where given, else where the
    settings put them. An unknown name, a missing location or fewer than two corpora is a clear error."""
    unknown = sorted((set(names or []) | set(paths)) - set(CORPORA))
    if unknown:
        raise ValueError(f"unknown corpora {unknown}; expected some of {list(CORPORA)}")
    chosen = list(names or [n for n in CORPORA if n in paths or has_data(settings, n)])
    located = {n: dataset_path(settings, n, Path(paths[n]) if n in paths else None) for n in chosen}
    for name, where in located.items():
        if not where.exists():
            raise ValueError(f"corpus {name!r}: {where} not found (give its location with --path {name}=PATH)")
    if len(located) < 2:
        raise ValueError(f"cross-dataset needs at least two corpora, found {sorted(located) or 'none'}")
    return located


def has_data(settings: Settings, name: str) -> bool:
    """Whether corpus ``name`` is present where the settings put it. For the warehouse that means gold
    training pairs, not just the file: any pipeline run creates it (this experiment too, storing its
    table), long before a pair is labelled, and a warehouse without gold pairs has nothing to train on."""
    where = dataset_path(settings, name)
    if not where.exists():
        return False
    if name != "warehouse":
        return True
    try:
        return WarehouseGold(where).pair_count("train") > 0
    except WarehouseBusyError as exc:
        raise ValueError(f"corpus 'warehouse': {exc}; to leave it out, name the corpora with --corpus") from None


def common_scheme(a: Corpus, b: Corpus) -> Scheme:
    """4-way when both corpora are 4-way, else 3-way."""
    return "4way" if a.native_scheme == b.native_scheme == "4way" else "3way"


def cross_dataset(corpora: Sequence[Corpus], make_model: ModelFactory, config: dict | None = None) -> ExperimentResult:
    """Every corpus's model scored on every corpus's evaluation pairs (the diagonal is in-domain)."""
    names = [c.name for c in corpora]
    if len(corpora) < 2:
        raise ValueError(f"cross-dataset needs at least two corpora, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"corpus names must be distinct, got {names}")
    result = ExperimentResult("cross-dataset", {**(config or {}), "corpora": names})
    for source in corpora:
        for scheme in ("4way", "3way"):
            targets = {t.name: t.evaluation for t in corpora if common_scheme(source, t) == scheme}
            if targets:
                result.cells += train_and_score(make_model, scheme, source.name, source.train, targets)
    order = {name: i for i, name in enumerate(names)}
    result.cells.sort(key=lambda c: (order[c.row], order[c.column]))
    return result
