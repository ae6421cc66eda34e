"""Prefect flow ``build_dataset``: gold labels, all-unrelated flags, claim splits, statistics.

The flow only orchestrates; each step is a function of :mod:`tasks.annotation.workflow` or
:mod:`tasks.dataset`, and the SQL lives in :mod:`warehouse.annotation` and
:mod:`warehouse.dataset`. Running it twice changes nothing the second time: decisions are
reproducible and splits are append-only.

The three steps that write run in one write session and one transaction (:func:`assemble`), so the
build is stored whole or not at all: readers (the published copy, a DuckLake's snapshots) and
training never see gold labels decided and claims flagged but the new claims not yet split, and a
build that fails or is killed part-way leaves the warehouse as the last finished build left it (it
was: each step was a session of its own, and a killed build's half was published by the next
writer). The session waits while another writer holds the warehouse and retries; any other error
fails at once, with its own message. Other writers wait for the build the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from arastance.base.input_paths import require_directory_place
from arastance.config import load_settings
from arastance.config.annotation import AnnotationSettings
from flows.artifacts import table_artifact
from flows.runners import warehouse_busy
from tasks.annotation.gold import decision_counts
from tasks.annotation.workflow import decide_gold_labels
from tasks.dataset.assemble import FlagResult, SplitResult, assign_claim_splits, dataset_statistics, flag_unrelated_claims
from tasks.dataset.export import ExportSummary, export_dataset
from warehouse import Warehouse, flow_warehouse, open_warehouse


@task(cache_policy=NO_CACHE)
def decide_gold(wh: Warehouse, cfg: AnnotationSettings) -> dict[str, int]:
    """Store the agreed and adjudicated labels; count what is still waiting."""
    return decision_counts(decide_gold_labels(wh, cfg), ("gold", "disputed", "pending"))


@task(cache_policy=NO_CACHE)
def flag_claims(wh: Warehouse) -> FlagResult:
    """Leave out claims whose documents are all unrelated (flag, never delete)."""
    return flag_unrelated_claims(wh)


@task(cache_policy=NO_CACHE)
def split_claims(wh: Warehouse, cfg: AnnotationSettings) -> SplitResult:
    """Give new dataset claims a split; assigned claims keep theirs."""
    return assign_claim_splits(wh, cfg)


class Assembled(NamedTuple):
    """What the writing steps did."""

    gold: dict[str, int]
    flags: FlagResult
    split: SplitResult


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def assemble(warehouse_path: Path, cfg: AnnotationSettings) -> Assembled:
    """Gold labels, flags and splits in one transaction (its steps show as this task's own): all of
    the build is stored, and published for readers when the session closes, or none of it."""
    with open_warehouse(warehouse_path) as wh, wh.transaction():
        return Assembled(decide_gold(wh, cfg), flag_claims(wh), split_claims(wh, cfg))


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def read_statistics(warehouse_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The per-source, per-split and left-out tables."""
    with open_warehouse(warehouse_path) as wh:
        return dataset_statistics(wh)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def write_export(warehouse_path: Path, out_dir: Path) -> ExportSummary:
    """AraStance JSON Lines and Parquet, one file per split."""
    with open_warehouse(warehouse_path) as wh:
        return export_dataset(wh, out_dir)


def _publish(stats: dict[str, list[dict[str, Any]]], gold: dict[str, int], flags: FlagResult, split: SplitResult) -> None:
    table_artifact(stats["sources"], key="dataset-sources", description="Claims, articles and stances per source")
    table_artifact(stats["splits"], key="dataset-splits", description="Labels per split")
    table_artifact(stats["left_out"], key="dataset-left-out",
                   description="Claims left out: every document unrelated, or a near-duplicate in another split")
    create_markdown_artifact(
        "# Dataset build\n\n"
        f"- gold-labelled pairs: {gold['gold']}; disputed (waiting for a third annotator): {gold['disputed']}; "
        f"pending (fewer labels than needed): {gold['pending']}\n"
        f"- claims left out as all-unrelated: {flags.flagged} ({flags.newly_flagged} new, {flags.unflagged} no longer)\n"
        f"- claims newly split: {split.assigned} (of {split.total})\n"
        f"- claims left out because a near-duplicate holds another split (split_conflict): {split.conflicts}\n",
        key="dataset-build-report",
    )


@flow(name="build_dataset", validate_parameters=True)
def build_dataset(
    warehouse_path: str | None = None,
    export: bool = True,
    export_dir: str | None = None,
    split_seed: int | None = None,
) -> dict[str, Any]:
    """Assemble gold labels, splits and statistics, publish the tables, and export the dataset.

    Args:
        warehouse_path: the DuckDB warehouse; default: the configured one.
        export: write the AraStance JSON Lines and Parquet files, one per split.
        export_dir: where to write them (default: <data_dir>/dataset).
        split_seed: seed of the claim-level split for new claims (existing assignments never move).

    Returns the pair counts by decision, the flag and split figures (``split_conflicts``: claims
    left out because a near-duplicate holds another split), ``statistics`` (the tables
    published as artifacts, for a caller such as ``arastance dataset build`` to print) and, with
    ``export``, where the files went.
    """
    settings = load_settings()
    cfg = settings.annotation if split_seed is None else settings.annotation.model_copy(update={"split_seed": split_seed})
    path = flow_warehouse(warehouse_path, settings)
    out = Path(export_dir) if export_dir else settings.dataset_dir
    if export:  # refused now, not after the labels are decided
        require_directory_place("export_dir", out)
    gold, flags, split = assemble(path, cfg)
    stats = read_statistics(path)
    _publish(stats, gold, flags, split)
    result: dict[str, Any] = {**gold, "flagged": flags.flagged, "newly_split": split.assigned, "split_claims": split.total,
                              "split_conflicts": split.conflicts, "statistics": stats}
    if export:
        summary = write_export(path, out)
        result["export_dir"] = str(summary.directory)
        result["exported_pairs"] = sum(summary.pairs.values())
    return result
