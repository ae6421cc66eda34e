"""The project's own gold pairs, read from the warehouse by the split of their claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from arastance.base.input_paths import not_a_file
from tasks.stance.datasets.common import DatasetError, check_scheme, check_split, parse_label, require_text
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse, warehouse_exists
from warehouse.model_runs import gold_examples, gold_pair_count

T = TypeVar("T")


class WarehouseGold:
    """Gold-labelled pairs of the warehouse (view ``v_stance_examples``), 4-way like AraStance."""

    name = "warehouse"
    native_scheme: Scheme = "4way"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        check_split(split, str(self.path))
        check_scheme(self.native_scheme, scheme, str(self.path))
        for row in self._read(gold_examples, split):
            where = f"{self.path}, pair {row['pair_id']}"
            yield StanceExample(
                claim=require_text(row["claim_text"], "claim_text", where),
                article=require_text(row["article_text"], "article_text", where),
                label=parse_label(row["label"], self.native_scheme, scheme, where),
                claim_id=row["claim_id"],
                article_id=row["article_id"],
                article_title=row["article_title"],
                article_url=row["article_url"],
            )

    def pair_count(self, split: str) -> int:
        """How many gold pairs ``split`` holds, without reading them: a warehouse exists as soon as
        any pipeline has run, long before its first pair is labelled."""
        check_split(split, str(self.path))
        return self._read(gold_pair_count, split)

    def _read(self, query: Callable[[Warehouse, str], T], split: str) -> T:
        """``query(warehouse, split)`` on a read-only connection (pipelines may be writing meanwhile)."""
        if not warehouse_exists(self.path):
            raise DatasetError(f"warehouse {self.path} {not_a_file(self.path)}")
        try:
            with open_warehouse(self.path, read_only=True) as wh:
                return query(wh, split)
        except WarehouseBusyError:
            raise  # passing: the flows retry it, and only it
        except WarehouseError as exc:
            raise DatasetError(f"{self.path}: {exc}") from None
