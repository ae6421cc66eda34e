"""Label Studio: the labeling config, task import JSON out, and annotation export JSON in.

Label Studio's JSON export is a list of tasks, each with its ``data`` (the fields we exported)
and ``annotations``; an annotation's label sits in ``result[].value.choices`` and its author in
``completed_by`` (a user id, or an object with an ``email``, depending on the version).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from arastance.base.jsonl import JsonValueError, parse_json
from arastance.base.text_files import EncodingProblem, read_utf8
from tasks.annotation.guidelines import guidelines_view, load_guidelines
from tasks.annotation.prelabel import Prediction, label_studio_prediction
from tasks.annotation.records import Annotation, AnnotationFileError, AnnotationTask, parse_label
from tasks.stance.labels import FOUR_WAY


def labeling_config() -> str:
    """The Label Studio labeling config: the guidelines (Arabic and English panels), then claim and
    article right-to-left and one of four labels, each hinting its definition."""
    guidelines = load_guidelines()
    choices = "\n".join(
        f"    <Choice value={quoteattr(label)} hint={quoteattr(guidelines.hint(label))}/>" for label in FOUR_WAY
    )
    return (
        '<View style="direction: rtl">\n'
        f"{guidelines_view(guidelines)}"
        '  <Header value="الادعاء"/>\n'
        '  <Text name="claim" value="$claim"/>\n'
        '  <Header value="$article_title"/>\n'
        '  <Text name="article" value="$article"/>\n'
        '  <Choices name="stance" toName="article" choice="single" showInline="true" required="true">\n'
        f"{choices}\n"
        "  </Choices>\n"
        "</View>\n"
    )


def tasks_to_json(tasks: Sequence[AnnotationTask], predictions: Mapping[str, Prediction] | None = None) -> str:
    """Label Studio import JSON: one ``{"data": {...}}`` per task, in the order given, with the
    model's ``predictions`` (label, score, model version) for the pairs that have one."""
    items = []
    for t in tasks:
        item: dict[str, Any] = {"data": asdict(t)}
        if predictions and t.pair_id in predictions:
            item["predictions"] = [label_studio_prediction(predictions[t.pair_id])]
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1) + "\n"


def _annotator(raw: Any, annotator_map: Mapping[str, str]) -> str | None:
    """Our annotator id for Label Studio's ``completed_by``; None when it names nobody."""
    if isinstance(raw, Mapping):
        keys = [str(raw[k]) for k in ("email", "id") if raw.get(k) not in (None, "")]
    elif isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw).strip():
        keys = [str(raw).strip()]
    else:
        return None
    for key in keys:
        if key in annotator_map:
            return annotator_map[key]
    return keys[0] if keys else None


def _timestamp(raw: Any) -> datetime | None:
    """Label Studio writes ISO 8601 with a ``Z``; stored naive in UTC like every warehouse time."""
    if not isinstance(raw, str):
        return None
    try:
        ts = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None
    return ts.astimezone(timezone.utc).replace(tzinfo=None) if ts.tzinfo else ts


def _choices(result: Any) -> list[Any] | None:
    """The chosen values of an annotation's ``result`` list, or None when it has none."""
    if not isinstance(result, list):
        return None
    chosen: list[Any] = []
    for region in result:
        value = region.get("value") if isinstance(region, Mapping) else None
        if isinstance(value, Mapping) and isinstance(value.get("choices"), list):
            chosen.extend(value["choices"])
    return chosen


def parse_export(
    path: Path, *, annotator_map: Mapping[str, str] | None = None, round_override: str | None = None
) -> list[Annotation]:
    """Read a Label Studio JSON export; every problem in it is reported at once.

    Cancelled (skipped) annotations carry no label and are left out. The same annotator giving
    the same pair two different labels in one round is a conflict, not a correction.
    """
    annotator_map = annotator_map or {}
    try:
        payload = parse_json(read_utf8(path))
    except json.JSONDecodeError as exc:
        raise AnnotationFileError(str(path), [f"line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"]) from None
    except JsonValueError as exc:
        raise AnnotationFileError(str(path), [str(exc)]) from None
    except RecursionError:
        raise AnnotationFileError(str(path), ["JSON nested too deep to read"]) from None
    except EncodingProblem as exc:
        raise AnnotationFileError(str(path), [str(exc).removeprefix(f"{path}, ")]) from None
    except OSError as exc:
        raise AnnotationFileError(str(path), [f"cannot read the file: {exc.strerror or exc}"]) from None
    if not isinstance(payload, list):
        raise AnnotationFileError(str(path), ["expected a JSON list of tasks (Label Studio's JSON export)"])

    problems: list[str] = []
    found: dict[tuple[str, str, str], Annotation] = {}
    for t_no, task in enumerate(payload, start=1):
        where_task = f"task {t_no}" + (f" (id {task.get('id')})" if isinstance(task, Mapping) and "id" in task else "")
        if not isinstance(task, Mapping):
            problems.append(f"{where_task}: expected an object, got {type(task).__name__}")
            continue
        data = task.get("data")
        if not isinstance(data, Mapping):
            problems.append(f"{where_task}: missing field 'data'")
            continue
        pair_id = data.get("pair_id")
        if not isinstance(pair_id, str) or not pair_id:
            problems.append(f"{where_task}: missing field 'data.pair_id'")
            continue
        round_name = round_override or data.get("round")
        if not isinstance(round_name, str) or not round_name:
            problems.append(f"{where_task}: missing field 'data.round' (or give the round explicitly)")
            continue
        annotations = task.get("annotations")
        if not isinstance(annotations, list):
            problems.append(f"{where_task}: missing field 'annotations'")
            continue
        for a_no, ann in enumerate(annotations, start=1):
            where = f"{where_task}, annotation {a_no}"
            if not isinstance(ann, Mapping):
                problems.append(f"{where}: expected an object")
                continue
            if ann.get("was_cancelled"):
                continue
            annotator = _annotator(ann.get("completed_by"), annotator_map)
            if annotator is None:
                problems.append(f"{where}: missing field 'completed_by'")
            when = _timestamp(ann.get("created_at"))
            if when is None:
                problems.append(
                    f"{where}: missing or invalid field 'created_at' ({ann.get('created_at')!r}; expected ISO 8601)"
                )
            chosen = _choices(ann.get("result"))
            if chosen is None:
                problems.append(f"{where}: missing field 'result'")
                continue
            if len(chosen) != 1:
                problems.append(f"{where}: expected exactly one label in result[].value.choices, got {chosen}")
                continue
            label = parse_label(chosen[0])
            if label is None:
                problems.append(f"{where}: unknown label {chosen[0]!r}; expected one of {', '.join(FOUR_WAY)}")
                continue
            if annotator is None or when is None:
                continue
            record = Annotation(pair_id, annotator, label, round_name, when, where)
            key = (pair_id, annotator, round_name)
            if key in found and found[key].label != label:
                problems.append(
                    f"{where}: annotator {annotator!r} labels pair {pair_id} {label!r} in round {round_name!r}, "
                    f"but {found[key].where} says {found[key].label!r}"
                )
                continue
            found.setdefault(key, record)
    if problems:
        raise AnnotationFileError(str(path), problems)
    return list(found.values())
