"""What claim analysis produces: the claim's named entities and its first-verb-phrase cut."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arastance.base.arabic import normalize

AnalyzerName = Literal["stanza", "rules"]


@dataclass(frozen=True)
class Entity:
    """A named entity as it should appear in a query (proclitics such as و/ب/ل removed).

    ``label`` is Stanza's type (PER, LOC, ORG, MISC); the rule-based analyzer uses the same set.
    """

    text: str
    label: str


@dataclass(frozen=True)
class ClaimAnalysis:
    """The parts of a claim that the retrieval queries are built from.

    ``verb_phrase`` is the claim cut after its first verb phrase (every token before the first
    verb, the verb and its own dependents, without the clauses that follow it); it equals
    ``text`` when nothing was cut. ``cut_reason`` says what ended it: a dependency relation
    (``conj``, ``parataxis``, ``advcl``, ``acl``), a rule (``comma``, ``semicolon``,
    ``sentence_end``, ``coordination``, ``relative_pronoun``), ``clause_end`` or ``none``.
    ``analyzer`` records which analyzer produced the result, so that every query can say so.
    """

    text: str
    entities: tuple[Entity, ...]
    verb_phrase: str
    cut_reason: str
    analyzer: AnalyzerName

    @property
    def was_cut(self) -> bool:
        return self.verb_phrase != self.text

    def entity_texts(self, limit: int | None = None) -> list[str]:
        """Distinct entity texts in order of first appearance (compared in normalised form)."""
        seen: set[str] = set()
        out: list[str] = []
        for ent in self.entities:
            key = normalize(ent.text)
            if key and key not in seen:
                seen.add(key)
                out.append(ent.text)
        return out if limit is None else out[:limit]
