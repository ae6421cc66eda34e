"""Word lists we write (``wordlists/*.txt``) and the longest-match gazetteer built from them.

Each list has one entry per line; ``#`` starts a comment. Entries are compared in normalised
form (arastance.base.arabic.normalize: alef/hamza variants, taa marbuta, alef maqsura, diacritics and
case folded), so "الاردن" finds "الأردن" and "السعوديه" finds "السعودية".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from arastance.base.arabic import normalize
from tasks.claim_analysis.analysis import Entity
from tasks.claim_analysis.tokens import Token, proclitic_readings

WORDLISTS_PACKAGE = "tasks.claim_analysis.wordlists"

# Which list gives which entity type (Stanza's labels, so both analyzers speak alike).
ENTITY_LISTS: dict[str, str] = {
    "countries": "LOC",
    "cities": "LOC",
    "organisations": "ORG",
    "persons": "PER",
}


class GazetteerError(ValueError):
    """A word list that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class ListEntry:
    """One line of a word list: as written, and its normalised words."""

    text: str
    words: tuple[str, ...]
    file: str
    line: int


@cache
def load_list(name: str) -> tuple[ListEntry, ...]:
    """The entries of ``wordlists/<name>.txt``; a missing file or an empty entry is an error."""
    resource = resources.files(WORDLISTS_PACKAGE) / f"{name}.txt"
    if not resource.is_file():
        raise GazetteerError(f"no word list {name!r} in tasks/claim_analysis/wordlists/")
    entries: list[ListEntry] = []
    for number, raw in enumerate(resource.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = tuple(normalize(line).split())
        if not words:
            raise GazetteerError(f"{name}.txt line {number}: entry {raw!r} has no letters")
        entries.append(ListEntry(line, words, f"{name}.txt", number))
    if not entries:
        raise GazetteerError(f"{name}.txt has no entries")
    return tuple(entries)


def word_set(name: str) -> frozenset[str]:
    """The single-word entries of a list, normalised (multi-word lines are an error here)."""
    out: set[str] = set()
    for entry in load_list(name):
        if len(entry.words) != 1:
            raise GazetteerError(f"{entry.file} line {entry.line}: expected one word, got {entry.text!r}")
        out.add(entry.words[0])
    return frozenset(out)


@dataclass(frozen=True)
class Match:
    """A gazetteer entry found at a token position: how many tokens it spans and its entry."""

    length: int
    entry: ListEntry
    label: str

    def entity(self) -> Entity:
        return Entity(text=self.entry.text, label=self.label)


class Gazetteer:
    """Multi-word entries indexed by their first word; the longest entry at a position wins.

    The first token may carry proclitics (و، ف، ب، ل، ك, ل+ال): "وبالرياض" matches "الرياض".
    An entry written with the article (الرياض) needs it in the text, so "رياض الأطفال" is no
    city. Later words of an entry must match exactly (normalised).
    """

    def __init__(self, lists: dict[str, str]) -> None:
        self._by_first: dict[str, list[tuple[ListEntry, str]]] = {}
        seen: set[tuple[str, ...]] = set()
        for name, label in lists.items():
            for entry in load_list(name):
                if entry.words in seen:  # the first list (and line) that names an entry wins
                    continue
                seen.add(entry.words)
                self._by_first.setdefault(entry.words[0], []).append((entry, label))
        for candidates in self._by_first.values():
            candidates.sort(key=lambda c: -len(c[0].words))

    def match_at(self, tokens: Sequence[Token], i: int, *, proclitics: bool = True) -> Match | None:
        """The longest entry starting at token ``i`` (its first word bare if not ``proclitics``), or None."""
        best: Match | None = None
        readings = proclitic_readings(tokens[i].norm) if proclitics else (("", tokens[i].norm),)
        for _, stem in readings:
            for entry, label in self._by_first.get(stem, []):
                n = len(entry.words)
                if i + n > len(tokens) or (best is not None and n <= best.length):
                    continue
                if all(tokens[i + k].norm == entry.words[k] for k in range(1, n)):
                    best = Match(n, entry, label)
                    break
        return best

    def contains(self, norm: str) -> bool:
        """Whether a single normalised word (or a reading of it) starts any entry."""
        return any(stem in self._by_first for _, stem in proclitic_readings(norm))


@cache
def default_gazetteer() -> Gazetteer:
    """The project's gazetteer of countries, cities, organisations and public figures."""
    return Gazetteer(ENTITY_LISTS)
