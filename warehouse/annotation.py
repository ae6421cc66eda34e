"""Annotation rounds, assignments, imported labels and gold labels: typed reads and writes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from warehouse.connection import Warehouse, WarehouseError
from warehouse.sql import load_sql


_ANNOTATABLE = """
SELECT p.pair_id FROM claim_article_pairs p JOIN claims c USING (claim_id) JOIN articles a USING (article_id)
WHERE c.status <> 'excluded'
"""


# only annotation decisions are withdrawn: a dataset file's gold label is never deleted by one
_WITHDRAW_GOLD = ("DELETE FROM gold_labels WHERE origin = 'annotation' "
                  "AND pair_id IN (SELECT unnest(?::VARCHAR[]))")


# The columns a decision gives a gold label; the origin stays the table's default, 'annotation'.
_DECIDED_GOLD = pa.schema([("pair_id", pa.string()), ("label", pa.string()), ("method", pa.string()),
                           ("decided_at", pa.timestamp("us"))])


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
    return {r["pair_id"] for r in wh.query(load_sql("annotation_unassigned_pairs"))}


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
    rows = wh.query(load_sql("annotation_pair_tasks"), [_ids(pair_ids)])
    return {r["pair_id"]: r for r in rows}


def pair_ids_of(wh: Warehouse, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The stored pair of each of ``keys`` that has one, by ``(claim_id, article_id)``: a task sheet
    row whose pair_id a spreadsheet turned into a number is found by the ids it still shows."""
    ordered = sorted(set(keys))
    rows = wh.query(load_sql("annotation_pair_ids_of"), [[c for c, _ in ordered], [a for _, a in ordered]])
    return {(r["claim_id"], r["article_id"]): r["pair_id"] for r in rows}


def round_kinds(wh: Warehouse) -> dict[str, str]:
    """Round name -> round kind, for every round created so far, in round order (creation time,
    then prod-2 before prod-10), so that reports list rounds as they happened."""
    return {r["round"]: r["round_kind"] for r in wh.query(load_sql("annotation_rounds"))}


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
    return [dict(r, round=round_name) for r in wh.query(load_sql("annotation_round_tasks"), [round_name])]


def stored_labels(wh: Warehouse, pair_ids: Iterable[str]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Annotations already stored for ``pair_ids``, keyed by (pair, annotator, round)."""
    rows = wh.query(load_sql("annotation_labels"), {"round": None, "pair_ids": _ids(pair_ids)})
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
    return wh.query(load_sql("annotation_labels"), {"round": round_name, "pair_ids": None})


def release_assignments(wh: Warehouse, annotator: str, round_name: str | None) -> list[dict[str, Any]]:
    """Remove ``annotator``'s unlabelled assignments (in ``round_name``, or every round), record them in
    ``annotation_releases`` and return them. Labels already given stay, as do the other annotators'
    assignments."""
    with wh.transaction():
        released = wh.query(load_sql("annotation_open_assignments"), {"annotator": annotator, "round": round_name})
        for row in released:
            wh.con.execute("DELETE FROM annotation_assignments WHERE round = ? AND pair_id = ? AND annotator_id = ?",
                           [row["round"], row["pair_id"], annotator])
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        wh.insert_rows("annotation_releases", [{"round": r["round"], "pair_id": r["pair_id"], "annotator_id": annotator,
                                                "released_at": now} for r in released])
    return released


def released_annotators(wh: Warehouse) -> dict[str, int]:
    """Pair -> pilot and production assignments of it that ``annotate release`` gave up."""
    return {r["pair_id"]: int(r["released"]) for r in wh.query(load_sql("annotation_released_per_pair"))}


def releasers_of(wh: Warehouse, pair_ids: Iterable[str]) -> dict[str, set[str]]:
    """Pair -> annotators who gave up an assignment of it with ``annotate release``, among ``pair_ids``.

    Unlike :func:`released_annotators` (the labels a pair still waits for), every release counts: one
    from an adjudication round, or from a round that no longer holds the pair, still says the annotator
    would not label it, so an adjudication round gives it to someone else where it can."""
    rows = wh.query("SELECT DISTINCT pair_id, annotator_id FROM annotation_releases "
                    "WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [_ids(pair_ids)])
    out: dict[str, set[str]] = {}
    for r in rows:
        out.setdefault(r["pair_id"], set()).add(r["annotator_id"])
    return out


def annotators_with_assignments(wh: Warehouse) -> set[str]:
    """Every annotator some round has given a pair to (released assignments no longer count)."""
    return {r["annotator_id"] for r in wh.query("SELECT DISTINCT annotator_id FROM annotation_assignments")}


def assigned_annotators(wh: Warehouse) -> dict[str, int]:
    """Pair -> annotators its pilot and production rounds assigned it to: the labels it waits for."""
    return {r["pair_id"]: int(r["annotators"]) for r in wh.query(load_sql("annotation_assigned_per_pair"))}


def progress(wh: Warehouse) -> list[dict[str, Any]]:
    """Per round and annotator: pairs assigned and pairs labelled."""
    return wh.query(load_sql("annotation_progress"))


def rating_profiles(wh: Warehouse) -> list[dict[str, Any]]:
    """Per round: pairs per combination of label counts (columns ``agree``, ``disagree``, ``discuss``,
    ``unrelated`` and ``pairs``), each combination in the order of its first pair; all that agreement
    figures need, counted in SQL rather than by loading every annotation."""
    return wh.query(load_sql("annotation_rating_profiles"))


def gold_write_time() -> datetime:
    """``gold_labels.stored_at`` of the labels written now (UTC): the retraining trigger counts the
    labels written after those a training read (:mod:`warehouse.retraining`)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def upsert_gold_labels(wh: Warehouse, rows: Sequence[dict[str, Any]], *, undecided: Iterable[str]) -> int:
    """Write the gold labels that are new or changed, replacing a pair's earlier decision, and withdraw
    the gold label of the ``undecided`` pairs (a later label put them back in dispute) in the same
    transaction, so that no reader sees a disputed pair as labelled; return how many labels were
    written (new or changed).

    Every decision run passes every decided pair; rewriting the unchanged ones would cost a full
    rewrite of the table each time (DuckDB rewrites every row an upsert touches), so only the pairs
    whose label differs from the stored one are written. A dataset file's label is never replaced."""
    with wh.transaction():
        wh.con.execute(_WITHDRAW_GOLD, [_ids(undecided)])
        changed = _changed_gold(wh, rows)
        stored_at = gold_write_time()
        wh.insert_rows("gold_labels", [{**r, "stored_at": stored_at} for r in rows if r["pair_id"] in changed],
                       on_conflict="update", update_columns=[*_DECIDED_GOLD.names[1:], "stored_at"])
    return len(changed)


def _changed_gold(wh: Warehouse, rows: Sequence[dict[str, Any]]) -> set[str]:
    """Pairs of ``rows`` without a gold label, or whose stored decision differs from theirs."""
    if not rows:
        return set()
    try:
        decided = pa.Table.from_pylist(list(rows), schema=_DECIDED_GOLD)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise WarehouseError(f"cannot write {len(rows)} gold label(s): expected columns {_DECIDED_GOLD.names} "
                             f"with text and a timestamp: {exc}") from exc
    with wh.registered(decided_gold=decided):
        return {r["pair_id"] for r in wh.query(load_sql("annotation_changed_gold"))}


def gold_not_from_annotations(wh: Warehouse) -> dict[str, dict[str, Any]]:
    """Pair -> gold label of annotated pairs whose gold label a dataset file gave (``dataset load``,
    origin ``dataset_file``): decisions keep their hands off these, so a label given to such a pair
    never deletes or replaces what the file said."""
    return {r["pair_id"]: r for r in wh.query(load_sql("annotation_gold_not_decided"))}


def annotator_agreement(wh: Warehouse) -> list[dict[str, Any]]:
    """Per annotator: gold-labelled pairs they labelled and how many of their labels match gold."""
    return wh.query(load_sql("annotation_agreement_with_gold"))


def gold_summary(wh: Warehouse) -> list[dict[str, Any]]:
    """Gold labels per method and label."""
    return wh.query(_GOLD_SUMMARY)


# One round's decisions, or every round's when the round is NULL.
_DISCUSSIONS = """
SELECT pair_id, round, label, reason, decided_by, decided_at, source_file
FROM pilot_discussions WHERE $round::VARCHAR IS NULL OR round = $round::VARCHAR
ORDER BY round, pair_id
"""


def pilot_discussions(wh: Warehouse, round_name: str | None = None) -> list[dict[str, Any]]:
    """Decisions taken in pilot discussions (all, or one round's), with their reasons."""
    return wh.query(_DISCUSSIONS, {"round": round_name})


def store_pilot_discussions(wh: Warehouse, rows: Sequence[dict[str, Any]]) -> int:
    """Store discussion decisions in one transaction (a pair already decided is left as it is)."""
    with wh.transaction():
        return wh.insert_rows("pilot_discussions", rows, on_conflict="ignore")


def pilot_discussion_report(wh: Warehouse) -> list[dict[str, Any]]:
    """Per pilot round: pairs, disputed pairs, discussed (by decided label) and still waiting."""
    return wh.query(load_sql("pilot_discussion_report"))
