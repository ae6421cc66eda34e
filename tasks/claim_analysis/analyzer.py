"""Choosing the analyzer (Stanza or rules, by ``settings.nlp``) and analysing claims with it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from arastance.config import load_settings
from arastance.config.nlp import NlpSettings
from arastance.logging import get_logger
from arastance.progress import track
from tasks.claim_analysis.analysis import AnalyzerName, ClaimAnalysis
from tasks.claim_analysis.rules import RuleAnalyzer
from tasks.claim_analysis.stanza_models import (
    StanzaModelsMissing,
    load_pipeline,
    missing_models,
    models_dir,
    require_models,
)

if TYPE_CHECKING:
    from stanza import Pipeline

log = get_logger(__name__)

# Claims handed to the Stanza pipeline at once: large enough for its batching, small enough
# for a progress bar that moves.
STANZA_BATCH = 64


@cache
def _warn_fallback(model_dir: Path, problem: str) -> None:
    """Say once per process (directory and problem) that the rule-based analyzer stands in for Stanza."""
    log.warning(
        "Stanza Arabic models absent or unloadable; using the rule-based analyzer",
        extra={"stanza_dir": str(model_dir), "problem": problem},
    )


def choose_analyzer(settings: NlpSettings) -> AnalyzerName:
    """``stanza`` or ``rules`` for these settings.

    ``auto`` picks Stanza when its Arabic models are installed and the rules otherwise;
    ``stanza`` without the models is an error naming the directory (no silent fallback). Models
    that are installed but cannot be loaded are found only when loading them (:func:`analyze_many`).
    """
    if settings.analyzer == "rules":
        return "rules"
    model_dir = models_dir(settings)
    if settings.analyzer == "stanza":
        require_models(model_dir)
        return "stanza"
    missing = missing_models(model_dir)
    if missing:
        _warn_fallback(model_dir, "missing: " + ",".join(missing))
        return "rules"
    return "stanza"


def _clean(text: str, index: int) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"claim {index}: cannot analyse an empty claim text ({text!r})")
    return " ".join(text.split())


def _stanza_pipeline(nlp: NlpSettings) -> Pipeline | None:
    """The loaded Stanza pipeline; None under ``auto`` when its models cannot be loaded, so the
    rules stand in (with a warning) as they do for missing models. Under ``stanza`` it is an error."""
    try:
        return load_pipeline(models_dir(nlp), nlp.stanza_use_gpu)
    except StanzaModelsMissing as exc:
        if nlp.analyzer != "auto":
            raise
        _warn_fallback(models_dir(nlp), str(exc))
        return None


def analyze_many(texts: Sequence[str], settings: NlpSettings | None = None) -> list[ClaimAnalysis]:
    """Analyse several claims with one analyzer; Stanza processes them in batches of ``STANZA_BATCH``."""
    nlp = settings or load_settings().nlp
    cleaned = [_clean(t, i) for i, t in enumerate(texts)]
    if not cleaned:
        return []
    pipeline = _stanza_pipeline(nlp) if choose_analyzer(nlp) == "stanza" else None
    if pipeline is None:
        rules = RuleAnalyzer(min_cut_words=nlp.min_cut_words)
        return [rules.analyze(t) for t in cleaned]
    import stanza

    from tasks.claim_analysis.stanza_doc import analysis_from_document

    results: list[ClaimAnalysis] = []
    batches = range(0, len(cleaned), STANZA_BATCH)
    for start in track(batches, "stanza analysis", unit="batches", min_total=2):
        texts = cleaned[start : start + STANZA_BATCH]
        docs = pipeline([stanza.Document([], text=t) for t in texts])
        results.extend(analysis_from_document(t, d) for t, d in zip(texts, docs))
    return results


def analyze(text: str, settings: NlpSettings | None = None) -> ClaimAnalysis:
    """The entities and first-verb-phrase cut of one claim (whitespace collapsed first)."""
    return analyze_many([text], settings)[0]
