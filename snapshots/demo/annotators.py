"""Demo annotators: Label Studio exports made from task files and a pair's true stance.

Real annotators disagree mostly on how far an article takes a position: ``discuss`` against
``agree``/``disagree``, and ``discuss`` against ``unrelated`` for articles about a similar
event. The simulator reproduces that: each annotator is right with their own accuracy and,
when wrong, picks a label by :data:`CONFUSIONS`. Every choice is seeded by (seed, round,
annotator, pair), so the same tasks always give the same file, in any order.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path

from arastance.base.ids import stable_id
from tasks.annotation.records import AnnotationFileError, AnnotationTask
from tasks.stance.labels import FOUR_WAY

TruthFn = Callable[[AnnotationTask], str]

# P(given label | true label, annotator wrong): mostly discuss against agree/unrelated.
CONFUSIONS: dict[str, dict[str, float]] = {
    "agree": {"discuss": 0.75, "unrelated": 0.1, "disagree": 0.15},
    "disagree": {"discuss": 0.7, "agree": 0.1, "unrelated": 0.2},
    "discuss": {"agree": 0.45, "unrelated": 0.45, "disagree": 0.1},
    "unrelated": {"discuss": 0.85, "agree": 0.1, "disagree": 0.05},
}
DEFAULT_ACCURACY: dict[str, float] = {"ann-1": 0.9, "ann-2": 0.84, "ann-3": 0.88}
_START = datetime(2021, 3, 1, 9, 0, 0)


def simulated_label(task: AnnotationTask, truth: str, accuracy: float, seed: int) -> str:
    """The label this annotator gives this pair: the truth, or a typical confusion of it."""
    if truth not in FOUR_WAY:
        raise ValueError(f"pair {task.pair_id}: true stance {truth!r} is not one of {FOUR_WAY}")
    rng = random.Random(stable_id(seed, task.round, task.annotator_id, task.pair_id))
    if rng.random() < accuracy:
        return truth
    wrong = CONFUSIONS[truth]
    return rng.choices(list(wrong), weights=list(wrong.values()))[0]


def _read_tasks(path: Path) -> list[AnnotationTask]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        return [AnnotationTask(**item["data"]) for item in payload]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise AnnotationFileError(str(path), [f"not a task file written by `annotate export`: {exc}"]) from None


def simulate_export(
    tasks_file: Path,
    truth: TruthFn,
    out_file: Path,
    *,
    seed: int = 0,
    accuracy: Mapping[str, float] | None = None,
) -> int:
    """Label every task of a Label Studio import file and write Label Studio's JSON export of it.

    Returns the number of annotations written.
    """
    accuracy = {**DEFAULT_ACCURACY, **(accuracy or {})}
    exported = []
    for task_id, task in enumerate(_read_tasks(tasks_file), start=1):
        label = simulated_label(task, truth(task), accuracy.get(task.annotator_id, 0.85), seed)
        minutes = int(stable_id(seed, task.round, task.annotator_id, task.pair_id, "t"), 16) % (60 * 24 * 30)
        created = (_START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        exported.append(
            {
                "id": task_id,
                "data": asdict(task),
                "annotations": [
                    {
                        "id": task_id,
                        "completed_by": task.annotator_id,
                        "result": [
                            {
                                "from_name": "stance", "to_name": "article", "type": "choices",
                                "value": {"choices": [label]},
                            }
                        ],
                        "was_cancelled": False,
                        "created_at": created,
                        "updated_at": created,
                    }
                ],
            }
        )
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(exported, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return len(exported)


def simulate_discussion(sheet: Path, truth: TruthFn, out_file: Path, *, decided_by: str = "ann-1, ann-2, ann-3") -> int:
    """Fill a pilot discussion sheet as the demo's annotators would: they settle on the pair's true
    stance and say why. Returns the number of decisions written."""
    with sheet.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        columns, rows = list(reader.fieldnames or []), list(reader)
    for row in rows:
        task = AnnotationTask(**{f: row.get(f, "") for f in AnnotationTask.__slots__ if f != "annotator_id"},
                              annotator_id="discussion")
        label = truth(task)
        row.update(decision=label, decided_by=decided_by,
                   reason=f"simulated discussion: the article's stance towards this claim is {label} (labels given: {row['labels']})")
    out_file.parent.mkdir(parents=True, exist_ok=True)
    with out_file.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)
