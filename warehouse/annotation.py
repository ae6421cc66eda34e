"""Annotation rounds, assignments, imported labels and gold labels: typed reads and writes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from warehouse.connection import Warehouse, WarehouseError
from warehouse.sql import load_sql

# The text an annotator sees for a claim: a reviewer's override wins over the rule output.
_PAIR_TASKS = """
SELECT p.pair_id, p.claim_id, COALESCE(o.cleaned_text, c.cleaned_text, c.title, '') AS claim,
       c.url AS claim_url, c.source_id, p.article_id, COALESCE(a.title, '') AS article_title,
       a.url AS article_url, COALESCE(a.text, '') AS article
FROM claim_article_pairs p
JOIN claims c USING (claim_id)
JOIN articles a USING (article_id)
LEFT JOIN claim_overrides o USING (claim_id)
"""

_ANNOTATABLE = """
SELECT p.pair_id FROM claim_article_pairs p JOIN claims c USING (claim_id) JOIN articles a USING (article_id)
WHERE c.status <> 'excluded'
"""

_UNASSIGNED = _ANNOTATABLE + """
  AND p.pair_id NOT IN (SELECT pair_id FROM annotation_assignments)
  AND p.pair_id NOT IN (SELECT pair_id FROM annotations)
"""

_ROUND_TASKS = _PAIR_TASKS.replace("SELECT p.pair_id,", "SELECT s.annotator_id, p.pair_id,") + """
JOIN annotation_assignments s USING (pair_id)
WHERE s.round = ?
ORDER BY s.annotator_id, p.pair_id
"""

_ANNOTATIONS = """
SELECT a.pair_id, a.annotator_id, a.label, a.round, a.round_kind, a.annotated_at, a.source_file
FROM annotations a
{where}
ORDER BY a.pair_id, a.annotator_id, a.round
"""

_PROGRESS = """
SELECT r.round, r.round_kind, s.annotator_id, count(*) AS assigned, count(a.label) AS done
FROM annotation_rounds r
JOIN annotation_assignments s USING (round)
LEFT JOIN annotations a ON a.round = s.round AND a.pair_id = s.pair_id AND a.annotator_id = s.annotator_id
GROUP BY r.created_at, r.round, r.round_kind, s.annotator_id
ORDER BY r.created_at, r.round, s.annotator_id
"""

# How often each annotator's pilot/production label is the pair's gold label.
_ANNOTATOR_AGREEMENT = """
SELECT a.annotator_id, count(*) AS labelled_gold_pairs,
       count(*) FILTER (WHERE a.label = g.label) AS same_as_gold,
       round(count(*) FILTER (WHERE a.label = g.label) / count(*), 4) AS share
FROM annotations a JOIN gold_labels g USING (pair_id)
WHERE a.round_kind <> 'adjudication'
GROUP BY a.annotator_id
ORDER BY a.annotator_id
"""

_GOLD_SUMMARY = """
SELECT method, label, count(*) AS pairs FROM gold_labels GROUP BY ALL ORDER BY method, label
"""


def _ids(values: Iterable[str]) -> list[str]:
    return sorted(set(values))


def annotatable_pair_ids(wh: Warehouse) -> set[str]:
    """Pairs of claims not excluded, whose article is stored."""
    return {r["pair_id"] for r in wh.query(_ANNOTATABLE)}


def unassigned_pair_ids(wh: Warehouse) -> set[str]:
    """Annotatable pairs that no round has assigned and nobody has labelled."""
    return {r["pair_id"] for r in wh.query(_UNASSIGNED)}


def known_pair_ids(wh: Warehouse, pair_ids: Iterable[str]) -> set[str]:
    """Those of ``pair_ids`` that exist in ``claim_article_pairs``."""
    rows = wh.query("SELECT pair_id FROM claim_article_pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [_ids(pair_ids)])
    return {r["pair_id"] for r in rows}


def assignments_of(wh: Warehouse, pair_ids: Iterable[str]) -> set[tuple[str, str, str]]:
    """``(round, pair_id, annotator_id)`` of every assignment of ``pair_ids``."""
    rows = wh.query(
        "SELECT round, pair_id, annotator_id FROM annotation_assignments WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))",
        [_ids(pair_ids)],
    )
    return {(r["round"], r["pair_id"], r["annotator_id"]) for r in rows}


def pair_tasks(wh: Warehouse, pair_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Claim and article fields of each pair, by pair id."""
    rows = wh.query(_PAIR_TASKS + " WHERE p.pair_id IN (SELECT unnest(?::VARCHAR[]))", [_ids(pair_ids)])
    return {r["pair_id"]: r for r in rows}


def round_kinds(wh: Warehouse) -> dict[str, str]:
    """Round name -> round kind, for every round created so far."""
    return {r["round"]: r["round_kind"] for r in wh.query("SELECT round, round_kind FROM annotation_rounds")}


def next_round_name(wh: Warehouse, kind: str) -> str:
    """``pilot-N``, ``prod-N`` or ``adjudication-N``, one more than the rounds of that kind so far."""
    prefix = {"pilot": "pilot", "production": "prod", "adjudication": "adjudication"}[kind]
    n = int(wh.scalar("SELECT count(*) FROM annotation_rounds WHERE round_kind = ?", [kind]))
    taken = set(round_kinds(wh))
    while f"{prefix}-{n + 1}" in taken:
        n += 1
    return f"{prefix}-{n + 1}"


def create_round(
    wh: Warehouse,
    *,
    round_name: str,
    kind: str,
    seed: int,
    annotators: Sequence[str],
    assignments: Sequence[tuple[str, str]],
    now: datetime,
) -> int:
    """Store a round and its assignments together; a round name is never reused."""
    if round_name in round_kinds(wh):
        raise WarehouseError(f"annotation round {round_name!r} exists already")
    with wh.transaction():
        wh.insert_rows(
            "annotation_rounds",
            [{"round": round_name, "round_kind": kind, "seed": seed, "annotators": json.dumps(list(annotators)), "created_at": now}],
            on_conflict="error",
        )
        return wh.insert_rows(
            "annotation_assignments",
            [{"round": round_name, "pair_id": p, "annotator_id": a, "assigned_at": now} for p, a in assignments],
            on_conflict="error",
        )


def round_tasks(wh: Warehouse, round_name: str) -> list[dict[str, Any]]:
    """Assignments of a round with their claim and article fields, by annotator then pair."""
    return [dict(r, round=round_name) for r in wh.query(_ROUND_TASKS, [round_name])]


def stored_labels(wh: Warehouse, pair_ids: Iterable[str]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Annotations already stored for ``pair_ids``, keyed by (pair, annotator, round)."""
    rows = wh.query(
        _ANNOTATIONS.format(where="WHERE a.pair_id IN (SELECT unnest(?::VARCHAR[]))"), [_ids(pair_ids)]
    )
    return {(r["pair_id"], r["annotator_id"], r["round"]): r for r in rows}


def import_record(wh: Warehouse, file_hash: str) -> dict[str, Any] | None:
    """The earlier import of a file with these exact bytes, if any."""
    rows = wh.query("SELECT * FROM annotation_imports WHERE file_hash = ?", [file_hash])
    return rows[0] if rows else None


def store_annotations(wh: Warehouse, rows: Sequence[dict[str, Any]], record: dict[str, Any]) -> int:
    """Store a file's annotations and its import record together; return the new annotations."""
    with wh.transaction():
        new = wh.insert_rows("annotations", rows, on_conflict="ignore")
        wh.insert_rows("annotation_imports", [{**record, "new_annotations": new}], on_conflict="ignore")
    return new


def annotations(wh: Warehouse, round_name: str | None = None) -> list[dict[str, Any]]:
    """Stored annotations (all, or one round's), in pair, annotator, round order."""
    if round_name is None:
        return wh.query(_ANNOTATIONS.format(where=""))
    return wh.query(_ANNOTATIONS.format(where="WHERE a.round = ?"), [round_name])


def progress(wh: Warehouse) -> list[dict[str, Any]]:
    """Per round and annotator: pairs assigned and pairs labelled."""
    return wh.query(_PROGRESS)


def upsert_gold_labels(wh: Warehouse, rows: Sequence[dict[str, Any]]) -> int:
    """Write gold labels, replacing a pair's earlier decision; return how many pairs are new."""
    with wh.transaction():
        return wh.insert_rows("gold_labels", rows, on_conflict="update")


def annotator_agreement(wh: Warehouse) -> list[dict[str, Any]]:
    """Per annotator: gold-labelled pairs they labelled and how many of their labels match gold."""
    return wh.query(_ANNOTATOR_AGREEMENT)


def gold_summary(wh: Warehouse) -> list[dict[str, Any]]:
    """Gold labels per method and label."""
    return wh.query(_GOLD_SUMMARY)


_DISCUSSIONS = """
SELECT pair_id, round, label, reason, decided_by, decided_at, source_file
FROM pilot_discussions {where}
ORDER BY round, pair_id
"""


def pilot_discussions(wh: Warehouse, round_name: str | None = None) -> list[dict[str, Any]]:
    """Decisions taken in pilot discussions (all, or one round's), with their reasons."""
    if round_name is None:
        return wh.query(_DISCUSSIONS.format(where=""))
    return wh.query(_DISCUSSIONS.format(where="WHERE round = ?"), [round_name])


def store_pilot_discussions(wh: Warehouse, rows: Sequence[dict[str, Any]]) -> int:
    """Store discussion decisions in one transaction (a pair already decided is left as it is)."""
    with wh.transaction():
        return wh.insert_rows("pilot_discussions", rows, on_conflict="ignore")


def pilot_discussion_report(wh: Warehouse) -> list[dict[str, Any]]:
    """Per pilot round: pairs, disputed pairs, discussed (by decided label) and still waiting."""
    return wh.query(load_sql("pilot_discussion_report"))
