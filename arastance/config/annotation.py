"""Annotation rounds and dataset splits."""

import math
import unicodedata
from pathlib import Path

from pydantic import Field, field_validator

from arastance.config.base import SettingsGroup

#: The names a round directory gives its own files (``labeling_config.xml``, ``guidelines.md`` and
#: the pilot's ``discussion.csv``, written by :mod:`tasks.annotation`): an annotator of that name
#: would have task files beside them, ``discussion.csv`` overwritten by a task sheet.
ROUND_FILE_STEMS = frozenset({"labeling_config", "guidelines", "discussion"})


def _annotator_id_problem(annotator: str) -> str | None:
    """Why ``annotator`` cannot name its task files ``<round directory>/<id>.json`` and ``.csv``, or None.

    An id is a file name: a separator or a leading dot (``..``) would put the files outside the
    round directory, and a control character makes a name no one can type."""
    if "/" in annotator or "\\" in annotator:
        return "holds a path separator"
    if annotator.startswith("."):
        return "starts with a dot"
    if any(unicodedata.category(ch) == "Cc" for ch in annotator):
        return "holds a control character"
    if annotator.casefold() in ROUND_FILE_STEMS:
        return f"is a name the round directory uses for its own files ({', '.join(sorted(ROUND_FILE_STEMS))})"
    return None


class AnnotationSettings(SettingsGroup):
    """Two annotators a pair, a third to adjudicate; 70/15/15 split by claim."""

    annotators_per_pair: int = Field(default=2, ge=1, le=10)
    annotators: list[str] = Field(
        default=["ann-1", "ann-2", "ann-3"],
        description="the annotator pool; production rounds need annotators_per_pair + 1 of them",
    )
    annotator_map: dict[str, str] = Field(
        default={},
        description="Label Studio user (id or e-mail, as in completed_by) -> annotator id; needed only where several "
                    "Label Studio users label one task file (a shared project)",
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
        for annotator in value:
            if annotator != annotator.strip():  # "ann-2 " got "ann-2 .csv", and no label of it was ever imported
                raise ValueError(f"annotator id {annotator!r} starts or ends with a blank: an import reads the task "
                                 "sheets' annotator_id cells without them, so none of its labels would match its tasks")
            if problem := _annotator_id_problem(annotator):
                raise ValueError(f"annotator id {annotator!r} {problem}: each id names its task files "
                                 "<round>/<id>.json and <id>.csv")
        return value
