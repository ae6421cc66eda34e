"""Training, evaluating and recording stance models: the plain functions that the train and
evaluate flows run as Prefect tasks and that the CLI calls directly."""

from __future__ import annotations

import hashlib
import shutil
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from arastance.base.writable import require_writable_directory
from arastance.config import Settings
from arastance.logging import get_logger
from tasks.stance.datasets import DatasetError, load_split, open_dataset
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from tasks.stance.metrics import Evaluation, evaluate
from tasks.stance.model import WITH_CPU_MODEL, WITH_ENCODER, StanceModel, require_labels
from tasks.stance.persistence import MANIFEST, ModelFormatError, read_manifest
from tasks.stance.provenance import code_version, data_fingerprint
from tasks.stance.trained_pairs import save_trained_pairs
from warehouse import open_warehouse
from warehouse.model_runs import ModelRun, finish_run, latest_model_dir, run_exists, start_run, store_evaluation

log = get_logger(__name__)

# Where each public corpus lives under ``model.datasets_dir`` (the layout of ../shared/datasets).
DEFAULT_SUBDIRS: dict[str, str] = {"baly": "unifiedfc", "khouja": "ans/stance", "arastance": "arastance"}


def dataset_path(settings: Settings, dataset: str, path: Path | None = None) -> Path:
    """The configured location of ``dataset`` unless ``path`` is given."""
    if path is not None:
        return Path(path)
    if dataset == "warehouse":
        return settings.warehouse
    if dataset == "arastance":
        return settings.arastance_download_dir
    if dataset not in DEFAULT_SUBDIRS:
        raise DatasetError(f"unknown dataset {dataset!r}; expected warehouse, arastance, baly or khouja")
    return settings.model.datasets_dir / DEFAULT_SUBDIRS[dataset]




def corpus_scheme(dataset: str, path: Path, scheme: Scheme | None = None) -> Scheme:
    """``scheme`` if given, else the corpus's own (a 3-way corpus has no 4-way labels to read)."""
    return scheme or open_dataset(dataset, path).native_scheme


def model_options(kind: str, *, variant: str | None = None, two_stage: bool | None = None,
                  evidence: str | None = None, encoder: str | None = None,
                  e5_mode: str | None = None, e5_engine: str | None = None,
                  frozen_layers: int | None = None) -> dict[str, object]:
    """The overrides of a model of ``kind`` (for :func:`tasks.stance.model.create_model`).

    An option of another kind is refused rather than ignored, so that a run never records a
    setting it did not use. The ensemble takes both kinds' options (each goes to its member).
    """
    cpu_options = {"variant": variant, "two_stage": two_stage, "e5_mode": e5_mode, "e5_engine": e5_engine}
    if kind not in WITH_CPU_MODEL and any(v is not None for v in cpu_options.values()):
        raise ValueError(f"variant, two_stage, e5_mode and e5_engine apply to the CPU model (and the ensemble's), "
                         f"not to a {kind} model")
    transformer_options = {"encoder": encoder, "frozen_layers": frozen_layers}
    if kind not in WITH_ENCODER and any(v is not None for v in transformer_options.values()):
        raise ValueError(f"encoder and frozen_layers apply to the transformer model (and the ensemble's), "
                         f"not to a {kind} model")
    return {"evidence": evidence, **(cpu_options if kind in WITH_CPU_MODEL else {}),
            **(transformer_options if kind in WITH_ENCODER else {})}


def default_model_dir(warehouse_path: Path) -> Path:
    """The newest model successfully trained on the warehouse's gold data: what a scheduled
    evaluation re-scores on the current splits when no model is named."""
    with open_warehouse(warehouse_path, read_only=True) as wh:
        newest = latest_model_dir(wh)
    if newest is None:
        raise ValueError(f"no model has been trained on the warehouse {warehouse_path} yet; pass model_dir")
    return Path(newest)


def new_run_id(model: StanceModel) -> str:
    """Sortable and unique: UTC time, model name and a short random suffix."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{model.name}-{uuid.uuid4().hex[:6]}"


def load_examples(dataset: str, path: Path, split: str, scheme: Scheme | None = None) -> list[StanceExample]:
    """One split of a corpus, logged with its size."""
    examples = load_split(dataset, path, split, scheme)
    log.info("loaded stance examples", extra={"dataset": dataset, "split": split, "pairs": len(examples)})
    return examples


@dataclass(frozen=True)
class TrainedModel:
    """A fitted, saved model and how it came about."""

    run: ModelRun
    directory: Path
    train_seconds: float


def train_and_save(model: StanceModel, train: Sequence[StanceExample], out_dir: Path, dataset: str,
                   dev: Sequence[StanceExample] | None = None, *,
                   gold_stored_through: datetime | None = None) -> TrainedModel:
    """Fit ``model`` on ``train`` (``dev`` for early stopping where the model does it) and save it
    under ``out_dir/<run id>`` with its provenance; ``gold_stored_through`` (the warehouse's gold
    data: when its newest label was written, read before the data) goes into the run's config for
    the retraining trigger."""
    require_labels(train, model.labels)
    require_writable_directory(Path(out_dir))  # refused now, not after minutes of training
    run_id, started_at = new_run_id(model), datetime.now(timezone.utc).replace(tzinfo=None)
    started = time.perf_counter()
    model.fit(train, dev)
    seconds = time.perf_counter() - started
    # described once fitted, so that the warehouse row holds what training chose (the CPU model's tuned
    # C, e5 weight and cascade threshold; a transformer's epochs), not only what was asked for
    run = ModelRun(
        run_id=run_id, model_name=model.name, model_kind=model.kind,
        config={**model.describe(), "dataset": dataset, "train_pairs": len(train), "train_seconds": round(seconds, 1),
                **({"gold_stored_through": gold_stored_through.isoformat()} if gold_stored_through else {})},
        data_fingerprint=data_fingerprint(train), code_version=code_version(), started_at=started_at,
    )
    target = Path(out_dir) / run.run_id
    try:
        # the run's own record too: a model whose record failed is recorded later from its manifest alone
        directory = model.save(target, run_id=run.run_id, dataset=dataset, data_fingerprint=run.data_fingerprint,
                               code_version=run.code_version, train_seconds=round(seconds, 1),
                               run_config=run.config, started_at=started_at.isoformat())
        save_trained_pairs(directory, train)  # for evaluate to tell a split the model has seen
    except BaseException:
        # the run's own new directory: a model cut short (a full disk) is no model, and nothing is recorded for it
        shutil.rmtree(target, ignore_errors=True)
        raise
    log.info("trained stance model", extra={"run_id": run.run_id, "seconds": round(seconds, 1), "dir": str(directory)})
    return TrainedModel(run=run, directory=directory, train_seconds=seconds)


@dataclass(frozen=True)
class SplitResult:
    dataset: str
    split: str
    evaluation: Evaluation
    pairs_per_second: float


def evaluate_split(model: StanceModel, examples: Sequence[StanceExample], dataset: str, split: str) -> SplitResult:
    """Predict a labelled split and score it; also measures inference throughput."""
    gold = require_labels(examples, model.labels)
    started = time.perf_counter()
    predicted = model.predict(examples)
    seconds = max(time.perf_counter() - started, 1e-9)
    evaluation = evaluate(gold, predicted, model.labels, groups=[ex.claim_id for ex in examples])
    result = SplitResult(dataset, split, evaluation, len(examples) / seconds)
    log.info("evaluated stance model", extra={"model": model.name, "dataset": dataset, "split": split,
                                             "macro_f1": round(result.evaluation.macro_f1, 4),
                                             "macro_f1_interval": evaluation.macro_f1_interval,
                                             "accuracy": round(result.evaluation.accuracy, 4)})
    return result


def record_run(warehouse_path: Path, run: ModelRun, results: Sequence[SplitResult], *,
               artifact_path: Path | None, succeeded: bool = True) -> None:
    """Store a run and its metrics in the warehouse, creating the run row when it is new.

    One transaction: a process killed half-way leaves no run without its metrics or its end.
    """
    with open_warehouse(warehouse_path) as wh, wh.transaction():
        if not run_exists(wh, run.run_id):
            start_run(wh, run)
        for r in results:
            store_evaluation(wh, run.run_id, r.dataset, r.split, r.evaluation.as_metrics())
        finish_run(wh, run.run_id, succeeded=succeeded, artifact_path=str(artifact_path) if artifact_path else None)


def run_of_saved_model(directory: Path) -> ModelRun:
    """The run a saved model came from, as training recorded it: the manifest holds that record for
    models saved since it does; for older ones it is rebuilt from their settings, corpus and training
    time, started about when the model was saved less its training (a later record found no
    dataset in it, so the newest-model lookups never found such a model)."""
    manifest = read_manifest(directory)
    where = Path(directory) / MANIFEST
    if "run_config" in manifest:
        config, started_at = manifest["run_config"], _manifest_time(manifest, "started_at", where)
        if not isinstance(config, dict):
            raise ModelFormatError(f"{where}: run_config is not an object")
    else:
        settings = manifest.get("config", {})
        if not isinstance(settings, dict):
            raise ModelFormatError(f"{where}: config is not an object")
        config = {**settings, **{k: manifest[k] for k in ("dataset", "train_seconds") if k in manifest}}
        saved = _manifest_time(manifest, "saved_at", where)
        started_at = None if saved is None else saved - timedelta(seconds=float(manifest.get("train_seconds") or 0))
    return ModelRun(
        run_id=manifest.get("run_id") or _imported_run_id(Path(directory)),
        model_name=manifest.get("name", Path(directory).name), model_kind=manifest["kind"], config=config,
        data_fingerprint=manifest.get("data_fingerprint", ""), code_version=manifest.get("code_version", ""),
        started_at=started_at,
    )


def _imported_run_id(directory: Path) -> str:
    """The run id of a model saved without one (an ensemble's member): named by its directory, with
    a digest of the full path, since every ensemble's CPU member is a directory named ``cpu``."""
    digest = hashlib.sha1(str(directory.resolve()).encode("utf-8")).hexdigest()[:8]
    return f"imported-{directory.name}-{digest}"


def _manifest_time(manifest: dict[str, Any], field: str, where: Path) -> datetime | None:
    """A time the manifest holds, as the warehouse keeps times (UTC, without a zone); None if absent."""
    value = manifest.get(field)
    if value is None:
        return None
    try:
        time = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ModelFormatError(f"{where}: {field} {value!r} is not an ISO time") from None
    return time.astimezone(timezone.utc).replace(tzinfo=None) if time.tzinfo else time
