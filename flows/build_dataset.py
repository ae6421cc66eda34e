"""Prefect flow ``build_dataset``: gold labels, all-unrelated flags, claim splits, statistics.

The flow only orchestrates; each step is a function of :mod:`tasks.annotation.workflow` or
:mod:`tasks.dataset`, and the SQL lives in :mod:`warehouse.annotation` and
:mod:`warehouse.dataset`. Steps retry while another writer holds the warehouse; any other error
fails at once, with its own message. Running it twice changes nothing the second time: decisions are reproducible and splits
are append-only.

The steps that write publish nothing, and hold publication from the first to the last
(:func:`warehouse.publish.publication_hold`); the statistics step, which reads what they wrote,
publishes the readers' copy once, after the hold. Each closing writer published a whole copy, so
between steps readers saw gold labels before the all-unrelated claims were left out, and no
splits; so did a writer of another process (a crawl load, ``arastance sql --write``) closing
between two steps, which the hold now keeps from publishing: the statistics step's copy brings
its changes to readers with the build. A build that fails part-way lets go of the hold (a killed
one too: the kernel releases it), and the next writer publishes what is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from arastance.config import load_settings
from arastance.config.annotation import AnnotationSettings
from flows.artifacts import table_artifact
from flows.runners import warehouse_busy
from tasks.annotation.gold import decision_counts
from tasks.annotation.workflow import decide_gold_labels
from tasks.dataset.assemble import FlagResult, SplitResult, assign_claim_splits, dataset_statistics, flag_unrelated_claims
from tasks.dataset.export import ExportSummary, export_dataset
from warehouse import flow_warehouse, open_warehouse
from warehouse.publish import publication_hold


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def decide_gold(warehouse_path: Path, cfg: AnnotationSettings) -> dict[str, int]:
    """Store the agreed and adjudicated labels; count what is still waiting."""
    with open_warehouse(warehouse_path, publish=False) as wh:
        return decision_counts(decide_gold_labels(wh, cfg), ("gold", "disputed", "pending"))


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def flag_claims(warehouse_path: Path) -> FlagResult:
    """Leave out claims whose documents are all unrelated (flag, never delete)."""
    with open_warehouse(warehouse_path, publish=False) as wh:
        return flag_unrelated_claims(wh)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def split_claims(warehouse_path: Path, cfg: AnnotationSettings) -> SplitResult:
    """Give new dataset claims a split; assigned claims keep theirs."""
    with open_warehouse(warehouse_path, publish=False) as wh:
        return assign_claim_splits(wh, cfg)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def read_statistics(warehouse_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The per-source, per-split and left-out tables; closing, it publishes the finished build for readers."""
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
    with publication_hold(path, "build_dataset"):
        gold = decide_gold(path, cfg)
        flags = flag_claims(path)
        split = split_claims(path, cfg)
    stats = read_statistics(path)
    _publish(stats, gold, flags, split)
    result: dict[str, Any] = {**gold, "flagged": flags.flagged, "newly_split": split.assigned, "split_claims": split.total,
                              "split_conflicts": split.conflicts, "statistics": stats}
    if export:
        out = Path(export_dir) if export_dir else settings.dataset_dir
        summary = write_export(path, out)
        result["export_dir"] = str(summary.directory)
        result["exported_pairs"] = sum(summary.pairs.values())
    return result
