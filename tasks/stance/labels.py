"""Stance label schemes and the explicit conversion between them."""

from __future__ import annotations

from typing import Literal

FOUR_WAY: tuple[str, ...] = ("agree", "disagree", "discuss", "unrelated")
THREE_WAY: tuple[str, ...] = ("agree", "disagree", "other")
Scheme = Literal["4way", "3way"]

LABELS: dict[str, tuple[str, ...]] = {"4way": FOUR_WAY, "3way": THREE_WAY}


def scheme_of(labels: tuple[str, ...]) -> Scheme:
    """The scheme a model's labels belong to: a saved model is scored in the scheme it was trained in."""
    return "3way" if tuple(labels) == THREE_WAY else "4way"


def to_scheme(label: str, scheme: Scheme) -> str:
    """Map a 4-way (or already 3-way) label into ``scheme``; discuss and unrelated become other."""
    label = label.strip().lower()
    if scheme == "4way":
        if label not in FOUR_WAY:
            raise ValueError(f"label {label!r} is not a 4-way stance label {FOUR_WAY}")
        return label
    if label in ("discuss", "unrelated", "other"):
        return "other"
    if label in ("agree", "disagree"):
        return label
    raise ValueError(f"label {label!r} is not a stance label")
