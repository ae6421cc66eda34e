"""Claim analysis for query building: named entities and the first verb phrase of a claim.

``analyze(text)`` uses Stanza's Arabic pipeline (tokenize, mwt, pos, lemma, depparse, ner) when
its models are installed and the rule-based analyzer otherwise (``settings.nlp.analyzer``);
the result records which one ran, so every query built from it can say so.
"""

from tasks.claim_analysis.analysis import AnalyzerName, ClaimAnalysis, Entity
from tasks.claim_analysis.analyzer import analyze, analyze_many, choose_analyzer
from tasks.claim_analysis.stanza_models import StanzaDownloadError, StanzaModelsMissing

__all__ = [
    "AnalyzerName",
    "ClaimAnalysis",
    "Entity",
    "StanzaDownloadError",
    "StanzaModelsMissing",
    "analyze",
    "analyze_many",
    "choose_analyzer",
]
