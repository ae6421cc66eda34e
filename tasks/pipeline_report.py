"""What each pipeline stage did, measured on the warehouse, for the parent flow's artifacts.

Nothing here trusts a stage's own account: rows added are the growth of every table's row
count around the stage, drops and errors the growth of the running totals that the warehouse
keeps for the stage (``warehouse/sql/stage_figures.sql``). Two tables come out: one row per
stage with one column per figure (narrow enough for a 1400 px screen), and one row per
figure with its table or reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from warehouse import Warehouse
from warehouse.stats import stage_figures

Figures = Mapping[tuple[str, str, str], int]


@dataclass(frozen=True)
class WarehouseTotals:
    """Row counts and drop/error totals at one moment: a stage's outcome is their growth."""

    rows: dict[str, int]
    figures: dict[tuple[str, str, str], int]

    @classmethod
    def read(cls, wh: Warehouse) -> "WarehouseTotals":
        return cls(wh.table_counts(), stage_figures(wh))


@dataclass
class StageOutcome:
    """One stage of one pipeline run."""

    stage: str
    status: str  # 'ok', 'failed' or 'skipped'
    seconds: float
    rows_added: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    def as_result(self) -> dict[str, Any]:
        """Everything, as plain data: the flow's return value."""
        return asdict(self)

    def as_row(self) -> dict[str, Any]:
        """One column per figure, for the stages table (no nested values, no placeholders)."""
        return {
            "stage": self.stage,
            "status": self.status,
            "seconds": round(self.seconds, 1),
            "rows added": sum(self.rows_added.values()),
            "dropped": sum(self.dropped.values()),
            "errors": sum(self.errors.values()),
            "note": self.error or "",
        }

    def figure_rows(self) -> list[dict[str, Any]]:
        """One row per table that grew, reason for a drop and kind of error."""
        return [{"stage": self.stage, "figure": kind, "what": name, "count": n}
                for kind, figures in (("rows added", self.rows_added), ("dropped", self.dropped),
                                      ("error", self.errors))
                for name, n in sorted(figures.items(), key=lambda item: (-item[1], item[0]))]


def outcome_from_result(result: Mapping[str, Any]) -> StageOutcome:
    """The outcome again from the flow's return value (the CLI prints it)."""
    return StageOutcome(**result)


def stage_rows(results: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The stages table from the flow's return values."""
    return [outcome_from_result(r).as_row() for r in results]


def rows_added(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """Tables whose row count grew, and by how much (views and new tables included)."""
    return {t: n - before.get(t, 0) for t, n in after.items() if n > before.get(t, 0)}


def stage_growth(stage: str, kind: str, before: Figures, after: Figures) -> dict[str, int]:
    """How much each of ``stage``'s running totals of ``kind`` grew: what the stage added to them."""
    return {reason: n - before.get((s, k, reason), 0) for (s, k, reason), n in after.items()
            if s == stage and k == kind and n > before.get((s, k, reason), 0)}


def measured_outcome(stage: str, status: str, seconds: float, before: WarehouseTotals, after: WarehouseTotals,
                     error: str | None = None) -> StageOutcome:
    """What ``stage`` added, dropped and failed on, from the totals before and after it."""
    return StageOutcome(stage, status, seconds, rows_added(before.rows, after.rows),
                        stage_growth(stage, "dropped", before.figures, after.figures),
                        stage_growth(stage, "error", before.figures, after.figures), error)
