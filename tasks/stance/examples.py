"""The one record every dataset loader yields and every model consumes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StanceExample:
    """One claim-article pair; ``label`` is None for unlabelled pairs (prediction)."""

    claim: str
    article: str
    label: str | None
    claim_id: str
    article_id: str | None = None
    article_title: str | None = None
    article_url: str | None = None
