"""Annotation rounds and dataset splits."""

from pydantic import Field

from arastance.config.base import SettingsGroup


class AnnotationSettings(SettingsGroup):
    """Two annotators a pair, a third to adjudicate; 70/15/15 split by claim."""

    annotators_per_pair: int = Field(default=2, ge=1, le=10)
    split_ratios: tuple[float, float, float] = (0.7, 0.15, 0.15)
    split_seed: int = 2021
