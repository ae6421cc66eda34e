"""``arastance dataset``: build (gold labels, flags, splits, statistics) and export."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from arastance.cli.common import console, fail, print_table, settings
from tasks.dataset.arastance_format import DatasetFileError
from tasks.dataset.export import EmptyExportError, export_dataset
from tasks.dataset.load_export import load_export
from warehouse import WarehouseError, open_warehouse

#: A source id names the claims' source in every table: as a site's name is, letters, digits and ``_.-``.
_SOURCE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: The statistics (``stats``, ``v_source_stats``, the paper's Table 3) name their sum row so.
_RESERVED_SOURCE_IDS = frozenset({"total"})


def _source_id_problem(source: str) -> str | None:
    """Why ``source`` cannot name loaded claims' source, or None: a nameless source printed as a blank
    row of the statistics, and one called ``total`` as a second sum row."""
    if not _SOURCE_ID.fullmatch(source):
        return "is not a source id: letters, digits, '_', '.' or '-', starting with a letter or digit"
    if source.lower() in _RESERVED_SOURCE_IDS:
        return "is reserved: the statistics name their sum row so; choose another source id"
    return None


dataset_app = typer.Typer(help="Assemble the stance dataset and export it in the AraStance format.", no_args_is_help=True)


@dataset_app.command("build")
def build() -> None:
    """Decide gold labels, leave out all-unrelated claims, split new claims, print the tables
    (the build_dataset flow, without its export: ``dataset export`` writes the files)."""
    s = settings()  # a bad setting fails here, before Prefect starts
    from flows.build_dataset import build_dataset  # Prefect loads only when needed

    try:
        result = build_dataset(warehouse_path=str(s.warehouse), export=False)
    except (WarehouseError, ValueError) as exc:  # the flow re-raises its task's own exception
        fail(str(exc))
    console.print(
        f"{result['gold']} gold pair(s); {result['flagged']} claim(s) left out as all-unrelated, "
        f"{result['split_conflicts']} as a near-duplicate of a claim in another split; "
        f"{result['newly_split']} claim(s) newly split, {result['split_claims']} in all"
    )
    stats = result["statistics"]
    print_table(stats["sources"], title="Claims, articles and stances per source")
    print_table(stats["splits"], title="Labels per split")
    print_table(stats["left_out"], title="Claims left out (every document unrelated; a near-duplicate in another split)")


@dataset_app.command("export")
def export(
    out: Path | None = typer.Option(None, help="output directory (default <data_dir>/dataset)"),
) -> None:
    """Write <split>.jsonl (AraStance format) and <split>.parquet for train, dev and test."""
    s = settings()
    target = out or s.dataset_dir
    try:
        with open_warehouse(s.warehouse) as wh:
            summary = export_dataset(wh, target)
    except (WarehouseError, EmptyExportError) as exc:
        fail(str(exc))
    print_table(
        [{"split": k, "claims": summary.claims[k], "pairs": summary.pairs[k]} for k in summary.claims],
        title=f"Dataset exported to {summary.directory}",
    )


@dataset_app.command("load")
def load(
    directory: Path = typer.Argument(..., help="directory with <split>.jsonl (or .parquet) files in the AraStance format"),
    source: str = typer.Option("arastance", help="source id the loaded claims get"),
    veracity: str = typer.Option("false", help="veracity of the loaded claims: false or true"),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl or parquet"),
) -> None:
    """Load an AraStance-format dataset (ours or the public release) as gold pairs with their splits."""
    if veracity not in ("false", "true") or fmt not in ("jsonl", "parquet"):
        fail(f"--veracity must be false or true and --format jsonl or parquet (got {veracity!r}, {fmt!r})")
    problem = _source_id_problem(source)
    if problem:
        fail(f"--source {source!r} {problem}")
    s = settings()
    try:
        with open_warehouse(s.warehouse) as wh:
            loaded = load_export(wh, directory, source_id=source, veracity=veracity, fmt=fmt)  # type: ignore[arg-type]
    except (WarehouseError, DatasetFileError, ValueError) as exc:
        fail(str(exc))
    print_table([vars(loaded)], title=f"New rows loaded from {directory}")


def register(app: typer.Typer) -> None:
    app.add_typer(dataset_app, name="dataset")
