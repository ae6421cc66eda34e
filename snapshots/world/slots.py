"""Filling templates: slot values, Arabic prefix attachment and a clear error on a bad slot."""

from __future__ import annotations

import random
from collections.abc import Mapping

from .pools import FIXED, POOLS, SHARED_POOLS


def attach(prefix: str, word: str) -> str:
    """Join a one-letter preposition to a word as Arabic writes it (ل + ال -> لل)."""
    if prefix == "ل" and word.startswith("ال"):
        return "لل" + word[2:]
    return prefix + word


def pool_of(slot: str) -> str:
    """The pool a slot draws from: 'club2' draws from 'club'."""
    return slot.rstrip("0123456789")


def pool_values(country: str, slot: str) -> tuple[str, ...]:
    """The values a slot may take in ``country``; KeyError names the slot when none exist."""
    name = pool_of(slot)
    if name in POOLS[country]:
        return POOLS[country][name]
    if name in SHARED_POOLS:
        return SHARED_POOLS[name]
    raise KeyError(f"no pool {name!r} for slot {slot!r} in country {country}")


def with_forms(values: Mapping[str, str]) -> dict[str, str]:
    """Add ``bi_<slot>``/``li_<slot>`` (after ب / ل) and ``indef_<slot>`` (no article) forms."""
    out = dict(values)
    for key, value in values.items():
        out[f"bi_{key}"] = attach("ب", value)
        out[f"li_{key}"] = attach("ل", value)
        out[f"indef_{key}"] = " ".join(w[2:] if w.startswith("ال") and len(w) > 3 else w for w in value.split())
    return out


def fill(template: str, values: Mapping[str, str], *, where: str) -> str:
    """Fill ``template``; a missing slot raises KeyError naming the slot and ``where``."""
    try:
        return template.format_map(values)
    except KeyError as exc:
        raise KeyError(f"template slot {exc.args[0]!r} has no value in {where}: {template[:60]!r}") from None


def country_values(country: str) -> dict[str, str]:
    """The fixed institutions and names of one country."""
    return dict(FIXED[country])


def pick(rng: random.Random, options: tuple[str, ...] | list[str], avoid: set[str] | frozenset[str] = frozenset()) -> str:
    """One option, preferring those not in ``avoid`` (falls back to any when all are used)."""
    fresh = [o for o in options if o not in avoid]
    return rng.choice(fresh or list(options))


def introduce_spokesman(templates: list[str]) -> list[str]:
    """Name the spokesman with his role at his first mention only ("X، المتحدث باسم Y،" then "X")."""
    out, introduced = [], False
    for template in templates:
        if "{spokesman_intro}" in template:
            first, _, rest = template.partition("{spokesman_intro}")
            template = first + ("{spokesman}" if introduced else "{spokesman}، {spokesman_role}،") + rest
            template = template.replace("{spokesman_intro}", "{spokesman}")
            introduced = True
        out.append(template)
    return out
