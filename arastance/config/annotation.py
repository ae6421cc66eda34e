"""Annotation rounds and dataset splits."""

import math
from pathlib import Path

from pydantic import Field, field_validator

from arastance.config.base import SettingsGroup


class AnnotationSettings(SettingsGroup):
    """Two annotators a pair, a third to adjudicate; 70/15/15 split by claim."""

    annotators_per_pair: int = Field(default=2, ge=1, le=10)
    annotators: list[str] = Field(
        default=["ann-1", "ann-2", "ann-3"],
        description="the annotator pool; production rounds need annotators_per_pair + 1 of them",
    )
    annotator_map: dict[str, str] = Field(
        default={},
        description="Label Studio user (id or e-mail, as in completed_by) -> annotator id",
    )
    pilot_size: int = Field(default=50, ge=1, description="pairs every annotator labels in a pilot round")
    assignment_seed: int = 7
    tasks_dir: Path | None = Field(default=None, description="task files for annotators; default <data_dir>/annotation")
    export_dir: Path | None = Field(default=None, description="the exported dataset; default <data_dir>/dataset")
    split_ratios: tuple[float, float, float] = (0.7, 0.15, 0.15)
    split_seed: int = 2021

    @field_validator("split_ratios")
    @classmethod
    def _ratios_sum_to_one(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        # NaN compares false with everything, so it must be refused explicitly (it sent every claim to train).
        if not all(math.isfinite(r) and 0 <= r <= 1 for r in value) or abs(sum(value) - 1.0) > 1e-6:
            raise ValueError(f"train/dev/test ratios must be finite numbers in [0, 1] summing to 1, got {value}")
        return value

    @field_validator("annotators")
    @classmethod
    def _distinct_annotators(cls, value: list[str]) -> list[str]:
        if not value or len(set(value)) != len(value) or any(not a.strip() for a in value):
            raise ValueError(f"annotators must be distinct non-empty ids, got {value}")
        return value
