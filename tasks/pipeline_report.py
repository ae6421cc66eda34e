"""What each pipeline stage did, as one row per stage for the parent flow's artifact.

Rows added are measured, not reported by the stage: the warehouse's table counts before and
after it. Drops and errors come from the stage's own summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StageOutcome:
    """One stage of one pipeline run."""

    stage: str
    status: str  # 'ok', 'failed' or 'skipped'
    seconds: float
    rows_added: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    def as_row(self) -> dict[str, Any]:
        """Flat strings for a Prefect table artifact and the terminal."""
        return {
            "stage": self.stage,
            "status": self.status,
            "seconds": round(self.seconds, 1),
            "rows added": ", ".join(f"{t} +{n}" for t, n in sorted(self.rows_added.items())) or "-",
            "dropped": ", ".join(f"{r}={n}" for r, n in sorted(self.dropped.items())) or "-",
            "error": self.error or "-",
        }


def rows_added(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """Tables whose row count grew, and by how much (views and new tables included)."""
    return {t: n - before.get(t, 0) for t, n in after.items() if n > before.get(t, 0)}


def _count_reasons(value: Any, into: Counter[str], prefix: str = "") -> None:
    if isinstance(value, Mapping):
        for reason, n in value.items():
            if isinstance(n, (int, float)) and not isinstance(n, bool) and n:
                into[f"{prefix}{reason}"] += int(n)
    elif isinstance(value, str) and value not in ("", "-"):  # "reason=n, reason=n"
        for part in value.split(","):
            reason, _, n = part.strip().partition("=")
            if n.strip().isdigit():
                into[f"{prefix}{reason}"] += int(n)


def dropped_reasons(summary: Any) -> dict[str, int]:
    """Collect ``dropped`` / ``excluded`` / ``flagged`` figures from a stage summary.

    Summaries are a dict (one figure set) or a list of per-item rows (per site, per claim);
    a row whose ``status`` is neither ok nor done counts as dropped for that status.
    """
    reasons: Counter[str] = Counter()
    rows = summary if isinstance(summary, list) else [summary] if isinstance(summary, Mapping) else []
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        _count_reasons(row.get("dropped"), reasons)
        _count_reasons(row.get("excluded"), reasons, "excluded:")
        if isinstance(row.get("flagged"), int) and row["flagged"]:
            reasons["claims all unrelated"] += row["flagged"]
        status = row.get("status")
        if isinstance(status, str) and status not in ("ok", "done", "searched"):
            reasons[status.split(":")[0]] += 1
    return dict(reasons)
