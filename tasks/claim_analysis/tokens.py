"""Word tokens with their character offsets, and the readings of a word's proclitics.

The rule-based analyzer needs offsets (to cut the claim's own text, not a re-joined copy) and
the normalised form of each word (to match gazetteers whatever the hamza, taa marbuta or
diacritics). Arabic writes و، ف (and), ب، ل، ك (prepositions) and the article ال attached to the
next word, so a word has several readings: "وللحكومة" can be read as و+ل+الحكومة.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from arastance.base.arabic import normalize, strip_diacritics

# Letters, digits (any script), diacritics and tatweel form words; everything else separates.
_WORD = re.compile(r"[\w\u0610-\u061a\u064b-\u065f\u0670\u0640\u06d6-\u06ed]+")
_CONJUNCTIONS = ("", "و", "ف")
_PREPOSITIONS = ("", "ب", "ل", "ك")
# A proclitic is only split off when at least this many letters remain (و+زير is not a reading).
_MIN_STEM = 2


@dataclass(frozen=True)
class Token:
    """A word of the claim: its text as written, its offsets and its normalised form."""

    text: str
    start: int
    end: int
    norm: str


def word_tokens(text: str) -> list[Token]:
    """The words of ``text`` in order, punctuation left out (found again from the offsets)."""
    return [Token(m.group(), m.start(), m.end(), normalize(m.group())) for m in _WORD.finditer(text)]


@lru_cache(maxsize=65536)
def proclitic_readings(norm: str) -> tuple[tuple[str, str], ...]:
    """Every (proclitics, stem) split of a normalised word, the unsplit word first.

    ``ل`` before a word that starts with ``ل`` stands for ل+ال ("للحكومه" -> "الحكومه"), the
    article having lost its alef in writing. Cached: the same words come back in every claim.
    """
    readings: list[tuple[str, str]] = [("", norm)]
    for conj in _CONJUNCTIONS:
        for prep in _PREPOSITIONS:
            prefix = conj + prep
            if not prefix or not norm.startswith(prefix):
                continue
            stem = norm[len(prefix):]
            if len(stem) < _MIN_STEM:
                continue
            readings.append((prefix, stem))
            if prep == "ل" and stem.startswith("ل") and len(stem) > _MIN_STEM:
                readings.append((prefix, "ا" + stem))
    return tuple(readings)


def stem_surface(token: Token, prefix: str, stem: str) -> str:
    """The written form of ``token`` without the proclitics ``prefix`` of one of its readings.

    Diacritics are dropped; a ل+ال reading gets its article's alef back ("للرئيس" -> "الرئيس").
    """
    rest = strip_diacritics(token.text)[len(prefix):]
    return "ا" + rest if len(stem) == len(rest) + 1 else rest
