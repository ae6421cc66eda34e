"""Fine-tuning mechanics: where to run, the loss, the dev metric, and the Hugging Face Trainer set-up.

The method's recipe (AraStance, after Devlin et al.): up to 25 epochs at learning rate 2e-5 and
batch 16, keeping the epoch with the best dev macro-F1 and stopping after 5 epochs without
improvement. Macro-F1, not accuracy or loss, decides, because the classes are very unbalanced
(disagree and discuss are rare) and a model predicting the majority class scores well on both.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (
    DataCollatorWithPadding,
    EarlyStoppingCallback,
    EvalPrediction,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    PrinterCallback,
    ProgressCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

from arastance.logging import get_logger
from arastance.progress import track
from tasks.stance.metrics import evaluate
from tasks.stance.transformer_data import PairDataset

log = get_logger(__name__)

Device = Literal["auto", "cpu", "cuda"]
Precision = Literal["auto", "bf16", "fp16", "fp32"]
METRIC = "macro_f1"


@dataclass(frozen=True, slots=True)
class Runtime:
    """The device and numeric precision a run actually uses."""

    device: Literal["cpu", "cuda"]
    precision: Literal["bf16", "fp16", "fp32"]


def choose_runtime(
    device: Device = "auto",
    precision: Precision = "auto",
    *,
    cuda_available: bool | None = None,
    bf16_supported: bool | None = None,
) -> Runtime:
    """Resolve 'auto' choices against the hardware; an impossible request is a clear error.

    On a GPU 'auto' means bf16 where the card supports it (Ampere and newer: no loss scaling
    needed), else fp16; on the CPU mixed precision brings nothing for BERT, so it is fp32 (bf16
    autocast took 1.4 times as long per e5-small training step on the 2-core AVX-512-bf16 machine).
    The hardware flags are parameters so the GPU path can be tested on a machine without one.
    """
    cuda = torch.cuda.is_available() if cuda_available is None else cuda_available
    if device == "cuda" and not cuda:
        raise ValueError(f"device 'cuda' was requested but torch {torch.__version__} sees no CUDA GPU; "
                         "use device 'auto' or 'cpu', or install a CUDA build of torch")
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if precision not in ("auto", "bf16", "fp16", "fp32"):
        raise ValueError(f"precision must be 'auto', 'bf16', 'fp16' or 'fp32', not {precision!r}")
    if device == "cpu" or not cuda:
        if precision in ("bf16", "fp16"):
            raise ValueError(f"precision {precision!r} needs a CUDA GPU; on the CPU use 'fp32' or 'auto'")
        return Runtime("cpu", "fp32")
    # Native support only: emulated bf16 on older cards is slower than fp16.
    bf16 = torch.cuda.is_bf16_supported(including_emulation=False) if bf16_supported is None else bf16_supported
    if precision == "bf16" and not bf16:
        raise ValueError("this GPU does not support bf16; use precision 'fp16' or 'auto'")
    if precision == "auto":
        return Runtime("cuda", "bf16" if bf16 else "fp16")
    return Runtime("cuda", precision)


def balanced_class_weights(label_ids: Sequence[int], n_classes: int) -> torch.Tensor:
    """scikit-learn's 'balanced' weights, n / (classes present * count); 1 for absent classes."""
    counts = np.bincount(np.asarray(label_ids, dtype=int), minlength=n_classes)
    present = int((counts > 0).sum())
    weights = np.where(counts > 0, len(label_ids) / (present * np.maximum(counts, 1)), 1.0)
    return torch.tensor(weights, dtype=torch.float32)


class WeightedCrossEntropy:
    """A Trainer ``compute_loss_func``: cross-entropy with a weight per class.

    With gradient accumulation the Trainer passes the number of labelled items in the whole
    accumulated batch; the weighted sum is divided by it, so the loss does not depend on how
    the batch was split (balanced weights average to one over the training set).
    """

    def __init__(self, weights: torch.Tensor) -> None:
        self.weights = weights

    def __call__(self, outputs: Any, labels: torch.Tensor, num_items_in_batch: torch.Tensor | int | None = None) -> torch.Tensor:
        logits = outputs["logits"].float()
        weights = self.weights.to(logits.device)
        losses = F.cross_entropy(logits, labels, weight=weights, reduction="none")
        if num_items_in_batch is None:
            return losses.sum() / weights[labels].sum()
        return losses.sum() / num_items_in_batch


class DevMetrics:
    """The Trainer's ``compute_metrics``: macro-F1 (the early-stopping metric) and accuracy.

    Scored by :func:`tasks.stance.metrics.evaluate`, so early stopping optimises exactly the
    macro-F1 that evaluation reports (over the labels present in gold or predictions).
    """

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = tuple(labels)

    def __call__(self, prediction: EvalPrediction) -> dict[str, float]:
        logits = prediction.predictions[0] if isinstance(prediction.predictions, tuple) else prediction.predictions
        predicted = [self.labels[i] for i in np.asarray(logits).argmax(axis=-1)]
        gold = [self.labels[i] for i in np.asarray(prediction.label_ids)]
        scores = evaluate(gold, predicted, self.labels)
        return {METRIC: scores.macro_f1, "accuracy": scores.accuracy}


class EpochLog(TrainerCallback):
    """Each dev evaluation as a structured log record, so runs inside Prefect show the learning curve."""

    def on_evaluate(self, args: TrainingArguments, state: Any, control: Any, metrics: dict[str, float] | None = None,
                    **kwargs: Any) -> None:
        metrics = metrics or {}
        log.info("dev evaluation", extra={"epoch": round(state.epoch or 0), f"dev_{METRIC}": metrics.get(f"eval_{METRIC}"),
                                          "dev_accuracy": metrics.get("eval_accuracy")})


class LoggedProgress(ProgressCallback):
    """The Trainer's progress bars (stderr), with its loss records sent to the log instead of stdout.

    The stock callbacks print each record (``{'loss': ...}``) to stdout, which belongs to the CLI's
    tables and JSON; a piped ``arastance train`` would otherwise mix the two. Dev evaluations are
    logged by :class:`EpochLog`, so only the training records are logged here.
    """

    def on_log(self, args: TrainingArguments, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        record = {key: value for key, value in (logs or {}).items() if key != "total_flos"}
        if state.is_world_process_zero and record and not any(key.startswith("eval_") for key in record):
            log.info("training progress", extra=record)


@dataclass(frozen=True)
class FineTuneArguments:
    """The knobs of one fine-tuning run; :meth:`training_arguments` maps them onto the Trainer's.

    The learning rate decays linearly from the first step, one rate for every layer. Warm-up over
    10 % of the steps and layer-wise decay (0.9 per layer) were measured on Khouja with e5-small and
    lowered dev macro-F1 (.818 and .824 against .837, same seed), so neither is a knob here. The last
    step's weights are kept: averaging copies from the end of training, or a moving average, gained
    no more than .003 on average over three seeds (.826 with the last step's).
    """

    epochs: int = 25
    batch_size: int = 16
    learning_rate: float = 2e-5
    patience: int = 5
    seed: int = 42
    runtime: Runtime = Runtime("cpu", "fp32")

    def training_arguments(self, output_dir: Path, *, with_dev: bool) -> TrainingArguments:
        """Evaluate and checkpoint every epoch; keep the best dev macro-F1 (only weights, at most two)."""
        per_epoch = "epoch" if with_dev else "no"
        return TrainingArguments(
            output_dir=str(output_dir),
            num_train_epochs=self.epochs,
            per_device_train_batch_size=self.batch_size,
            per_device_eval_batch_size=self.batch_size * 2,
            learning_rate=self.learning_rate,
            eval_strategy=per_epoch,
            save_strategy=per_epoch,
            logging_strategy="epoch",
            load_best_model_at_end=with_dev,
            metric_for_best_model=METRIC,
            greater_is_better=True,
            save_total_limit=1,
            save_only_model=True,
            seed=self.seed,
            data_seed=self.seed,
            bf16=self.runtime.precision == "bf16",
            fp16=self.runtime.precision == "fp16",
            use_cpu=self.runtime.device == "cpu",
            report_to="none",
        )


def freeze_lower_layers(model: PreTrainedModel, frozen_layers: int | None) -> int:
    """Stop training the embeddings and the lowest ``frozen_layers`` encoder layers; the trainable count.

    On a CPU, most of a step is spent on the lower layers' backward pass and on the optimiser's
    update of the word embeddings (a 250,000-piece vocabulary is most of e5-small's weights). The
    upper layers adapt most in fine-tuning, so freezing the rest trades a little quality for
    several times the speed. ``None`` trains everything, as the paper does.
    """
    if frozen_layers is not None:
        base = model.base_model
        embeddings = getattr(base, "embeddings", None)
        layers = getattr(getattr(base, "encoder", None), "layer", None)
        if embeddings is None or layers is None:
            raise ValueError(f"cannot freeze layers of {type(model).__name__}: it has no embeddings and encoder.layer "
                             "(not a BERT-style encoder); leave frozen_layers unset")
        if frozen_layers > len(layers):
            raise ValueError(f"frozen_layers is {frozen_layers}, but the encoder has only {len(layers)} layers")
        embeddings.requires_grad_(False)
        for layer in layers[:frozen_layers]:
            layer.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


@dataclass(frozen=True)
class TrainingOutcome:
    """What happened in a run; saved in the model's manifest and recorded with the run."""

    epochs_run: int
    best_epoch: int | None  # None without a dev set (the last epoch is kept)
    best_dev_macro_f1: float | None
    dev_macro_f1: tuple[float, ...]  # one value per epoch
    train_pairs: int
    dev_pairs: int
    device: str
    precision: str
    seconds: float


def fine_tune(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    train: PairDataset,
    dev: PairDataset | None,
    arguments: FineTuneArguments,
    *,
    labels: Sequence[str],
    output_dir: Path,
    class_weights: torch.Tensor | None = None,
) -> tuple[PreTrainedModel, TrainingOutcome]:
    """Train ``model`` with the Hugging Face Trainer; returns the best-on-dev model and the outcome.

    Without a dev set every epoch runs and the last one is kept (no early stopping is possible).
    """
    with_dev = dev is not None and len(dev) > 0
    trainer = Trainer(
        model=model,
        args=arguments.training_arguments(output_dir, with_dev=with_dev),
        data_collator=DataCollatorWithPadding(tokenizer),
        train_dataset=train,
        eval_dataset=dev if with_dev else None,
        processing_class=tokenizer,
        compute_loss_func=WeightedCrossEntropy(class_weights) if class_weights is not None else None,
        compute_metrics=DevMetrics(labels),
        callbacks=[EarlyStoppingCallback(early_stopping_patience=arguments.patience), EpochLog()] if with_dev else None,
    )
    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    trainer.add_callback(LoggedProgress())
    started = time.monotonic()
    trainer.train()
    history = tuple(float(entry[f"eval_{METRIC}"]) for entry in trainer.state.log_history if f"eval_{METRIC}" in entry)
    epochs_run = len(history) if with_dev else arguments.epochs
    best_epoch = int(np.argmax(history)) + 1 if history else None  # the Trainer keeps the first best
    outcome = TrainingOutcome(
        epochs_run=epochs_run, best_epoch=best_epoch, best_dev_macro_f1=max(history) if history else None,
        dev_macro_f1=history, train_pairs=len(train), dev_pairs=len(dev) if with_dev else 0,
        device=arguments.runtime.device, precision=arguments.runtime.precision,
        seconds=round(time.monotonic() - started, 2),
    )
    log.info("fine-tuning finished", extra={"epochs": epochs_run, "best_epoch": best_epoch,
                                             "best_dev_macro_f1": outcome.best_dev_macro_f1,
                                             "device": outcome.device, "precision": outcome.precision})
    return trainer.model, outcome


def predict_probabilities(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    pairs: PairDataset,
    *,
    runtime: Runtime,
    batch_size: int,
) -> np.ndarray:
    """Softmax over the classes for every pair, in ``model.config.id2label`` order, one row per pair in order.

    The pairs run shortest first: a batch is padded to its longest pair, and in the pairs' own
    order short and long ones share batches (Khouja's sentence pairs, 31 word pieces on average,
    pad to 45 in random batches of 16).
    """
    n_classes = model.config.num_labels
    if len(pairs) == 0:
        return np.zeros((0, n_classes))
    # shortest first, so that each batch pads little; the rows are put back in the pairs' order below
    order = np.argsort([len(pairs[i]["input_ids"]) for i in range(len(pairs))], kind="stable")
    loader = torch.utils.data.DataLoader(torch.utils.data.Subset(pairs, order.tolist()), batch_size=batch_size,
                                         shuffle=False, collate_fn=DataCollatorWithPadding(tokenizer))
    model.to(runtime.device).eval()
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(runtime.precision)
    chunks = []
    with torch.inference_mode(), torch.autocast(device_type=runtime.device, dtype=amp_dtype,
                                                enabled=amp_dtype is not None):
        for batch in track(loader, "stance prediction", unit="batches", min_total=20):
            batch = {key: value.to(runtime.device) for key, value in batch.items() if key != "labels"}
            chunks.append(torch.softmax(model(**batch).logits.float(), dim=-1).cpu().numpy())
    proba = np.empty((len(pairs), n_classes))
    proba[order] = np.concatenate(chunks)
    return proba
