"""The demo's annotation campaign: pilot, production and adjudication rounds by simulated annotators.

Files go through the same export and import path as real annotators' files; only the labelling
itself is simulated (:mod:`snapshots.demo.annotators`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arastance.config.annotation import AnnotationSettings
from snapshots.demo.annotators import TruthFn, simulate_discussion, simulate_export
from tasks.annotation.agreement import RoundAgreement
from tasks.annotation.records import AnnotationTask
from tasks.annotation.discussion import import_discussion
from tasks.annotation.workflow import (
    NoPairsLeftError,
    adjudicate,
    export_round,
    import_annotations,
    round_reports,
)
from warehouse import Warehouse
from warehouse import annotation as store


class StanceOracle(Protocol):
    """What the demo needs of the snapshot world (``snapshots.world.World`` provides it)."""

    def topic_of_post(self, site: str, path: str) -> str | None: ...

    def topic_of_headline(self, path: str) -> str | None: ...

    def gold_stance(self, topic_id: str, article_url: str) -> str: ...


def world_truth(world: StanceOracle) -> TruthFn:
    """The true stance of a task's pair in the snapshot world.

    The claim's page (a fact-check post, or a Reuters story for true claims) names the topic;
    a claim the world does not know makes every article unrelated.
    """

    def truth(task: AnnotationTask) -> str:
        if task.source_id == "reuters":
            topic = world.topic_of_headline(task.claim_url)
        else:
            topic = world.topic_of_post(task.source_id, task.claim_url)
        return "unrelated" if topic is None else world.gold_stance(topic, task.article_url)

    return truth


@dataclass(frozen=True)
class DemoCampaign:
    rounds: list[str]
    annotations: int
    gold: int
    disputed: int
    reports: list[RoundAgreement]
    discussed: int = 0  # pilot pairs settled by the (simulated) discussion


def _label_round(wh: Warehouse, round_name: str, tasks_dir: Path, truth: TruthFn, labelled_dir: Path, seed: int) -> int:
    """Simulate every annotator's file of a round and import the exports; return the new annotations."""
    new = 0
    for tasks_file in sorted((tasks_dir / round_name).glob("*.json")):
        out = labelled_dir / round_name / f"{tasks_file.stem}-export.json"
        simulate_export(tasks_file, truth, out, seed=seed)
        new += import_annotations(wh, out).new
    return new


def _stored_rounds(wh: Warehouse, kind: str) -> list[str]:
    return sorted(name for name, k in store.round_kinds(wh).items() if k == kind)


def run_demo_campaign(
    wh: Warehouse, cfg: AnnotationSettings, truth: TruthFn, work_dir: Path, *, seed: int = 0, pilot_size: int | None = None
) -> DemoCampaign:
    """Pilot (every annotator, ``pilot_size`` pairs), one production round, then the pilot's
    discussion of its disagreements and adjudication of the production's.

    A campaign stopped part-way (a full disk after the pilot's import) is resumed: a round already
    stored is labelled again (an import stored before adds nothing), not made anew, so the re-run
    ends where an uninterrupted one does (it made a second pilot round, and another dataset)."""
    tasks_dir, labelled_dir = work_dir / "tasks", work_dir / "labelled"
    rounds: list[str] = []
    annotations = 0
    for kind, size in (("pilot", pilot_size or cfg.pilot_size), ("production", None)):
        names = _stored_rounds(wh, kind)
        if not names:
            try:
                names = [export_round(wh, kind, cfg, tasks_dir, size=size).round]  # type: ignore[arg-type]
            except NoPairsLeftError:
                continue
        for name in names:
            rounds.append(name)
            annotations += _label_round(wh, name, tasks_dir, truth, labelled_dir, seed)
    for name in _stored_rounds(wh, "adjudication"):  # sent to a third annotator before the stop
        rounds.append(name)
        annotations += _label_round(wh, name, tasks_dir, truth, labelled_dir, seed)
    result = adjudicate(wh, cfg, tasks_dir)
    discussed = 0
    for sheet in result.discussion_sheets:
        filled = labelled_dir / sheet.parent.name / sheet.name
        simulate_discussion(sheet, truth, filled)
        discussed += import_discussion(wh, filled).new
    if result.new_round is not None:
        rounds.append(result.new_round.round)
        annotations += _label_round(wh, result.new_round.round, tasks_dir, truth, labelled_dir, seed)
    if discussed or result.new_round is not None:
        result = adjudicate(wh, cfg, tasks_dir)
    return DemoCampaign(rounds, annotations, result.gold, result.disputed, round_reports(wh), discussed)
