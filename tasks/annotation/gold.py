"""Gold labels: the agreed label, or the adjudicated one where annotators differ.

Rules, per pair:
1. fewer pilot/production annotators have labelled the pair than its rounds assigned: ``pending``
   (two of three agreeing is no agreement while the third may differ, and two differing is no
   dispute while the third may break it), unless an adjudication-round label decides it (rule 3);
2. a pilot discussion's decision decides: ``adjudicated`` (the method settles every pilot
   disagreement by discussion, never by majority; :mod:`tasks.annotation.discussion`);
3. an adjudication-round label decides (the latest one, if there were several): ``adjudicated``;
   but where a release left the pair with fewer labels than the method asks
   (:func:`required_labels`: two, or one where its round gave it to one annotator), the first adjudication labels stand in for the missing
   ones and count as ordinary labels (rule 5), so one annotator's label never becomes gold alone;
4. pilot labels that differ wait for the discussion: ``discussion``;
5. otherwise each annotator's latest label from pilot/production rounds counts once:
   all equal (two or more annotators) gives ``agreed``; with three or more annotators a strict
   majority decides (the extra annotators acted as adjudicators): ``adjudicated``;
6. a single label is gold (``single``) only when the method asks for one annotator per pair;
7. anything else waits: ``disputed`` (needs a third annotator); a pair short of labels is
   ``disputed`` too, with ``missing`` saying how many: ``adjudicate`` sends it to another annotator.

The decision time is the time of the last label that counted, so deciding again gives the
same rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class GoldDecision:
    pair_id: str
    status: Status
    label: str | None
    method: Literal["agreed", "adjudicated", "single"] | None
    decided_at: datetime | None
    annotators: tuple[str, ...]
    #: labels the method still asks for that no assignment will bring (a release left the pair short)
    missing: int = 0


Status = Literal["gold", "disputed", "discussion", "pending"]
STATUSES: tuple[Status, ...] = ("gold", "disputed", "pending", "discussion")


def decision_counts(decisions: Iterable[GoldDecision], statuses: Iterable[Status] = STATUSES) -> dict[str, int]:
    """Pairs per decision status, every status in ``statuses`` present (zero included), so that
    reports and run results always have the same columns."""
    counts = Counter(d.status for d in decisions)
    return {status: counts[status] for status in statuses}


def decide(
    pair_id: str,
    rows: Iterable[Mapping[str, Any]],
    *,
    expected_labels: int,
    required_labels: int = 1,
    discussed: Mapping[str, Any] | None = None,
) -> GoldDecision:
    """Decide one pair from its annotation rows (``annotator_id, label, round_kind, annotated_at``)
    and its pilot discussion's decision (``label, decided_at``), if any.

    ``expected_labels`` is how many annotators the pair's pilot or production rounds assigned it to:
    the labels that have arrived say nothing final until all of them are in. ``required_labels`` is
    how many the method asks for (:func:`required_labels`): a release can leave a pair
    fewer, and those it lacks are taken from adjudication rounds before one of theirs decides."""
    rows = sorted(rows, key=lambda r: (r["annotated_at"], r["annotator_id"]))
    who = tuple(sorted({r["annotator_id"] for r in rows}))
    adjudications = [r for r in rows if r["round_kind"] == "adjudication"]
    latest: dict[str, Mapping[str, Any]] = {}
    for r in rows:
        if r["round_kind"] != "adjudication":
            latest[r["annotator_id"]] = r
    pending = not latest or len(latest) < expected_labels
    short = 0 if pending else max(0, required_labels - len(latest))
    stand_ins, deciding = adjudications[:short], adjudications[short:]
    if discussed is not None and not pending:
        return GoldDecision(pair_id, "gold", discussed["label"], "adjudicated", discussed["decided_at"], who)
    if deciding:
        last = deciding[-1]
        return GoldDecision(pair_id, "gold", last["label"], "adjudicated", last["annotated_at"], who)
    if pending:
        return GoldDecision(pair_id, "pending", None, None, None, who)
    pilot = {r["annotator_id"]: r["label"] for r in rows if r["round_kind"] == "pilot"}
    if len(set(pilot.values())) > 1:
        return GoldDecision(pair_id, "discussion", None, None, None, who)
    counted = [*latest.values(), *stand_ins]
    missing = short - len(stand_ins)
    if missing:
        return GoldDecision(pair_id, "disputed", None, None, None, who, missing)
    n = len(counted)
    when = max(r["annotated_at"] for r in counted)
    label, top = Counter(r["label"] for r in counted).most_common(1)[0]
    if n == 1:
        return GoldDecision(pair_id, "gold", label, "single", when, who)
    if top == n:
        return GoldDecision(pair_id, "gold", label, "agreed", when, who)
    if n >= 3 and top * 2 > n:
        return GoldDecision(pair_id, "gold", label, "adjudicated", when, who)
    return GoldDecision(pair_id, "disputed", None, None, None, who)


def required_labels(assigned: int, released: int = 0) -> int:
    """How many labels a pair needs before they can make it gold: as many as its pilot and production
    rounds gave it to, the ``released`` assignments included, at most the method's two. A pair its round
    gave to one annotator is gold from that label; one a release left with one label of two is not.
    Taken from the pair's own rounds, not from ``annotation.annotators_per_pair`` now: changed for new
    rounds, the setting would undo the decisions of the earlier ones."""
    return min(assigned + released, 2)


def decide_all(
    rows: Iterable[Mapping[str, Any]],
    *,
    assigned: Mapping[str, int],
    annotators_per_pair: int,
    released: Mapping[str, int] | None = None,
    discussions: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[GoldDecision]:
    """Decide every pair that has annotation rows, in pair order.

    ``assigned`` maps a pair to the annotators its pilot/production rounds assigned it to; a pair
    with labels but no assignment stored (labels loaded directly into the warehouse) expects
    ``annotators_per_pair``; ``released`` maps a pair to its assignments ``annotate release`` gave up,
    and a pair needs :func:`required_labels` labels to be gold. ``discussions`` maps a pair to its
    pilot discussion's decision."""
    discussions, released = discussions or {}, released or {}
    by_pair: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_pair.setdefault(r["pair_id"], []).append(r)
    return [
        decide(p, by_pair[p], expected_labels=assigned.get(p, annotators_per_pair),
               required_labels=required_labels(assigned.get(p, annotators_per_pair), released.get(p, 0)),
               discussed=discussions.get(p))
        for p in sorted(by_pair)
    ]
