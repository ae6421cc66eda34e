"""The records annotation files carry in and out, and the one error every bad file raises."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from tasks.stance.labels import FOUR_WAY

RoundKind = Literal["pilot", "production", "adjudication"]
ROUND_KINDS: tuple[str, ...] = ("pilot", "production", "adjudication")


class AnnotationFileError(ValueError):
    """A task or annotation file that cannot be imported; the message names file, row and problem.

    ``problems`` lists every problem found, so that one pass over a bad file shows all of them.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        if len(problems) == 1:  # one problem, one line (an encoding error, a missing file, ...)
            super().__init__(f"{path}: nothing imported: {problems[0]}")
            return
        shown = problems[:20]
        more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        super().__init__(f"{path}: nothing imported, {len(problems)} problem(s):\n  " + "\n  ".join(shown) + more)


@dataclass(frozen=True, slots=True)
class AnnotationTask:
    """One pair as an annotator sees it; ``annotator_id`` is who the round assigned it to."""

    pair_id: str
    round: str
    annotator_id: str
    claim_id: str
    claim: str
    claim_url: str
    source_id: str
    article_id: str
    article_title: str
    article_url: str
    article: str


@dataclass(frozen=True, slots=True)
class Annotation:
    """One label given by one annotator to one pair in one round.

    ``where`` locates the record in its file (e.g. ``task 3 (id 17), annotation 1`` or
    ``line 5``) so that checks made later against the warehouse can still name the row.
    """

    pair_id: str
    annotator_id: str
    label: str
    round: str
    annotated_at: datetime
    where: str = ""


def parse_label(raw: object) -> str | None:
    """The 4-way label ``raw`` names (case and spaces ignored), or None when it is not one."""
    if not isinstance(raw, str):
        return None
    label = raw.strip().lower()
    return label if label in FOUR_WAY else None
