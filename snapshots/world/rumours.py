"""Rumours: every kind of the catalogue filled for several countries and years.

A ``RumourDraft`` keeps, next to the public ``Rumour``, the kind and the slot values, because
the posts, articles and headlines about a rumour are written from the same fill.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from datetime import date, timedelta

from . import (
    catalogue_economy, catalogue_health, catalogue_public, catalogue_science, catalogue_services, catalogue_society,
    catalogue_sports, catalogue_tech,
)
from .kinds import RumourKind
from .model import Rumour
from .pools import COUNTRIES
from .slots import country_values, fill, pick, pool_values, with_forms

KINDS: tuple[RumourKind, ...] = (
    catalogue_society.KINDS
    + catalogue_health.KINDS
    + catalogue_public.KINDS
    + catalogue_economy.KINDS
    + catalogue_tech.KINDS
    + catalogue_sports.KINDS
    + catalogue_science.KINDS
    + catalogue_services.KINDS
)

FIRST_DAY = date(2012, 2, 1)
LAST_DAY = date(2018, 10, 31)  # leaves room for posts and articles dated weeks later
FILLS_PER_KIND = 5  # two per country when the statement names a drawn slot, else one


@dataclass(frozen=True)
class RumourDraft:
    """A rumour with the kind and slot values it was written from."""

    rumour: Rumour
    kind: RumourKind
    values: dict[str, str]

    @property
    def country(self) -> str:
        return self.rumour.country

    @cached_property
    def context(self) -> dict[str, str]:
        """Slot values plus the kind's own phrases filled in: np, statement, org, truth..."""
        where = f"rumour {self.rumour.rumour_id} ({self.kind.key})"
        base = with_forms(self.values)
        own = {
            "np": self.kind.np, "np_alt": self.kind.np_alt, "statement": self.kind.statement,
            "org": self.kind.org, "spokesman_role": self.kind.spokesman_role, "truth": self.kind.truth,
        }
        return with_forms({**self.values, **{k: fill(v, base, where=where) for k, v in own.items()}})

    def text(self, template: str, **extra: str) -> str:
        """Fill a template with this rumour's context (``extra`` overrides, e.g. a spokesman)."""
        values = {**self.context, **with_forms(extra)} if extra else self.context
        return fill(template, values, where=f"rumour {self.rumour.rumour_id} ({self.kind.key})")

    def values_pool(self, slot: str) -> tuple[str, ...]:
        """Values of a pool in this rumour's country (to name a spokesman, a city...)."""
        return pool_values(self.country, slot)

    @property
    def np(self) -> str:
        return self.context["np"]

    @property
    def np_alt(self) -> str:
        return self.context["np_alt"]


def _draw_values(kind: RumourKind, country: str, rng: random.Random, used: set[str]) -> dict[str, str]:
    values = country_values(country)
    for slot in kind.slots:
        taken = used | {values[s] for s in kind.slots if s in values}
        values[slot] = pick(rng, pool_values(country, slot), taken)
    for name, (low, high, step) in kind.numbers.items():
        values[name] = str(rng.randrange(low, high + 1, step))
    return values


def build_rumours(seed: str) -> list[RumourDraft]:
    """All rumours, in date order, with ids rum-001... in that order."""
    rng = random.Random(f"{seed}:rumours")
    drafts: list[tuple[date, RumourKind, str, dict[str, str]]] = []
    seen: set[str] = set()
    span = (LAST_DAY - FIRST_DAY).days
    for k, kind in enumerate(KINDS):
        countries = [c for c in COUNTRIES if c in kind.countries]
        used: dict[str, set[str]] = {c: set() for c in countries}
        varying = any("{" + slot + "}" in kind.statement or "_" + slot + "}" in kind.statement for slot in kind.slots)
        for i in range(FILLS_PER_KIND if varying else len(countries)):
            country = countries[(i + k) % len(countries)]
            values = _draw_values(kind, country, rng, used[country])
            statement = fill(kind.statement, with_forms(values), where=f"kind {kind.key}")
            if statement in seen:
                continue
            seen.add(statement)
            used[country].update(values[s] for s in kind.slots)
            day = FIRST_DAY + timedelta(days=rng.randrange(span))
            drafts.append((day, kind, country, values))
    drafts.sort(key=lambda d: (d[0], d[1].key, d[2]))
    out = []
    for n, (day, kind, country, values) in enumerate(drafts, start=1):
        fv = with_forms(values)
        rumour = Rumour(
            rumour_id=f"rum-{n:03d}",
            statement=fill(kind.statement, fv, where=f"kind {kind.key}"),
            date=day,
            category=kind.category,
            entities=tuple(dict.fromkeys(fill(e, fv, where=f"kind {kind.key}") for e in kind.entities)),
            country=country,
            kind=kind.key,
        )
        out.append(RumourDraft(rumour, kind, values))
    return out
