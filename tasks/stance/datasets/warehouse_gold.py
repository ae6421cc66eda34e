"""The project's own gold pairs, read from the warehouse by the split of their claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TypeVar

from arastance.base.input_paths import not_a_file
from arastance.config import load_settings
from tasks.stance.datasets.common import DatasetError, check_scheme, check_split, parse_label, require_text
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from warehouse.connection import Warehouse, WarehouseBusyError, WarehouseError, open_warehouse, warehouse_exists
from warehouse.model_runs import gold_examples, gold_pair_count, gold_written_through

T = TypeVar("T")


class WarehouseGold:
    """Gold-labelled pairs of the warehouse (view ``v_stance_examples``), 4-way like AraStance.

    Read from the writer's file, never from a ``dataset build`` half done (gold labels decided and
    claims flagged, but the new claims not yet split: training read 741 of the 1,424 train pairs a
    build was about to give, and recorded the run as succeeded): a build writes in one transaction
    and holds the file meanwhile, so a read waits for it, up to ``warehouse_write_wait_s`` (on a
    DuckLake, a read sees the build's commit whole or not at all).
    """

    name = "warehouse"
    native_scheme: Scheme = "4way"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        check_split(split, str(self.path))
        check_scheme(self.native_scheme, scheme, str(self.path))
        for row in self._read(partial(gold_examples, split=split)):
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
        return self._read(partial(gold_pair_count, split=split))

    def written_through(self) -> datetime | None:
        """When the newest gold label was written (None before the first): read before the splits a
        model trains on, it marks the labels that training saw (:mod:`warehouse.retraining`)."""
        return self._read(gold_written_through)

    def _read(self, query: Callable[[Warehouse], T]) -> T:
        """``query(warehouse)`` on a read-only connection to the writer's file, once its writer (a
        build, a load) is done; one that is still writing after ``warehouse_write_wait_s`` fails the
        read in one line."""
        if not warehouse_exists(self.path):
            raise DatasetError(f"warehouse {self.path} {not_a_file(self.path)}")
        try:
            # the wait for the writer is logged once by the warehouse, naming the writer's PID
            with open_warehouse(self.path, read_only=True, wait_s=load_settings().warehouse_write_wait_s) as wh:
                return query(wh)
        except WarehouseBusyError as exc:
            raise DatasetError(f"{exc}; read it again once that writer (a dataset build, a load) ends") from None
        except WarehouseError as exc:
            raise DatasetError(f"{self.path}: {exc}") from None
