"""Arabic text normalisation and tokenisation for matching.

The normalised form is only ever used to compare texts (hashing, TF-IDF, BM25, shingles); the
display text is kept as published. Normalisation folds the variation that carries no meaning
for retrieval: diacritics (tashkeel), tatweel, alef variants (أ إ آ ٱ -> ا), alef maqsura
(ى -> ي), taa marbuta (ة -> ه), hamza carriers (ؤ -> و, ئ -> ي), Arabic-Indic and Persian digits
(٠-٩, ۰-۹ -> 0-9), Arabic punctuation and number signs (، ؛ ؟ ٪ ٫ ٬ -> , ; ? % . ,), Latin case,
and invisible format marks (bidi marks such as the RLM of ``&rlm;``, zero-width joiners and
spaces, the byte-order mark): web pages scatter them through Arabic text, where they change
neither its reading nor, after this, its matching form.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Tashkeel and Quranic marks, then the invisible format marks: the Arabic letter mark, soft
# hyphen, zero-width non-joiner / joiner, LRM / RLM, bidi embeddings and isolates, word joiner,
# byte-order mark. The zero-width space is not among them: it separates words, so it becomes a space.
_MARKS = re.compile(
    "[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u061c\u00ad\u200c-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_ZERO_WIDTH_SPACE = "\u200b"
_TATWEEL = "\u0640"
#: One character for one character (so a match on folded text has the same span in the original).
CHARACTER_FOLDS: tuple[tuple[str, str], ...] = (
    ("أ", "ا"), ("إ", "ا"), ("آ", "ا"), ("ٱ", "ا"),
    ("ى", "ي"), ("ة", "ه"), ("ؤ", "و"), ("ئ", "ي"),
    ("،", ","), ("؛", ";"), ("؟", "?"), ("٪", "%"), ("٫", "."), ("٬", ","),
    *((chr(0x0660 + i), str(i)) for i in range(10)),
    *((chr(0x06F0 + i), str(i)) for i in range(10)),
)
# A token is a run of letters/digits (Arabic or Latin); punctuation separates tokens.
_TOKEN = re.compile(r"[0-9A-Za-z\u0621-\u064a\u066e-\u06d3\u06fa-\u06ff]+")


def strip_diacritics(text: str) -> str:
    """Remove tashkeel, tatweel and invisible format marks, keeping every letter; a zero-width
    space, which separates words, becomes a space."""
    text = _MARKS.sub("", text).replace(_TATWEEL, "")
    return text.replace(_ZERO_WIDTH_SPACE, " ") if _ZERO_WIDTH_SPACE in text else text


def to_western_digits(text: str) -> str:
    """Turn Arabic-Indic (٠-٩) and Persian (۰-۹) digits into 0-9; nothing else changes."""
    return text.translate({**{0x0660 + i: str(i) for i in range(10)}, **{0x06F0 + i: str(i) for i in range(10)}})


def normalize(text: str | None) -> str:
    """The matching form of ``text``: folded letters, western digits, one space between words."""
    if not text:
        return ""
    text = strip_diacritics(unicodedata.normalize("NFKC", text))
    # One str.replace per fold that occurs: each is a C scan (~5 ns/char), where str.translate
    # with a dict looks every character up (~130 ns/char); normalize runs over whole articles.
    for old, new in CHARACTER_FOLDS:
        if old in text:
            text = text.replace(old, new)
    return " ".join(text.lower().split())


def tokenize(text: str | None) -> list[str]:
    """Normalised word tokens; punctuation (Arabic or Latin) and symbols are dropped."""
    return _TOKEN.findall(normalize(text))


# Joins texts for tokenize_many: not white space, so normalize keeps it; not a token character.
_TEXT_BREAK = "\x00"


def tokenize_many(texts: Sequence[str]) -> list[list[str]]:
    """:func:`tokenize` of each text, normalised in one call: on an article's many short
    sentences the per-call cost of normalising dominates. Same tokens as one call per text."""
    if not texts:
        return []
    if any(_TEXT_BREAK in t for t in texts):
        return [tokenize(t) for t in texts]
    return [_TOKEN.findall(part) for part in normalize(f" {_TEXT_BREAK} ".join(texts)).split(_TEXT_BREAK)]


def arabic_ratio(text: str | None) -> float:
    """Share of letters that are Arabic, to tell an Arabic page from a foreign one."""
    if not text:
        return 0.0
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if "\u0600" <= c <= "\u06ff" or "\u0750" <= c <= "\u077f") / len(letters)
