"""Gold labels: the agreed label, or the adjudicated one where annotators differ.

Rules, per pair:
1. a pilot discussion's decision decides: ``adjudicated`` (the method settles every pilot
   disagreement by discussion, never by majority; :mod:`tasks.annotation.discussion`);
2. an adjudication-round label decides (the latest one, if there were several): ``adjudicated``;
3. fewer pilot/production annotators have labelled the pair than its rounds assigned: ``pending``
   (two of three agreeing is no agreement while the third may differ, and two differing is no
   dispute while the third may break it);
4. pilot labels that differ wait for the discussion: ``discussion``;
5. otherwise each annotator's latest label from pilot/production rounds counts once:
   all equal (two or more annotators) gives ``agreed``; with three or more annotators a strict
   majority decides (the extra annotators acted as adjudicators): ``adjudicated``;
6. a single label is gold (``single``) only when one annotator was expected;
7. anything else waits: ``disputed`` (needs a third annotator).

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
    discussed: Mapping[str, Any] | None = None,
) -> GoldDecision:
    """Decide one pair from its annotation rows (``annotator_id, label, round_kind, annotated_at``)
    and its pilot discussion's decision (``label, decided_at``), if any.

    ``expected_labels`` is how many annotators the pair's pilot or production round assigned it to:
    the labels that have arrived say nothing final until all of them are in."""
    rows = sorted(rows, key=lambda r: (r["annotated_at"], r["annotator_id"]))
    who = tuple(sorted({r["annotator_id"] for r in rows}))
    if discussed is not None:
        return GoldDecision(pair_id, "gold", discussed["label"], "adjudicated", discussed["decided_at"], who)
    adjudications = [r for r in rows if r["round_kind"] == "adjudication"]
    if adjudications:
        last = adjudications[-1]
        return GoldDecision(pair_id, "gold", last["label"], "adjudicated", last["annotated_at"], who)
    latest: dict[str, Mapping[str, Any]] = {}
    for r in rows:
        latest[r["annotator_id"]] = r
    n = len(latest)
    if n == 0 or n < expected_labels:
        return GoldDecision(pair_id, "pending", None, None, None, who)
    pilot = {r["annotator_id"]: r["label"] for r in rows if r["round_kind"] == "pilot"}
    if len(set(pilot.values())) > 1:
        return GoldDecision(pair_id, "discussion", None, None, None, who)
    when = max(r["annotated_at"] for r in latest.values())
    counts = Counter(r["label"] for r in latest.values())
    label, top = counts.most_common(1)[0]
    if n == 1:
        return GoldDecision(pair_id, "gold", label, "single", when, who)
    if top == n:
        return GoldDecision(pair_id, "gold", label, "agreed", when, who)
    if n >= 3 and top * 2 > n:
        return GoldDecision(pair_id, "gold", label, "adjudicated", when, who)
    return GoldDecision(pair_id, "disputed", None, None, None, who)


def decide_all(
    rows: Iterable[Mapping[str, Any]],
    *,
    assigned: Mapping[str, int],
    annotators_per_pair: int,
    discussions: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[GoldDecision]:
    """Decide every pair that has annotation rows, in pair order.

    ``assigned`` maps a pair to the annotators its pilot/production rounds assigned it to; a pair
    with labels but no assignment stored (labels loaded directly into the warehouse) expects
    ``annotators_per_pair``. ``discussions`` maps a pair to its pilot discussion's decision."""
    discussions = discussions or {}
    by_pair: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_pair.setdefault(r["pair_id"], []).append(r)
    return [
        decide(p, by_pair[p], expected_labels=assigned.get(p, annotators_per_pair), discussed=discussions.get(p))
        for p in sorted(by_pair)
    ]
