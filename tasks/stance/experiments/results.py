"""What an experiment produces: a grid of evaluations, its Markdown tables and its heat map."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from tasks.stance.metrics import Evaluation, interval_text, results_table


@dataclass(frozen=True)
class Cell:
    """One model (``row``: its training corpus or strategy) scored on one evaluation set (``column``)."""

    row: str
    column: str
    scheme: str
    evaluation: Evaluation
    train_pairs: int
    train_seconds: float


@dataclass
class ExperimentResult:
    """All cells of one experiment run, with what defines it."""

    experiment: str
    config: dict[str, Any]
    cells: list[Cell] = field(default_factory=list)
    experiment_id: str = ""
    started_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc).replace(tzinfo=None))

    def __post_init__(self) -> None:
        if not self.experiment_id:
            stamp = self.started_at.strftime("%Y%m%dT%H%M%S")
            self.experiment_id = f"{stamp}-{self.experiment}-{uuid.uuid4().hex[:6]}"

    def rows(self) -> list[str]:
        return list(dict.fromkeys(c.row for c in self.cells))

    def columns(self) -> list[str]:
        return list(dict.fromkeys(c.column for c in self.cells))

    def cell(self, row: str, column: str) -> Cell | None:
        return next((c for c in self.cells if c.row == row and c.column == column), None)


def matrix_table(result: ExperimentResult) -> str:
    """Markdown matrix: rows are the training sets, columns the evaluation sets, each cell
    ``macro-F1 / accuracy`` with the label scheme it was scored in (4 = 4-way, 3 = 3-way)."""
    columns = result.columns()
    lines = ["| trained on \\ evaluated on | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for row in result.rows():
        cells = []
        for column in columns:
            c = result.cell(row, column)
            cells.append("–" if c is None else
                         f"{c.evaluation.macro_f1:.3f}{interval_text(c.evaluation, ' ', 3)} / "
                         f"{c.evaluation.accuracy:.3f} ({c.scheme[0]})")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + ("\n\nCells: macro-F1 [its 95 % claim-bootstrap interval] / accuracy "
                               "(label scheme: 4 = 4-way, 3 = 3-way).\n")


def comparison_table(result: ExperimentResult) -> str:
    """Markdown table with one row per training set or strategy: per-class F1, accuracy, macro-F1."""
    return results_table({c.row: {c.column: c.evaluation} for c in result.cells})


Grid = tuple[list[str], list[str], np.ndarray]


def macro_f1_grid(result: ExperimentResult) -> Grid:
    """Rows by columns of macro-F1 (NaN where a cell is absent), as in :func:`matrix_table`."""
    rows, columns = result.rows(), result.columns()
    values = np.full((len(rows), len(columns)), np.nan)
    for c in result.cells:
        values[rows.index(c.row), columns.index(c.column)] = c.evaluation.macro_f1
    return rows, columns, values


def per_class_grid(result: ExperimentResult) -> Grid:
    """Rows by (per-class F1 ..., macro-F1), for experiments with one evaluation set per row."""
    rows = result.rows()
    labels = list(dict.fromkeys(label for c in result.cells for label in c.evaluation.labels))
    values = np.full((len(rows), len(labels) + 1), np.nan)
    for c in result.cells:
        i = rows.index(c.row)
        for label, f1 in c.evaluation.f1.items():
            values[i, labels.index(label)] = f1
        values[i, -1] = c.evaluation.macro_f1
    return rows, [*labels, "macro-F1"], values


def plot_heatmap(grid: Grid, path: Path, title: str, xlabel: str, ylabel: str) -> Path:
    """A PNG heat map of F1 values on a 0-1 scale, each cell printed (blank where NaN)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, columns, values = grid
    fig, ax = plt.subplots(figsize=(2.2 + 1.3 * len(columns), 1.4 + 0.6 * len(rows)), dpi=100)
    image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    for (i, j), value in np.ndenumerate(values):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value < 0.6 else "black")
    fig.colorbar(image, ax=ax, label="F1")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


@dataclass(frozen=True)
class ResultFiles:
    """What :func:`write_result_files` wrote: the experiment's directory, its Markdown and heat map."""

    directory: Path
    markdown: str
    heatmap: Path


def write_result_files(result: ExperimentResult, table: str, grid: Grid, axes: tuple[str, str], out_dir: Path,
                       title: str) -> ResultFiles:
    """``table.md`` and ``heatmap.png`` side by side under ``out_dir/<experiment id>``, so that a run's
    figures stay together and a later run never overwrites them."""
    directory = out_dir / result.experiment_id
    directory.mkdir(parents=True, exist_ok=True)
    markdown = f"# {title}\n\nExperiment `{result.experiment_id}`\n\n{table}"
    (directory / "table.md").write_text(markdown, encoding="utf-8")
    return ResultFiles(directory, markdown, plot_heatmap(grid, directory / "heatmap.png", title, *axes))


def result_rows(result: ExperimentResult) -> list[dict[str, Any]]:
    """Long-form rows of the warehouse's ``experiment_results`` table."""
    rows: list[dict[str, Any]] = []
    for c in result.cells:
        base = {"experiment_id": result.experiment_id, "row_key": c.row, "column_key": c.column, "scheme": c.scheme}
        rows += [{**base, "metric": "train_pairs", "label": "", "value": float(c.train_pairs)},
                 {**base, "metric": "train_seconds", "label": "", "value": round(c.train_seconds, 2)}]
        for metric, value in c.evaluation.as_metrics().items():  # macro-F1's interval where it has one
            rows += ([{**base, "metric": metric, "label": label, "value": float(v)} for label, v in value.items()
                      if not math.isnan(v)]  # a class on neither side of the split has no figure, and no row
                     if isinstance(value, dict) else [{**base, "metric": metric, "label": "", "value": value}])
    return rows
