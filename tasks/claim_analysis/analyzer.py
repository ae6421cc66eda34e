"""Choosing the analyzer (Stanza or rules, by ``settings.nlp``) and analysing claims with it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from arastance.config import load_settings
from arastance.config.nlp import NlpSettings
from arastance.logging import get_logger
from arastance.progress import track
from tasks.claim_analysis.analysis import AnalyzerName, ClaimAnalysis
from tasks.claim_analysis.rules import RuleAnalyzer
from tasks.claim_analysis.stanza_models import load_pipeline, missing_models, models_dir, require_models

log = get_logger(__name__)

# Claims handed to the Stanza pipeline at once: large enough for its batching, small enough
# for a progress bar that moves.
STANZA_BATCH = 64


@cache
def _warn_fallback(model_dir: Path, missing: tuple[str, ...]) -> None:
    """Say once per process (and directory) that the rule-based analyzer stands in for Stanza."""
    log.warning(
        "Stanza Arabic models absent; using the rule-based analyzer",
        extra={"stanza_dir": str(model_dir), "missing": ",".join(missing)},
    )


def choose_analyzer(settings: NlpSettings) -> AnalyzerName:
    """``stanza`` or ``rules`` for these settings.

    ``auto`` picks Stanza when its Arabic models are installed and the rules otherwise;
    ``stanza`` without the models is an error naming the directory (no silent fallback).
    """
    if settings.analyzer == "rules":
        return "rules"
    model_dir = models_dir(settings)
    if settings.analyzer == "stanza":
        require_models(model_dir)
        return "stanza"
    missing = missing_models(model_dir)
    if missing:
        _warn_fallback(model_dir, tuple(missing))
        return "rules"
    return "stanza"


def _clean(text: str, index: int) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"claim {index}: cannot analyse an empty claim text ({text!r})")
    return " ".join(text.split())


def analyze_many(texts: Sequence[str], settings: NlpSettings | None = None) -> list[ClaimAnalysis]:
    """Analyse several claims with one analyzer; Stanza processes them in batches of ``STANZA_BATCH``."""
    nlp = settings or load_settings().nlp
    cleaned = [_clean(t, i) for i, t in enumerate(texts)]
    if not cleaned:
        return []
    if choose_analyzer(nlp) == "rules":
        rules = RuleAnalyzer(min_cut_words=nlp.min_cut_words)
        return [rules.analyze(t) for t in cleaned]
    import stanza

    from tasks.claim_analysis.stanza_doc import analysis_from_document

    pipeline = load_pipeline(models_dir(nlp), nlp.stanza_use_gpu)
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
