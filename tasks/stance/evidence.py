"""Evidence selection: the article sentences that speak to the claim, instead of its first tokens.

Models read a bounded amount of text (512 word pieces for BERT, a few hundred tokens for the CPU
model's n-grams). News articles put the claim anywhere, often after unrelated boilerplate, so
cutting at the first tokens loses the part that decides the stance. Here each sentence is scored
against the claim with BM25 computed over the article's own sentences (no fitted state, so the
same pair always yields the same evidence), the best ones are kept within a token budget, and
they are returned in article order so the text still reads as a passage.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from arastance.base.arabic import tokenize_many

EvidenceMode = Literal["select", "truncate"]

# Sentence ends within a line: white space after a Latin or Arabic full stop, question or exclamation mark.
_SENTENCE_END = re.compile(r"(?<=[.!?؟۔])\s+")
# Run-on text without punctuation (common in scraped pages) is cut into chunks of this many words.
MAX_SENTENCE_WORDS = 60
_K1, _B = 1.2, 0.75
# Proclitics stripped for matching only, so that اللقاح matches لقاح and والحكومة matches الحكومة.
# The first one that leaves at least two letters is removed, tried in this order. The pattern
# starts with the space before a word (tokens are joined with spaces): the regular-expression
# engine jumps from space to space, where a look-behind was tried at every character (2x slower).
_PROCLITIC = re.compile(r" (?:وال|بال|فال|كال|لل|ال|و)(?=\S\S)")


def whitespace_tokens(text: str) -> int:
    """The default token count: words separated by white space (model-agnostic)."""
    return len(text.split())


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; overlong runs without punctuation become chunks of bounded length.

    Lines are split first with ``str.split``: one regular expression with both the line break and
    the look-behind alternative was twice as slow on long articles, for the same sentences.
    """
    sentences: list[str] = []
    for line in text.split("\n"):
        for part in _SENTENCE_END.split(line):
            words = part.split()
            if len(words) <= MAX_SENTENCE_WORDS:
                if words:
                    sentences.append(" ".join(words))
            else:
                sentences.extend(" ".join(words[start : start + MAX_SENTENCE_WORDS])
                                 for start in range(0, len(words), MAX_SENTENCE_WORDS))
    return sentences


def match_tokens_many(texts: Sequence[str]) -> list[list[str]]:
    """Normalised tokens of each text with the article and conjunction prefixes removed (stems
    stay >= 2 letters), in one normalisation pass and one regular-expression pass over all of them.

    This runs on every sentence of every article at inference: one call per article instead of
    one per sentence. Texts are joined by line breaks, which no token contains.
    """
    joined = " " + " \n ".join(" ".join(tokens) for tokens in tokenize_many(texts))
    return [part.split() for part in _PROCLITIC.sub(" ", joined).split("\n")] if texts else []


def bm25_scores(query_tokens: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """BM25 of the query against each document, with IDF from these documents alone."""
    n = len(documents)
    if n == 0:
        return []
    counts = [Counter(doc) for doc in documents]
    avg_len = sum(len(d) for d in documents) / n or 1.0
    query = sorted(set(query_tokens))  # a fixed order: the float sum below must not vary with str hashing
    df = {t: sum(1 for tf in counts if t in tf) for t in query}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in query if df[t]}
    scores: list[float] = []
    for doc, tf in zip(documents, counts):
        norm = _K1 * (1 - _B + _B * len(doc) / avg_len)
        scores.append(sum(w * c * (_K1 + 1) / (c + norm) for t, w in idf.items() if (c := tf.get(t, 0))))
    return scores


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a model reads of one article for one claim."""

    text: str  # selected sentences in article order, within the budget
    ranked: tuple[str, ...]  # every sentence, most claim-like first
    scores: tuple[float, ...]  # BM25 score of each ranked sentence
    sentences: tuple[str, ...]  # every sentence in article order (title first when given)
    sentence_scores: tuple[float, ...]  # BM25 score of each sentence in article order


def select_evidence(
    claim: str,
    article: str,
    *,
    budget: int = 200,
    mode: EvidenceMode = "select",
    title: str | None = None,
    count_tokens: Callable[[str], int] = whitespace_tokens,
) -> Evidence:
    """Choose the evidence of ``article`` for ``claim`` within ``budget`` tokens.

    ``mode='truncate'`` is the baseline (the first ``budget`` tokens); ``'select'`` keeps the
    highest-scoring sentences that fit, in article order. A title, when given, competes as a
    sentence. Sentences sharing no word with the claim are never selected; when none shares one
    (an unrelated article), the evidence is the article's beginning. ``count_tokens`` lets a
    transformer count its own word pieces.
    """
    sentences = ([title.strip()] if title and title.strip() else []) + split_sentences(article)
    claim_tokens, *sentence_tokens = match_tokens_many([claim, *sentences])
    scores = bm25_scores(claim_tokens, sentence_tokens)
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    orders = (tuple(sentences[i] for i in order), tuple(scores[i] for i in order),
              tuple(sentences), tuple(scores))
    if mode not in ("select", "truncate"):
        raise ValueError(f"evidence mode must be 'select' or 'truncate', not {mode!r}")
    matching = [i for i in order if scores[i] > 0]
    if mode == "truncate" or not matching:
        return Evidence(_first_tokens(" ".join(sentences), budget, count_tokens), *orders)
    kept: list[int] = []
    used = 0
    for i in matching:
        cost = count_tokens(sentences[i])
        if used + cost <= budget:
            kept.append(i)
            used += cost
        elif not kept:  # even the best sentence is over budget: keep its beginning
            return Evidence(_first_tokens(sentences[i], budget, count_tokens), *orders)
        if used >= budget:
            break
    return Evidence(" ".join(sentences[i] for i in sorted(kept)), *orders)


def _first_tokens(text: str, budget: int, count_tokens: Callable[[str], int]) -> str:
    """The longest word prefix of ``text`` that ``count_tokens`` counts within ``budget``."""
    words = text.split()
    if count_tokens is whitespace_tokens:
        return " ".join(words[:budget])
    lo, hi = 0, len(words)
    while lo < hi:  # binary search: token counts grow with the number of words
        mid = (lo + hi + 1) // 2
        if count_tokens(" ".join(words[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo])
