"""True-claim selection: which Reuters headlines become true claims for each false seed."""

from typing import Any, Literal

from pydantic import Field, field_validator

from arastance.config.base import SettingsGroup


class SelectionSettings(SettingsGroup):
    """The method's defaults: +/-3 months, at most 10 headlines per seed.

    ``undated_policy`` decides what happens to a seed or headline without a date: ``exclude``
    (the default) leaves it out and records the reason ``no_date``; ``ignore_window`` keeps it
    and compares it without a date window (an undated seed with every headline, an undated
    headline with every seed).
    """

    window_months: int = Field(default=3, ge=1, le=36)
    top_k: int = Field(default=10, ge=1, le=1000)
    min_similarity: float = Field(default=0.05, ge=0.0, le=1.0)
    analyzer: Literal["word", "char"] = "word"
    word_ngrams: tuple[int, int] = Field(default=(1, 2), description="word n-gram range (min, max)")
    char_ngrams: tuple[int, int] = Field(default=(3, 5), description="character n-gram range (min, max)")
    undated_policy: Literal["exclude", "ignore_window"] = "exclude"
    headline_sources: list[str] = Field(
        default_factory=lambda: ["reuters"], min_length=1, description="source_id of the candidate true claims"
    )
    sample_size: int = Field(default=0, ge=0, description="0 means every seed")
    seed: int = 13

    @field_validator("word_ngrams", "char_ngrams")
    @classmethod
    def _ordered_range(cls, value: tuple[int, int]) -> tuple[int, int]:
        low, high = value
        if not 1 <= low <= high <= 8:
            raise ValueError(f"an n-gram range needs 1 <= min <= max <= 8, got {value}")
        return value

    @property
    def ngram_range(self) -> tuple[int, int]:
        """The n-gram range of the chosen analyser."""
        return self.word_ngrams if self.analyzer == "word" else self.char_ngrams

    def with_overrides(self, **overrides: Any) -> "SelectionSettings":
        """A validated copy with the given fields replaced; ``None`` means "keep the setting"."""
        given = {k: v for k, v in overrides.items() if v is not None}
        return type(self).model_validate({**self.model_dump(), **given})
