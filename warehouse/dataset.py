"""Dataset assembly: all-unrelated claim flags, split conflicts, claim-level splits and the rows to export."""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from datetime import datetime
from itertools import islice
from typing import Any

from warehouse.annotation import gold_write_time
from warehouse.connection import Warehouse
from warehouse.keyed_reads import rows_by_keys
from warehouse.sql import load_sql


#: Gold pairs read at a time for the export, at most, with their article texts; a batch takes as many
#: rows as :data:`DATASET_BATCH_CHARS` of the previous batch's texts suggest (at most twice its rows), so
#: 200 pairs of news articles of a few KB come in one batch, and 200 of 120 KB do not.
DATASET_BATCH_ROWS = 200
#: Characters of article text a batch aims at: a batch's texts are held whole until its rows are written
#: (in DuckDB's result, as Python strings, and as the UTF-8 copies pyarrow keeps in those it converts).
DATASET_BATCH_CHARS = 2 * 2**20

_FLAGGED = """
SELECT f.claim_id, c.source_id, c.veracity, f.pairs, f.flagged_at
FROM dataset_claim_flags f JOIN claims c USING (claim_id)
ORDER BY c.source_id, f.claim_id
"""


def claim_profiles(wh: Warehouse) -> list[dict[str, Any]]:
    """Every non-excluded claim with gold labels: group, source, veracity and label counts."""
    return wh.query(load_sql("dataset_claim_profiles"))


def _replace_left_out(
    wh: Warehouse, table: str, where: str, rows: Sequence[dict[str, Any]], refresh: list[str]
) -> tuple[int, int]:
    """Make the rows of ``table`` matching ``where`` exactly ``rows``; returns (new, removed).

    A claim still left out keeps its first ``flagged_at`` and gets ``refresh`` brought up to date
    (a count that grows with new labels must not stay at its first value).
    """
    keep = sorted(r["claim_id"] for r in rows)
    stale = f"{where} AND claim_id NOT IN (SELECT unnest(?::VARCHAR[]))"
    with wh.transaction():
        gone = int(wh.scalar(f"SELECT count(*) FROM {table} WHERE {stale}", [keep]))
        wh.con.execute(f"DELETE FROM {table} WHERE {stale}", [keep])
        new = wh.insert_rows(table, list(rows), on_conflict="update", update_columns=refresh)
    return new, gone


def replace_unrelated_flags(wh: Warehouse, flags: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Make the all-unrelated flags exactly ``flags``; earlier flag times are kept, pair counts refreshed.

    Returns (newly flagged, unflagged). Only the flag rows change; claims and labels stay.
    """
    return _replace_left_out(wh, "dataset_claim_flags", "flag = 'all_unrelated'", flags, ["pairs"])


def replace_split_conflicts(wh: Warehouse, conflicts: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Make the claims left out for a near-duplicate in another split exactly ``conflicts``.

    Returns (new, no longer in conflict). Their splits are never touched: a split does not move.
    """
    return _replace_left_out(wh, "dataset_split_conflicts", "true", conflicts,
                             ["group_id", "split", "kept_split", "pairs"])


def flagged_claims(wh: Warehouse) -> list[dict[str, Any]]:
    """Claims flagged as left out of the dataset (``dataset_claim_flags``), with their source."""
    return wh.query(_FLAGGED)


def existing_splits(wh: Warehouse) -> dict[str, str]:
    """claim_id -> split for every claim assigned so far."""
    return {r["claim_id"]: r["split"] for r in wh.query("SELECT claim_id, split FROM splits")}


def add_splits(wh: Warehouse, assignments: dict[str, str], *, seed: int, now: datetime) -> int:
    """Store new claims' splits; a claim already assigned keeps its split (never moves)."""
    rows = [{"claim_id": c, "split": s, "assigned_at": now, "seed": seed} for c, s in sorted(assignments.items())]
    with wh.transaction():
        return wh.insert_rows("splits", rows, on_conflict="ignore")


def dataset_rows(wh: Warehouse, split: str | None = None) -> Iterator[dict[str, Any]]:
    """Gold pairs of the dataset (one split or all), in export order: split, claim, article rank.

    Each row carries its article's whole text, and all of them can be larger than memory, so the
    rows are sorted without the texts and come in batches, each given its articles' texts as it is
    read. How long the texts are is known only once they are read, so the first batch is one row and
    each next one is sized by the texts of the one before (:func:`_next_batch_rows`). Close the
    iterator if it is left before its end (its cursor stays open)."""
    rows = wh.iter_rows(load_sql("dataset_rows"), {"split": split}, batch_size=DATASET_BATCH_ROWS)
    try:
        size = 1
        while batch := list(islice(rows, size)):
            chars = yield from _with_article_texts(wh, batch)
            size = _next_batch_rows(len(batch), chars)
    finally:
        rows.close()


def _with_article_texts(wh: Warehouse, batch: list[dict[str, Any]]) -> Generator[dict[str, Any], None, int]:
    """The batch's rows, each with its article's text; returns the characters of the texts read. The
    texts are let go once the batch's rows are all taken, before the next batch's are read (two batches'
    texts were held at once)."""
    texts = _article_texts(wh, {row["article_id"] for row in batch})
    for row in batch:
        yield {**row, "article": texts[row["article_id"]]}
    return sum(map(len, texts.values()))


def _next_batch_rows(rows: int, chars: int) -> int:
    """Rows of the next batch: as many as :data:`DATASET_BATCH_CHARS` holds at this batch's characters
    per row, at least one, and at most twice this batch's rows (a batch of short texts says little of
    the next) and :data:`DATASET_BATCH_ROWS`."""
    fit = DATASET_BATCH_CHARS * rows // chars if chars else DATASET_BATCH_ROWS
    return max(1, min(fit, 2 * rows, DATASET_BATCH_ROWS))


def _article_texts(wh: Warehouse, article_ids: set[str]) -> dict[str, str]:
    """article_id -> text ('' for none) of the given articles."""
    rows = rows_by_keys(wh, load_sql("dataset_article_texts"), article_ids)
    return {row["article_id"]: row["article"] for row in rows}


def load_dataset_rows(
    wh: Warehouse,
    claims: Sequence[dict[str, Any]],
    articles: Sequence[dict[str, Any]],
    pairs: Sequence[dict[str, Any]],
    gold: Sequence[dict[str, Any]],
    splits: Sequence[dict[str, Any]],
) -> tuple[int, int, int, int, int]:
    """Store a loaded dataset in one transaction, keeping rows already present; new rows per table.

    The claims arrive with their documents, so their retrieval is recorded as done: the next
    retrieval run must not search the web (and spend quota) for them.
    """
    now = max((c["first_seen"] for c in claims), default=None)
    retrieval = [{"claim_id": c["claim_id"], "backend": "dataset", "status": "done", "updated_at": now}
                 for c in claims]
    with wh.transaction():
        counts = (
            wh.insert_rows("claims", claims),
            wh.insert_rows("articles", articles),
            wh.insert_rows("claim_article_pairs", pairs),
            wh.insert_rows("gold_labels", [{**g, "stored_at": gold_write_time()} for g in gold]),
            wh.insert_rows("splits", splits),
        )
        wh.insert_rows("claim_retrieval", retrieval)
        return counts
