"""True-claim selection: which Reuters headlines become true claims for each false seed."""

from typing import Literal

from pydantic import Field

from arastance.config.base import SettingsGroup


class SelectionSettings(SettingsGroup):
    """The method's defaults: +/-3 months, at most 10 headlines per seed."""

    window_months: int = Field(default=3, ge=1, le=36)
    top_k: int = Field(default=10, ge=1, le=1000)
    min_similarity: float = Field(default=0.05, ge=0.0, le=1.0)
    analyzer: Literal["word", "char"] = "word"
    sample_size: int = Field(default=0, ge=0, description="0 means every seed")
    seed: int = 13
