"""Stance dataset loaders: every corpus yields :class:`tasks.stance.examples.StanceExample` records.

``open_dataset(name, path)`` returns a loader; ``loader.examples(split, scheme)`` yields the pairs
of ``train``, ``dev`` or ``test`` with labels in the 4-way or 3-way scheme.
"""

from __future__ import annotations

from pathlib import Path

from tasks.stance.datasets.arastance_jsonl import AraStanceJsonl
from tasks.stance.datasets.baly import BalyCorpus
from tasks.stance.datasets.common import SPLITS, DatasetError, SplitAbsentError, StanceDataset
from tasks.stance.datasets.khouja import KhoujaCsv
from tasks.stance.datasets.warehouse_gold import WarehouseGold
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme

LOADERS: dict[str, type] = {
    "arastance": AraStanceJsonl,
    "baly": BalyCorpus,
    "khouja": KhoujaCsv,
    "warehouse": WarehouseGold,
}


def open_dataset(name: str, path: Path) -> StanceDataset:
    """The loader for corpus ``name`` rooted at ``path`` (a directory; the warehouse file for 'warehouse')."""
    if name not in LOADERS:
        raise DatasetError(f"unknown dataset {name!r}; expected one of {sorted(LOADERS)}")
    return LOADERS[name](Path(path))


def load_split(name: str, path: Path, split: str, scheme: Scheme | None = None) -> list[StanceExample]:
    """All pairs of one split, in the corpus's own scheme unless ``scheme`` is given."""
    dataset = open_dataset(name, path)
    examples = list(dataset.examples(split, scheme or dataset.native_scheme))
    if not examples:
        raise SplitAbsentError(f"{path}: the {split} split of {name} has no examples")
    return examples


__all__ = [
    "LOADERS",
    "SPLITS",
    "AraStanceJsonl",
    "BalyCorpus",
    "DatasetError",
    "SplitAbsentError",
    "KhoujaCsv",
    "StanceDataset",
    "WarehouseGold",
    "load_split",
    "open_dataset",
]
