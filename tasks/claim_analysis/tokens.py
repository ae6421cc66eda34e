"""Word tokens with their character offsets, and the readings of a word's proclitics.

The rule-based analyzer needs offsets (to cut the claim's own text, not a re-joined copy) and
the normalised form of each word (to match gazetteers whatever the hamza, taa marbuta or
diacritics). Arabic writes و، ف (and), ب، ل، ك (prepositions) and the article ال attached to the
next word, so a word has several readings: "وللحكومة" can be read as و+ل+الحكومة.
Both analyzers trim a cut claim here the same way (:func:`trim_phrase`), so that a verb phrase
never ends in a dangling separator or leaves a quotation or bracket open.
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
# Punctuation that separates (rather than encloses) parts of a text: it may dangle at a cut.
_SEPARATORS = "-–—:،,؛;.؟?!…"
# What may be left dangling at the end of a cut phrase: spaces, separators and a lone و.
_DANGLING_END = re.compile(rf"(?:[\s{re.escape(_SEPARATORS)}]+|\s+و)+$")
# Marks that open a quotation or an aside, and the mark that closes each ('"' closes itself).
_CLOSERS = {"(": ")", "[": "]", "{": "}", "«": "»", "“": "”", '"': '"'}


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


def stem_surface(text: str, prefix: str, stem: str) -> str:
    """The written form of a word, ``text``, without the surface of its proclitics ``prefix``.

    Diacritics are dropped; when ل+ال was written لل ("للرئيس", ``stem`` "الرئيس") the article's
    alef comes back ("الرئيس"). Whatever follows the proclitics, an enclitic included, is kept as
    written ("لحكومتها" -> "حكومتها").
    """
    rest = strip_diacritics(text)[len(prefix):]
    article_lost = prefix.endswith("ل") and stem.startswith("ال") and not rest.startswith("ال")
    return "ا" + rest if article_lost else rest


def is_separator(text: str) -> bool:
    """Whether ``text`` is separating punctuation only (a comma, a colon, a dash, a full stop ...)."""
    return bool(text) and all(c in _SEPARATORS for c in text)


def _unpaired_marks(text: str) -> list[int]:
    """Offsets of the quotation marks and brackets in ``text`` that are not matched by their pair."""
    openers: list[int] = []
    unpaired: list[int] = []
    closers = set(_CLOSERS.values())
    for k, c in enumerate(text):
        if openers and c == _CLOSERS[text[openers[-1]]]:
            openers.pop()
        elif c in _CLOSERS:
            openers.append(k)
        elif c in closers:
            unpaired.append(k)
    return sorted(unpaired + openers)


def trim_phrase(phrase: str) -> str:
    """A cut phrase without what the cut left dangling.

    A cut can fall inside a quotation or brackets (the claim's comma inside "...، ..."): the
    mark left open is removed, so no query carries an unbalanced quote; a closing mark whose
    opener is in the phrase is kept ("(فيديو)"). Then separators, sentence ends and a lone و at
    the end go.
    """
    for k in reversed(_unpaired_marks(phrase)):
        before, after = phrase[:k], phrase[k + 1 :]
        if before[-1:].isspace() and after[:1].isspace():
            after = after[1:]
        joiner = " " if before[-1:].isalnum() and after[:1].isalnum() else ""  # f(x -> f x
        phrase = before + joiner + after
    return _DANGLING_END.sub("", phrase.strip())
