"""Prefect flow ``evaluate_stance_model``: score a saved model on dataset splits, store the
metrics with its run in the warehouse, publish the results table and confusion matrices, and draw
the model card again with them.

The flow only orchestrates; the work is in :mod:`tasks.stance.runs` and :mod:`tasks.stance.metrics`.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_image_artifact
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from flows.artifacts import table_artifact
from flows.runners import warehouse_busy
from tasks.stance.datasets import SplitAbsentError
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme, scheme_of
from tasks.stance.metrics import interval_text, plot_confusion
from tasks.stance.model import StanceModel, load_model
from tasks.stance.model_card import update_model_card
from tasks.stance.runs import (
    SplitResult,
    dataset_path,
    default_model_dir,
    evaluate_split,
    load_examples,
    record_run,
    run_of_saved_model,
)
from tasks.stance.trained_pairs import warn_if_trained_on
from warehouse import flow_warehouse
from warehouse.model_runs import ModelRun

log = get_logger(__name__)


@task(cache_policy=NO_CACHE, task_run_name="load-{dataset}-{split}")
def load_split_task(dataset: str, path: Path, split: str, scheme: Scheme | None) -> list[StanceExample]:
    """One split of a corpus (the warehouse's gold waits for the file's writer itself, so nothing is
    retried; a missing or malformed file fails at once, naming itself)."""
    return load_examples(dataset, path, split, scheme)


@task(cache_policy=NO_CACHE, task_run_name="load-{dataset}-{split}-if-present")
def load_optional_split_task(dataset: str, path: Path, split: str, scheme: Scheme | None) -> list[StanceExample] | None:
    """One split that may be absent (a corpus whose test split is withheld): None, with a warning,
    when it is not there, so that the Prefect UI shows no failed task for an expected absence. A split
    that is there but cannot be read fails (a label misspelt in AraStance's test file was a warning,
    and the run ended with no test score and exit 0)."""
    try:
        return load_examples(dataset, path, split, scheme)
    except SplitAbsentError as exc:
        log.warning("split not evaluated: the corpus does not hold it", extra={"dataset": dataset, "split": split,
                                                                              "reason": str(exc)})
        return None


def load_evaluation_splits(dataset: str, path: Path, splits: Sequence[str] | None,
                           scheme: Scheme | None) -> dict[str, list[StanceExample]]:
    """The splits to score, by name: ``splits`` each, or by default dev and, where the corpus has one,
    test. An unrequested test split may be absent (the public corpora withhold theirs): it was an
    error here, after dev had been scored, and the dev score was lost."""
    evaluation = {split: load_split_task(dataset, path, split, scheme) for split in splits or ["dev"]}
    if not splits:
        test = load_optional_split_task(dataset, path, "test", scheme)
        if test is not None:
            evaluation["test"] = test
    return evaluation


def flow_dataset_path(settings: Settings, dataset: str, path: str | None, warehouse_file: Path) -> Path:
    """Where a flow reads ``dataset``: ``path`` if given; the gold splits of the flow's own warehouse
    (``warehouse_file``) for the warehouse, so that a run started for warehouse B (the gold-label event's
    trigger names it) uses B's labels, not the configured warehouse's; else the configured location."""
    if dataset == "warehouse" and not path:
        return warehouse_file
    return dataset_path(settings, dataset, Path(path) if path else None)


@task(cache_policy=NO_CACHE, task_run_name="evaluate-{dataset}-{split}")
def evaluate_task(model: StanceModel, examples: list[StanceExample], dataset: str, split: str) -> SplitResult:
    return evaluate_split(model, examples, dataset, split)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE,
      task_run_name="record-{run.run_id}")
def record_task(warehouse_path: Path, run: ModelRun, results: list[SplitResult], artifact_path: Path | None) -> None:
    """Store the run and its metrics (retried while another writer holds the warehouse)."""
    record_run(warehouse_path, run, results, artifact_path=artifact_path)


def publish_results(model_name: str, run_id: str, results: Sequence[SplitResult], figures_dir: Path) -> list[Path]:
    """Markdown results table and one confusion-matrix image per split, as Prefect artifacts.

    Images are embedded as data URIs so they display without a file server.
    """
    table_artifact(result_rows(results), key="stance-results",
                   description=f"stance model {model_name}, run {run_id}: macro-F1 (with its 95 % interval), accuracy "
                               "and per-class F1")
    images = []
    for r in results:
        png = plot_confusion(r.evaluation, figures_dir / f"confusion-{r.dataset}-{r.split}.png",
                             f"{model_name}: {r.dataset} {r.split}")
        uri = "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")
        create_image_artifact(uri, key=f"stance-confusion-{r.split}",
                              description=f"confusion matrix of {model_name} on {r.dataset} {r.split}")
        images.append(png)
    return images


def result_rows(results: Sequence[SplitResult]) -> list[dict[str, Any]]:
    """One row per scored split, macro-F1 first after the split (the figure readers look for) with
    its 95 % claim-bootstrap interval, then accuracy, per-class F1 and the number of pairs."""
    return [{"dataset": r.dataset, "split": r.split, "macro-F1": round(r.evaluation.macro_f1, 3),
             "macro-F1 95 % interval": interval_text(r.evaluation, digits=3),
             "accuracy": round(r.evaluation.accuracy, 3),
             **{f"F1 {label}": round(r.evaluation.f1[label], 3) for label in r.evaluation.labels},
             "pairs": sum(r.evaluation.support.values())} for r in results]


def summary(results: Sequence[SplitResult]) -> dict[str, Any]:
    return {f"{r.dataset}/{r.split}": {"macro_f1": round(r.evaluation.macro_f1, 4),
                                       "macro_f1_interval": interval_text(r.evaluation, digits=3),
                                       "accuracy": round(r.evaluation.accuracy, 4),
                                       "pairs_per_second": round(r.pairs_per_second, 1)} for r in results}


@flow(name="evaluate_stance_model", validate_parameters=True)
def evaluate_stance_model(
    model_dir: str | None = None,
    dataset: str = "warehouse",
    path: str | None = None,
    splits: list[str] | None = None,
    warehouse_path: str | None = None,
) -> dict[str, Any]:
    """Evaluate a saved model on ``splits`` of ``dataset``, store the metrics with its run and show them
    on its model card (in place of the earlier results of those splits).

    Args:
        model_dir: the saved model's directory; default: the newest model successfully trained
            on the warehouse's gold data (so a weekly schedule re-scores it on the current splits).
        dataset: warehouse, arastance, baly or khouja.
        path: the dataset's directory (not needed for the warehouse).
        splits: which splits to score (default dev, and test where the corpus has it).
        warehouse_path: the DuckDB warehouse (its gold splits are the warehouse dataset); default: the
            configured one.
    """
    settings = load_settings()
    warehouse_file = flow_warehouse(warehouse_path, settings)
    source = flow_dataset_path(settings, dataset, path, warehouse_file)  # a bad dataset is named first
    directory = Path(model_dir) if model_dir else default_model_dir(warehouse_file)
    model = load_model(directory, embedding_cache=settings.embedding_cache, settings=settings.model)
    run = run_of_saved_model(directory)  # a damaged record is refused before the scoring, not after it
    scheme = scheme_of(model.labels)
    evaluation = load_evaluation_splits(dataset, source, splits, scheme)
    for split, examples in evaluation.items():
        warn_if_trained_on(directory, examples, dataset, split)
    results = [evaluate_task(quote(model), quote(examples), dataset, split) for split, examples in evaluation.items()]
    record_task(warehouse_file, run, results, directory)
    publish_results(model.name, run.run_id, results, directory / "figures")
    update_model_card(directory, results)  # its figures were redrawn: the card shows the same results
    return {"run_id": run.run_id, "model": model.name, "results": summary(results)}
