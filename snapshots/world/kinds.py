"""The shape of a rumour kind: one false story with slots, and everything written about it.

A kind is a template for several rumours (one per fill of its slots: a different artist, city,
club or ministry in a different country and year). It carries the claim in two grammatical
forms (``statement``, a sentence usable after "أن", and ``np``, the noun phrase fact-checkers
put after "حقيقة"), what is really the case (``truth``), the paragraphs written by those who
repeat it, deny it or just report it, and ``event``: a true story about the same entities that
gives the "unrelated but similar" articles and the Reuters headlines close to the rumour.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Event:
    """A true story about the rumour's entities (same names, different event)."""

    title: str
    paras: tuple[str, ...]
    section: str = "topNews"  # the Reuters section its headline is filed under


@dataclass(frozen=True)
class RumourKind:
    """A false story with slots; see the module docstring for the fields' roles."""

    key: str
    category: str
    slots: tuple[str, ...]
    statement: str
    np: str
    np_alt: str
    entities: tuple[str, ...]  # templates of the names the statement mentions
    org: str
    spokesman_role: str
    truth: str
    agree: tuple[str, ...]
    deny: tuple[str, ...]
    discuss: tuple[str, ...]
    background: tuple[str, ...]
    event: Event
    media: str = "مقطع فيديو"
    decision: bool = False  # the rumour is an official decision: decision-specific phrases fit
    countries: tuple[str, ...] = ("EG", "SA", "AE")
    numbers: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name: (low, high, step)
