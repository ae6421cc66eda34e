"""Prefect flows ``cross_dataset_experiment`` and ``imbalance_experiment``: load the corpora,
run the experiment (:mod:`tasks.stance.experiments`), store its table in the warehouse, write the
Markdown table and a heat map beside each other, and publish both as Prefect artifacts.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Literal

from prefect import flow, task
from prefect.artifacts import create_image_artifact, create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from arastance.base.input_paths import require_directory_place
from arastance.config import Settings, load_settings
from arastance.config.model import ModelKind
from flows.evaluate import load_split_task
from flows.runners import warehouse_busy
from tasks.stance.experiments.cross_dataset import Corpus, cross_dataset, locate_corpora
from tasks.stance.experiments.imbalance import check_strategies, imbalance
from tasks.stance.experiments.results import (
    ExperimentResult,
    Grid,
    comparison_table,
    macro_f1_grid,
    matrix_table,
    per_class_grid,
    result_rows,
    write_result_files,
)
from tasks.stance.experiments.training import ModelFactory, model_factory
from tasks.stance.labels import Scheme
from tasks.stance.provenance import code_version
from tasks.stance.runs import corpus_scheme, dataset_path
from warehouse import flow_warehouse, open_warehouse
from warehouse.experiments import store_experiment


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def store_task(warehouse_path: Path, result: ExperimentResult) -> int:
    """Store the run and its table (retried while another writer holds the warehouse)."""
    with open_warehouse(warehouse_path) as wh:
        return store_experiment(wh, experiment_id=result.experiment_id, experiment=result.experiment,
                                config=result.config, code_version=code_version(),
                                started_at=result.started_at, rows=result_rows(result))


def run_config(make_model: ModelFactory, scheme: Scheme, split: str, paths: dict[str, Path]) -> dict[str, Any]:
    """The run's ``config``: its kind, split and corpus locations, and the model as the settings and
    overrides resolved it (its ``describe()``, as a trained model's run records it; a cell's scheme is
    the cell's own), with the encoder it uses under ``encoder`` for SQL (``config->>'encoder'``),
    whether ``--encoder`` or the settings chose it: two runs' configs differ where their models did."""
    model = _without_scheme(make_model(scheme).describe())
    encoder = model.get("encoder") or model.get("transformer", {}).get("encoder")
    return {"kind": make_model.kind, "split": split, **({"encoder": encoder} if encoder else {}), "model": model,
            "paths": {name: str(path) for name, path in paths.items()}}


def _without_scheme(description: dict[str, Any]) -> dict[str, Any]:
    """``description`` without its label scheme, at any depth (the ensemble's members have one each)."""
    return {k: _without_scheme(v) if isinstance(v, dict) else v for k, v in description.items() if k != "scheme"}


def publish(result: ExperimentResult, table: str, grid: Grid, axes: tuple[str, str], out_dir: Path,
            title: str) -> dict[str, Any]:
    """Write ``table.md`` and ``heatmap.png`` under ``out_dir/<experiment id>`` and publish them."""
    files = write_result_files(result, table, grid, axes, out_dir, title)
    key = f"experiment-{result.experiment}"
    create_markdown_artifact(files.markdown, key=key, description=title)
    uri = "data:image/png;base64," + base64.b64encode(files.heatmap.read_bytes()).decode("ascii")
    create_image_artifact(uri, key=f"{key}-heatmap", description=f"{title}: heat map")
    return {"experiment_id": result.experiment_id, "table": table, "directory": str(files.directory),
            "heatmap": str(files.heatmap)}


def experiments_dir(settings: Settings, out_dir: str | None) -> Path:
    """Where the table and heat map go, checked before hours of training: a file given as ``out_dir``
    failed the run only once the experiment was stored."""
    return require_directory_place("out_dir", Path(out_dir) if out_dir else settings.experiments_dir)


def finish(result: ExperimentResult, warehouse_file: Path, out_dir: Path, title: str,
           table: str, grid: Grid, axes: tuple[str, str]) -> dict[str, Any]:
    """Store the run in the warehouse, then write and publish its table and heat map."""
    store_task(warehouse_file, result)
    return publish(result, table, grid, axes, out_dir, title)


@flow(name="cross_dataset_experiment", validate_parameters=True)
def cross_dataset_experiment(
    corpora: list[str] | None = None,
    paths: dict[str, str] | None = None,
    split: str = "dev",
    kind: ModelKind | None = None,
    encoder: str | None = None,
    out_dir: str | None = None,
    warehouse_path: str | None = None,
) -> dict[str, Any]:
    """Train on each corpus's train split and evaluate on every corpus's ``split``.

    Args:
        corpora: names among warehouse, arastance, baly, khouja (default: those whose data is present).
        paths: corpus name -> directory (warehouse file), overriding the configured locations.
        split: the evaluation split of every corpus (dev: the public test splits are withheld).
        kind: cpu, transformer or ensemble (default: model.default); encoder: the transformer's (or the
            ensemble's encoder's) hub id or directory.
        out_dir: where the table and heat map go (default <data_dir>/experiments).
        warehouse_path: the DuckDB warehouse that records the run; default: the configured one.
    """
    settings = load_settings()
    warehouse_file = flow_warehouse(warehouse_path, settings)  # before hours of training, not after
    out = experiments_dir(settings, out_dir)
    loaded = []
    located = locate_corpora(settings, corpora, paths or {})
    for name, source in located.items():
        native = corpus_scheme(name, source)
        loaded.append(Corpus(name, native, load_split_task(name, source, "train", native),
                             load_split_task(name, source, split, native)))
    make_model = model_factory(settings, kind, **({"encoder": encoder} if encoder else {}))
    result = cross_dataset(loaded, make_model, config=run_config(make_model, loaded[0].native_scheme, split, located))
    return finish(result, warehouse_file, out, f"Cross-dataset transfer: macro-F1 on {split} splits",
                  matrix_table(result), macro_f1_grid(result), ("evaluated on", "trained on"))


@flow(name="imbalance_experiment", validate_parameters=True)
def imbalance_experiment(
    dataset: str = "warehouse",
    path: str | None = None,
    scheme: Literal["4way", "3way"] | None = None,
    strategies: list[str] | None = None,
    split: str = "dev",
    kind: ModelKind | None = None,
    encoder: str | None = None,
    out_dir: str | None = None,
    warehouse_path: str | None = None,
) -> dict[str, Any]:
    """Compare the ways of handling class imbalance on one corpus (train on train, score on ``split``).

    Args:
        dataset, path: the corpus (warehouse, arastance, baly, khouja) and its location.
        scheme: 4way or 3way labels (default: the corpus's own; a 3-way corpus cannot be read 4-way).
        strategies: some of none, class_weighted, upsampled, downsampled, two_step (default: all that
            the model kind runs; a transformer has no two_step).
        split, kind, encoder, out_dir, warehouse_path: as for ``cross_dataset_experiment``.
    """
    settings = load_settings()
    warehouse_file = flow_warehouse(warehouse_path, settings)
    out = experiments_dir(settings, out_dir)
    chosen_kind = kind or settings.model.default
    chosen = check_strategies(strategies, chosen_kind)
    source = dataset_path(settings, dataset, Path(path) if path else None)
    used = corpus_scheme(dataset, source, scheme)
    train = load_split_task(dataset, source, "train", used)
    evaluation = load_split_task(dataset, source, split, used)
    make_model = model_factory(settings, chosen_kind, **({"encoder": encoder} if encoder else {}))
    result = imbalance(dataset, train, evaluation, used, make_model, chosen, seed=settings.model.seed,
                       config=run_config(make_model, used, split, {dataset: source}))
    return finish(result, warehouse_file, out, f"Class imbalance on {dataset} ({used}, {split})",
                  comparison_table(result), per_class_grid(result), ("F1", "strategy"))
