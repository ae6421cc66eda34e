"""Refutation and negation cues, in normalised form, and where they occur in a text.

A debunking article says the claim is false in a few stock phrases (لا صحة، شائعة، مفبرك ...);
an altered claim often differs from its source by a negation. Both are counted near the sentences
that match the claim, because a cue elsewhere in a long page usually refers to something else.
"""

from __future__ import annotations

from collections.abc import Sequence

from arastance.base.arabic import tokenize

_REFUTATION = (
    "لا صحة", "غير صحيح", "غير صحيحة", "عار عن الصحة", "عارية عن الصحة", "لا أساس", "لا اساس له",
    "شائعة", "شائعات", "إشاعة", "إشاعات", "مفبرك", "مفبركة", "ملفق", "ملفقة", "كذب", "كذبة", "كاذب",
    "كاذبة", "أكاذيب", "تكذيب", "كذبت", "نفى", "نفت", "ينفي", "تنفي", "نفي", "نفيا", "زائف", "زائفة",
    "مزيف", "مزيفة", "مضلل", "مضللة", "مغلوط", "مغلوطة", "افتراء", "مزاعم", "مزعوم", "يزعم", "تزعم",
    "ادعاءات", "دحض", "تدحض", "غير دقيق", "خبر كاذب", "فبركة", "حقيقة", "تضليل", "تنفيه", "ينفون",
)
_NEGATION = (
    "لا", "لم", "لن", "ليس", "ليست", "ليسوا", "لست", "غير", "عدم", "بدون", "دون", "لا يوجد", "رفض",
    "رفضت", "يرفض", "ترفض", "ينفي", "نفى", "إلغاء", "ألغى", "توقف", "تراجع",
)


def _compile(phrases: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """Single-word cues as a set of tokens, multi-word cues as padded normalised strings."""
    words, multi = set(), []
    for phrase in phrases:
        tokens = tokenize(phrase)
        if len(tokens) == 1:
            words.add(tokens[0])
        else:
            multi.append(" " + " ".join(tokens) + " ")
    return frozenset(words), tuple(multi)


REFUTATION = _compile(_REFUTATION)
NEGATION = _compile(_NEGATION)
CUE_SETS = {"refute": REFUTATION, "negate": NEGATION}


def count_cues(tokens: Sequence[str], cues: tuple[frozenset[str], tuple[str, ...]]) -> int:
    """How many cue occurrences a tokenised (normalised) text contains."""
    words, multi = cues
    count = sum(1 for t in tokens if t in words)
    if multi:
        padded = " " + " ".join(tokens) + " "
        count += sum(padded.count(m) for m in multi)
    return count

