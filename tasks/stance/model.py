"""The interface every stance model implements, so the CPU default, a fine-tuned transformer and
their ensemble are trained, evaluated, saved and served by the same flows and commands."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from arastance.config.model import ModelSettings
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from tasks.stance.persistence import ModelFormatError, read_manifest

# kind (as written in the manifest) -> "module:class" implementing StanceModel.load
MODEL_KINDS: dict[str, str] = {
    "cpu": "tasks.stance.cpu_model:CpuStanceModel",
    "transformer": "tasks.stance.transformer:TransformerStanceModel",
    "ensemble": "tasks.stance.ensemble:EnsembleStanceModel",
}
# the kinds holding each member: the CPU model's options apply to the first (and its e5 embedding cache
# to their loading), the encoder's options to the second
WITH_CPU_MODEL: frozenset[str] = frozenset({"cpu", "ensemble"})
WITH_ENCODER: frozenset[str] = frozenset({"transformer", "ensemble"})


@runtime_checkable
class StanceModel(Protocol):
    """fit / predict / predict_proba on claim-article examples; probabilities in ``labels`` order."""

    kind: str
    name: str
    labels: tuple[str, ...]

    def fit(self, examples: Sequence[StanceExample], dev: Sequence[StanceExample] | None = None) -> "StanceModel":
        """Train; ``dev`` is for models that stop early on it (the CPU model does not use it)."""
        ...

    def predict(self, examples: Sequence[StanceExample]) -> list[str]: ...

    def predict_proba(self, examples: Sequence[StanceExample]) -> np.ndarray: ...

    def save(self, directory: Path) -> Path: ...

    def describe(self) -> dict[str, Any]:
        """The configuration to record with a run."""
        ...


def create_model(kind: str, settings: ModelSettings, scheme: Scheme, *, embedding_cache: Path | None = None,
                 **overrides: Any) -> StanceModel:
    """A new, untrained model of ``kind`` configured from the settings (``overrides`` win).

    Each kind's config class builds itself ``from_settings(settings, scheme, **overrides)``.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    if kind == "cpu":
        from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel

        return CpuStanceModel(CpuModelConfig.from_settings(settings, scheme, **given), embedding_cache=embedding_cache)
    if kind == "transformer":
        from tasks.stance.transformer import TransformerConfig, TransformerStanceModel

        return TransformerStanceModel(TransformerConfig.from_settings(settings, scheme, **given))
    if kind == "ensemble":
        from tasks.stance.ensemble import EnsembleConfig, EnsembleStanceModel

        return EnsembleStanceModel(EnsembleConfig.from_settings(settings, scheme, **given),
                                   embedding_cache=embedding_cache)
    raise ValueError(f"unknown model kind {kind!r}; known: {sorted(MODEL_KINDS)}")


def load_model(directory: Path, *, embedding_cache: Path | None = None,
               settings: ModelSettings | None = None) -> StanceModel:
    """Load any saved stance model, dispatching on the ``kind`` in its manifest.

    A fine-tuned encoder runs where ``settings`` say (``transformer_device``, ``transformer_precision``:
    this machine's settings, not those it was trained with), or on what this machine has without them.
    """
    kind = read_manifest(Path(directory)).get("kind")
    if kind not in MODEL_KINDS:
        raise ModelFormatError(f"{directory}: unknown model kind {kind!r}; known: {sorted(MODEL_KINDS)}")
    module_name, class_name = MODEL_KINDS[kind].split(":")
    model_class = getattr(importlib.import_module(module_name), class_name)
    options: dict[str, Any] = {}
    if kind in WITH_CPU_MODEL:
        options["embedding_cache"] = embedding_cache
    if kind in WITH_ENCODER and settings is not None:
        options.update(device=settings.transformer_device, precision=settings.transformer_precision)
    return model_class.load(Path(directory), **options)


def require_labels(examples: Sequence[StanceExample], labels: Sequence[str]) -> list[str]:
    """The gold labels of training or evaluation examples; a missing or foreign label is an error."""
    out = []
    for i, ex in enumerate(examples):
        if ex.label is None:
            raise ValueError(f"example {i} (claim {ex.claim_id}, article {ex.article_id}) has no label")
        if ex.label not in labels:
            raise ValueError(f"example {i} (claim {ex.claim_id}) has label {ex.label!r}, not one of {tuple(labels)}")
        out.append(ex.label)
    return out
