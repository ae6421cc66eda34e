"""Label Studio: the labeling config, task import JSON out, and annotation export JSON in.

Label Studio's JSON export is a list of tasks, each with its ``data`` (the fields we exported)
and ``annotations``; an annotation's label sits in the ``value.choices`` of its ``result`` region
whose ``from_name`` is the stance control, its author in ``completed_by`` (a user id, or an
object with an ``email``, depending on the version), which :class:`_Authors` turns into an annotator,
and when it was first submitted and last saved in ``created_at`` and ``updated_at``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
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

#: The labeling config's stance control: the ``from_name`` of the result regions that hold the label.
STANCE_CONTROL = "stance"
#: The environment variable that sets ``annotation.annotator_map`` (Label Studio user -> annotator).
ANNOTATOR_MAP_ENV = "ARASTANCE_ANNOTATION__ANNOTATOR_MAP"


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
        f'  <Choices name="{STANCE_CONTROL}" toName="article" choice="single" showInline="true" required="true">\n'
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


class _Problem(ValueError):
    """Why a task or an annotation of the export gives no label."""


@dataclass(frozen=True)
class _User:
    """A Label Studio user as ``completed_by`` names them: a user id, and in older exports an e-mail.

    User ids are per Label Studio instance (each numbers its users from 1), so an id names a person
    only together with the instance the export came from."""

    id: str
    email: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        """What ``annotator_map`` is looked up by, e-mail first."""
        return tuple(k for k in (self.email, self.id) if k)

    def __str__(self) -> str:
        return f"{self.id} ({self.email})" if self.id and self.email else self.id or self.email


def _user(raw: Any) -> _User | None:
    """The Label Studio user ``completed_by`` names; None when it names nobody."""
    if isinstance(raw, Mapping):
        user_id, email = (str(raw[k]).strip() if raw.get(k) not in (None, "") else "" for k in ("id", "email"))
        return _User(user_id, email) if user_id or email else None
    if isinstance(raw, (str, int)) and not isinstance(raw, bool) and str(raw).strip():
        return _User(str(raw).strip())
    return None


def _key_kind(key: str) -> str:
    """Whether a user key (of ``annotator_map``, or of a user the export names) is an e-mail or a user
    id: a map key of one kind never matches a user the export names only by the other."""
    return "e-mail" if "@" in key else "id"


def _map_example(users: Sequence[_User]) -> str:
    """The annotator_map setting for ``users``, as the environment variable that sets it."""
    entries = json.dumps({u.id or u.email: "<annotator>" for u in users}, ensure_ascii=False)
    return f"{ANNOTATOR_MAP_ENV}='{entries}'"


def _misplaced(user: _User, mapped: str, assignee: str, wheres: Sequence[str]) -> str:
    """Why the labels ``user`` gave on the tasks of ``assignee`` (at ``wheres``) are refused."""
    shown = "; ".join(wheres[:3]) + (f"; and {len(wheres) - 3} more" if len(wheres) > 3 else "")
    return (f"Label Studio user {user} maps to {mapped!r} (annotation.annotator_map), but labelled tasks given to "
            f"{assignee!r} (data.annotator_id): {shown}. A label counts only on its annotator's own task, and "
            "each Label Studio numbers its users from 1: with one instance per annotator leave "
            "annotation.annotator_map unset; in a shared one, each annotator labels their own file's tasks")


@dataclass
class _Authors:
    """Who gave the labels of one export: each Label Studio user turned into an annotator.

    A user that ``annotator_map`` names is the annotator it maps to, and only on that annotator's
    own tasks (``data.annotator_id``): a user id from another instance's map (every instance has a
    user 1) would otherwise store one annotator's labels as another's. A user it does not name gives
    the labels of the tasks' annotator, when the file shows that it stands for one person: a single
    such user, on the tasks of a single annotator, whom no named user of the file is and the map
    gives to no user, in a file no mapped user labelled (a shared project, where every user needs an
    entry: its admin labelling an annotator's task is not that annotator). That is the file of one
    annotator labelled in their own Label Studio (or their own project), the way rounds are handed
    out, with no setting at all. A map key tells users apart only where the export names users by
    its kind (Label Studio's JSON export gives ids only, older ones e-mails too): an e-mail key says
    nothing about who an id-only user is. A task without ``data.annotator_id`` (a hand-made file)
    takes the user's own e-mail or id as the annotator, and the warehouse check refuses one no round
    assigned."""

    annotator_map: Mapping[str, str]
    named: dict[str, _User] = field(default_factory=dict)
    #: The kinds of key (:func:`_key_kind`) the export names its users by.
    kinds: set[str] = field(default_factory=set)
    #: The users of the file that ``annotator_map`` names, in the order they first labelled.
    mapped_users: dict[_User, None] = field(default_factory=dict)
    unmapped: dict[_User, list[tuple[str, str]]] = field(default_factory=dict)
    misplaced: dict[tuple[_User, str, str], list[str]] = field(default_factory=dict)

    def annotator(self, user: _User, assignee: str | None, where: str) -> str | None:
        """The annotator of ``user``'s label on a task given to ``assignee``; None for a mapped user
        on another annotator's task, which :meth:`problems` reports."""
        mapped = next((self.annotator_map[k] for k in user.keys if k in self.annotator_map), None)
        self.kinds.update(_key_kind(k) for k in user.keys)
        if mapped is not None:
            self.mapped_users.setdefault(user)
        if mapped is not None and assignee is not None and mapped != assignee:
            self.misplaced.setdefault((user, mapped, assignee), []).append(where)
            return None
        if mapped is None and assignee is not None and assignee not in user.keys:
            self.unmapped.setdefault(user, []).append((assignee, where))
            return assignee
        annotator = mapped or assignee or user.keys[0]
        self.named.setdefault(annotator, user)
        return annotator

    def problems(self) -> list[str]:
        """Why the file's labels cannot all be given to their annotators: one problem per mapped user
        on another annotator's tasks, or one for the users ``annotator_map`` does not name."""
        misplaced = [_misplaced(user, mapped, assignee, wheres)
                     for (user, mapped, assignee), wheres in self.misplaced.items()]
        return misplaced + self._unmapped_problems()

    def _mapping_advice(self, users: Sequence[_User]) -> str:
        """How to map ``users``: with their ids (or e-mails) as keys; and, where the map's keys are of a
        kind the export does not name users by (e-mails, where Label Studio's JSON export gives ids
        only), that those keys never match, else the user keeps mapping them by e-mail in vain."""
        foreign = sorted({_key_kind(k) for k in self.annotator_map} - self.kinds)
        if not foreign:
            return f"set annotation.annotator_map, e.g. {_map_example(users)}"
        given = " and ".join(sorted(self.kinds))
        return (f"this export names Label Studio users by {given} only (completed_by), which the map's "
                f"{' and '.join(foreign)} keys never match: in a shared project key annotation.annotator_map by "
                f"user {given}, e.g. {_map_example(users)}, or leave it unset with one Label Studio per annotator")

    def _unmapped_problems(self) -> list[str]:
        """Why the labels of users ``annotator_map`` does not name cannot be their tasks' annotator's."""
        if not self.unmapped:
            return []
        users = list(self.unmapped)
        advice = self._mapping_advice(users)
        if len(users) > 1:
            shown = ", ".join(f"{u} (first: {labels[0][1]})" for u, labels in self.unmapped.items())
            return [f"Label Studio users {shown} have no entry in annotation.annotator_map: a file labelled by "
                    f"more than one user (a shared project) needs each mapped to its annotator; {advice}"]
        user, labels = users[0], self.unmapped[users[0]]
        assignees = sorted({a for a, _ in labels})
        if len(assignees) > 1:
            return [f"Label Studio user {user} has no entry in annotation.annotator_map and labelled the tasks of "
                    f"{', '.join(assignees)} (data.annotator_id; first: {labels[0][1]}), but one user is one "
                    f"annotator; {advice}"]
        head = (f"Label Studio user {user} has no entry in annotation.annotator_map and labelled tasks of "
                f"{assignees[0]!r} (first: {labels[0][1]})")
        if assignees[0] in self.named:
            return [f"{head}, as Label Studio user {self.named[assignees[0]]} does; {advice}"]
        mapped_to = sorted(k for k, annotator in self.annotator_map.items() if annotator == assignees[0])
        if any(_key_kind(k) in self.kinds for k in mapped_to):  # the map names who that annotator is: someone else
            return [f"{head}, whom the map gives to Label Studio user {', '.join(mapped_to)}; have {assignees[0]} "
                    f"label their own tasks, or map user {user} too, e.g. {_map_example(users)}"]
        if mapped_to:  # by keys of a kind this export does not name users by: who user is, it cannot tell
            return [f"{head}, whom the map gives to {', '.join(mapped_to)}; but {advice}"]
        if self.mapped_users:  # a shared project, where every user needs an entry
            shown = ", ".join(str(u) for u in self.mapped_users)
            return [f"{head}, in a file that Label Studio user{'s' if len(self.mapped_users) > 1 else ''} {shown} "
                    "of the map labelled too (a shared project): there every user who labels needs an entry, or "
                    "an admin's labels would be stored as the annotator's; map user "
                    f"{user} to the annotator they are, e.g. {_map_example(users)}, or delete their annotations "
                    "in Label Studio"]
        return []


def _timestamp(raw: Any) -> datetime | None:
    """Label Studio writes ISO 8601 with a ``Z``; stored naive in UTC like every warehouse time."""
    if not isinstance(raw, str):
        return None
    try:
        ts = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None
    return ts.astimezone(timezone.utc).replace(tzinfo=None) if ts.tzinfo else ts


#: An annotation's times, in the order they date its label: Label Studio moves ``updated_at`` each
#: time the annotation is saved again (an annotator changing the label), and keeps ``created_at``.
_TIME_FIELDS = ("updated_at", "created_at")


def _written_at(ann: Mapping[str, Any]) -> datetime:
    """When the annotation's label was last written: ``updated_at``, else (a hand-made file or an
    older export without it) ``created_at``. Gold decisions go by this time (an annotator's latest
    label, the last adjudication's word, a gold label's ``decided_at``): dated by ``created_at``, a
    label the annotator changed later sorted before the labels given in between. A time field present
    but unreadable raises :class:`_Problem` rather than falling back on the other: the file is
    damaged, and the other field may date the wrong write."""
    times: dict[str, datetime] = {}
    for name in _TIME_FIELDS:
        raw = ann.get(name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):  # null, or a blank cell: no time given
            continue
        when = _timestamp(raw)
        if when is None:
            raise _Problem(f"invalid field {name!r} ({raw!r}; expected ISO 8601)")
        times[name] = when
    if not times:
        raise _Problem("missing fields 'updated_at' and 'created_at': when the label was given")
    return times["updated_at"] if "updated_at" in times else times["created_at"]


def _choices(result: Any) -> list[Any] | None:
    """The values chosen in the stance control (:data:`STANCE_CONTROL`) of an annotation's ``result``
    list, or None when it has none; a project's other controls (a confidence, a note) are not read."""
    if not isinstance(result, list):
        return None
    chosen: list[Any] = []
    for region in result:
        if not isinstance(region, Mapping) or region.get("from_name") != STANCE_CONTROL:
            continue
        value = region.get("value")
        if isinstance(value, Mapping) and isinstance(value.get("choices"), list):
            chosen.extend(value["choices"])
    return chosen


def _controls(result: list[Any]) -> str:
    """The controls ``result`` holds choices of, for a message on an annotation without one stance."""
    names = sorted({str(r.get("from_name")) for r in result
                    if isinstance(r, Mapping) and r.get("from_name") not in (None, STANCE_CONTROL)})
    return f" (other controls: {', '.join(names)})" if names else ""


def _read_export(path: Path) -> Any:
    """The export's JSON; a file that cannot be read is refused whole. A byte order mark, which
    Windows editors write, is skipped, as for CSV sheets."""
    try:
        return parse_json(read_utf8(path, allow_bom=True))
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


def _other_file(payload: list[Any]) -> str | None:
    """What a list of tasks that is no full JSON export is, and what to import instead; None when
    it may be one. Each of its tasks would otherwise be refused alike, the file never named."""
    if not payload or not all(isinstance(t, Mapping) for t in payload):
        return None
    if all("data" not in t and "pair_id" in t for t in payload):
        return "this is Label Studio's JSON-MIN export; export JSON from Label Studio and import that"
    if all(isinstance(t.get("data"), Mapping) and "annotations" not in t for t in payload):
        return ("this is a task file (as `annotate export` writes it), with no annotations: import it into "
                "Label Studio, label its tasks, export JSON from Label Studio and import that")
    return None


def _task_fields(task: Any, round_override: str | None) -> tuple[str, str, str | None, list[Any]]:
    """A task's pair_id, round, annotator (``data.annotator_id``, None in a hand-made file) and
    annotations; raises :class:`_Problem` for one without them."""
    if not isinstance(task, Mapping):
        raise _Problem(f"expected an object, got {type(task).__name__}")
    data = task.get("data")
    if not isinstance(data, Mapping):
        raise _Problem("missing field 'data'")
    pair_id = data.get("pair_id")
    if not isinstance(pair_id, str) or not pair_id:
        raise _Problem("missing field 'data.pair_id'")
    round_name = round_override or data.get("round")
    if not isinstance(round_name, str) or not round_name:
        raise _Problem("missing field 'data.round' (or give the round explicitly)")
    annotations = task.get("annotations")
    if not isinstance(annotations, list):
        raise _Problem("missing field 'annotations'")
    assignee = data.get("annotator_id")
    return pair_id, round_name, assignee if isinstance(assignee, str) and assignee else None, annotations


def _label(ann: Mapping[str, Any]) -> str:
    """The stance label an annotation gives; raises :class:`_Problem` when it gives none."""
    result = ann.get("result")
    chosen = _choices(result)
    if chosen is None:
        raise _Problem("missing field 'result'")
    if len(chosen) != 1:
        raise _Problem(f"expected exactly one label in result[].value.choices of control {STANCE_CONTROL!r}, "
                       f"got {chosen}{_controls(result) if not chosen else ''}")
    label = parse_label(chosen[0])
    if label is None:
        raise _Problem(f"unknown label {chosen[0]!r}; expected one of {', '.join(FOUR_WAY)}")
    return label


def parse_export(
    path: Path, *, annotator_map: Mapping[str, str] | None = None, round_override: str | None = None
) -> list[Annotation]:
    """Read a Label Studio JSON export; every problem in it is reported at once.

    Cancelled (skipped) annotations carry no label and are left out. The same annotator giving
    the same pair two different labels in one round is a conflict, not a correction. Who gave a
    label is decided as :class:`_Authors` says.
    """
    payload = _read_export(path)
    if not isinstance(payload, list):
        raise AnnotationFileError(str(path), ["expected a JSON list of tasks (Label Studio's JSON export)"])
    other = _other_file(payload)
    if other is not None:
        raise AnnotationFileError(str(path), [other])

    authors = _Authors(annotator_map or {})
    problems: list[str] = []
    found: dict[tuple[str, str, str], Annotation] = {}
    for t_no, task in enumerate(payload, start=1):
        where_task = f"task {t_no}" + (f" (id {task.get('id')})" if isinstance(task, Mapping) and "id" in task else "")
        try:
            pair_id, round_name, assignee, annotations = _task_fields(task, round_override)
        except _Problem as exc:
            problems.append(f"{where_task}: {exc}")
            continue
        for a_no, ann in enumerate(annotations, start=1):
            where = f"{where_task}, annotation {a_no}"
            if not isinstance(ann, Mapping):
                problems.append(f"{where}: expected an object")
                continue
            if ann.get("was_cancelled"):
                continue
            user = _user(ann.get("completed_by"))
            if user is None:
                problems.append(f"{where}: missing field 'completed_by'")
            try:
                when: datetime | None = _written_at(ann)
            except _Problem as exc:
                problems.append(f"{where}: {exc}")
                when = None
            try:
                label = _label(ann)
                annotator = authors.annotator(user, assignee, where) if user is not None else None
            except _Problem as exc:
                problems.append(f"{where}: {exc}")
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
    problems.extend(authors.problems())
    if problems:
        raise AnnotationFileError(str(path), problems)
    return list(found.values())
