"""Claims, raw pages, crawl runs and duplicate clusters: the crawl loader's reads and writes.

Every write is idempotent: loading the same rows again adds nothing. Claims are upserted on
their natural key (source, canonical URL): ``first_seen`` and its ``run_id`` only move back (a
re-crawl keeps them), ``last_seen`` only moves forward, and the content columns take the values of the most recent
fetch, so loading an old run after a newer one never rolls a claim back. Batches travel as Arrow
tables and new rows are found by anti-joins, which keeps 100k-row re-crawls to seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from warehouse.claim_urls import stored_ids
from warehouse.connection import Warehouse, WarehouseError
from warehouse.sql import load_sql

#: Columns of ``claims`` that follow the latest fetch.
CLAIM_CONTENT_COLUMNS = (
    "url", "title", "raw_text", "cleaned_text", "normalized_text", "body_text", "veracity",
    "published_date", "published_raw", "category", "is_multimedia", "claim_review", "content_hash",
    "status", "status_reason", "page_id", "field_layers",
)
CLAIM_COLUMNS = ("claim_id", "source_id", "canonical_url", *CLAIM_CONTENT_COLUMNS, "first_seen", "last_seen", "run_id")

_PAGES_SCHEMA = pa.schema(
    [
        ("page_id", pa.string()), ("url", pa.string()), ("source_id", pa.string()), ("run_id", pa.string()),
        ("fetched_at", pa.timestamp("us")), ("http_status", pa.int32()), ("content_hash", pa.string()),
        ("html_zlib", pa.binary()), ("parse_status", pa.string()), ("parse_error", pa.string()),
        ("original_url", pa.string()), ("captured_at", pa.timestamp("us")),
    ]
)

_CLAIMS_SCHEMA = pa.schema(
    [
        ("claim_id", pa.string()), ("source_id", pa.string()), ("canonical_url", pa.string()),
        ("url", pa.string()), ("title", pa.string()), ("raw_text", pa.string()), ("cleaned_text", pa.string()),
        ("normalized_text", pa.string()), ("body_text", pa.string()), ("veracity", pa.string()),
        ("published_date", pa.date32()), ("published_raw", pa.string()), ("category", pa.string()),
        ("is_multimedia", pa.bool_()), ("claim_review", pa.string()), ("content_hash", pa.string()),
        ("status", pa.string()), ("status_reason", pa.string()), ("page_id", pa.string()),
        ("field_layers", pa.string()),
        ("first_seen", pa.timestamp("us")), ("last_seen", pa.timestamp("us")), ("run_id", pa.string()),
    ]
)


_INSERT_NEW_CLAIMS = (
    f"INSERT INTO claims ({', '.join(CLAIM_COLUMNS)}) "
    f"SELECT {', '.join(CLAIM_COLUMNS)} FROM __claims WHERE claim_id NOT IN (SELECT claim_id FROM claims)"
)

# Known claims follow a later fetch: content takes its values, last_seen moves forward. Rows
# that would not change are not touched, so loading a run again writes nothing.
_REFRESH_KNOWN_CLAIMS = (
    "UPDATE claims SET "
    + ", ".join(f"{c} = b.{c}" for c in CLAIM_CONTENT_COLUMNS)
    + ", last_seen = b.last_seen FROM __claims b "
    "WHERE claims.claim_id = b.claim_id AND b.last_seen >= claims.last_seen AND (b.last_seen > claims.last_seen OR "
    + " OR ".join(f"claims.{c} IS DISTINCT FROM b.{c}" for c in CLAIM_CONTENT_COLUMNS)
    + ")"
)

# A run older than anything stored (loaded late) moves first_seen back to when it saw the claim.
_BACKDATE_FIRST_SEEN = """
UPDATE claims SET first_seen = b.first_seen, run_id = b.run_id
FROM __claims b WHERE claims.claim_id = b.claim_id AND b.first_seen < claims.first_seen
"""

_NEW_PAGE_IDS = "SELECT DISTINCT page_id FROM __pages WHERE page_id NOT IN (SELECT page_id FROM raw_pages)"

# Keyed by the id asked for: a re-keyed claim's override is found under the id a load computes for it.
_OVERRIDES_FOR = (
    "SELECT i.claim_id, o.cleaned_text FROM __ids i LEFT JOIN claim_former_urls f ON f.key_id = i.claim_id "
    "JOIN claim_overrides o ON o.claim_id = coalesce(f.claim_id, i.claim_id)"
)

# Batch rows that would change what deduplication sees (new claims, or a new text/status/date).
_CLUSTER_INPUT_CHANGES = """
SELECT b.claim_id, b.veracity, c.claim_id IS NULL AS is_new FROM __claims b LEFT JOIN claims c USING (claim_id)
WHERE c.claim_id IS NULL OR c.normalized_text IS DISTINCT FROM b.normalized_text
   OR c.status IS DISTINCT FROM b.status OR c.published_date IS DISTINCT FROM b.published_date
"""

_CLAIM_FOR_OVERRIDE = "SELECT claim_id, status, status_reason FROM claims WHERE claim_id = ?"

_APPLY_OVERRIDE = """
UPDATE claims SET status = 'active', status_reason = 'override', normalized_text = ?, content_hash = ?
WHERE claim_id = ?
"""

_KNOWN_SOURCES = "SELECT source_id FROM sources UNION SELECT DISTINCT source_id FROM claims ORDER BY source_id"

_OVERRIDES = """
SELECT o.claim_id, o.cleaned_text AS override_text, c.cleaned_text AS rule_text, o.reviewer, o.reviewed_at, o.note
FROM claim_overrides o LEFT JOIN claims c USING (claim_id)
ORDER BY o.reviewed_at DESC, o.claim_id
"""


def ensure_sources(wh: Warehouse, sources: Sequence[Mapping[str, Any]]) -> int:
    """Add the crawled sites to ``sources`` (existing rows are kept); return how many are new."""
    return wh.insert_rows("sources", list(sources), on_conflict="ignore")


def run_is_loaded(wh: Warehouse, run_id: str) -> bool:
    return bool(loaded_run_ids(wh, [run_id]))


def loaded_run_ids(wh: Warehouse, run_ids: Sequence[str]) -> set[str]:
    """Those of ``run_ids`` whose staging run the warehouse has loaded."""
    if not run_ids:
        return set()
    rows = wh.query("SELECT run_id FROM crawl_runs WHERE list_contains(?, run_id)", [list(run_ids)])
    return {row["run_id"] for row in rows}


def insert_crawl_run(wh: Warehouse, row: Mapping[str, Any]) -> int:
    """Record a crawl run once; a run loaded before keeps its original counts."""
    return wh.insert_rows("crawl_runs", [row], on_conflict="ignore")


def insert_raw_pages(wh: Warehouse, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Store fetched pages and return the ids of those that were new; a page with the same URL and
    content is stored once.

    Known pages are filtered out by an anti-join first: DuckDB's per-row conflict handling is
    far slower than a join when a re-crawl brings back every page.
    """
    batch = pa.Table.from_pylist([dict(r) for r in rows], schema=_PAGES_SCHEMA)
    if batch.num_rows == 0:
        return []
    with wh.registered(__pages=batch):
        try:
            new = [r[0] for r in wh.con.execute(_NEW_PAGE_IDS).fetchall()]
            wh.con.execute(load_sql("claims_insert_new_pages"))
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot write {batch.num_rows} row(s) to 'raw_pages': {exc}") from exc
    return new


def known_page_ids(wh: Warehouse, page_ids: Sequence[str]) -> set[str]:
    """Which of ``page_ids`` are stored already (their bodies need not be read again)."""
    with wh.registered(__ids=pa.table({"page_id": pa.array(list(page_ids), pa.string())})):
        return {r[0] for r in wh.con.execute("SELECT page_id FROM raw_pages WHERE page_id IN (SELECT page_id FROM __ids)").fetchall()}


def known_claim_ids(wh: Warehouse, claim_ids: Sequence[str]) -> set[str]:
    """Which of ``claim_ids`` are stored already."""
    with wh.registered(__ids=pa.table({"claim_id": pa.array(list(claim_ids), pa.string())})):
        return {r[0] for r in wh.con.execute("SELECT claim_id FROM claims WHERE claim_id IN (SELECT claim_id FROM __ids)").fetchall()}


def delete_pages(wh: Warehouse, page_ids: Sequence[str]) -> None:
    """Remove pages by id (a load that failed takes back the pages it had added)."""
    with wh.registered(__ids=pa.table({"page_id": pa.array(list(page_ids), pa.string())})):
        wh.con.execute("DELETE FROM raw_pages WHERE page_id IN (SELECT page_id FROM __ids)")


def _insert_batch(wh: Warehouse, table: str, sql: str, name: str, batch: pa.Table) -> int:
    if batch.num_rows == 0:
        return 0
    before = int(wh.scalar(f"SELECT count(*) FROM {table}"))
    wh.con.register(name, batch)
    try:
        wh.con.execute(sql)
    except duckdb.Error as exc:
        raise WarehouseError(f"cannot write {batch.num_rows} row(s) to {table!r}: {exc}") from exc
    finally:
        wh.con.unregister(name)
    return int(wh.scalar(f"SELECT count(*) FROM {table}")) - before


def overrides_for(wh: Warehouse, claim_ids: Sequence[str]) -> dict[str, str]:
    """The reviewer's text for each of ``claim_ids`` that has one."""
    if not claim_ids:
        return {}
    wh.con.register("__ids", pa.table({"claim_id": pa.array(list(claim_ids), pa.string())}))
    try:
        return {r["claim_id"]: r["cleaned_text"] for r in wh.query(_OVERRIDES_FOR)}
    finally:
        wh.con.unregister("__ids")


def _as_stored(wh: Warehouse, batch: pa.Table) -> pa.Table:
    """``batch`` under the ids its claims are stored by, one row per claim.

    A claim re-keyed to today's canonical URL (:mod:`warehouse.claim_urls`) kept the id of its
    former URL; a load of the new spelling names it ``stable_id(source, new URL)``, which would
    insert it again and break ``UNIQUE (source_id, canonical_url)``. A claim met under both of its
    spellings in one batch is refreshed by the first.
    """
    staged = batch.column("claim_id").to_pylist()
    moved = stored_ids(wh, staged)
    if not moved:
        return batch
    ids = [moved.get(claim_id, claim_id) for claim_id in staged]
    first = sorted({claim_id: i for i, claim_id in reversed(list(enumerate(ids)))}.values())
    batch = batch.set_column(batch.schema.get_field_index("claim_id"), "claim_id", pa.array(ids, pa.string()))
    return batch.take(first)


def upsert_claims(wh: Warehouse, batch: pa.Table) -> int:
    """Insert new claims and refresh known ones from a later fetch; return how many are new."""
    batch = _as_stored(wh, batch)
    new = _insert_batch(wh, "claims", _INSERT_NEW_CLAIMS, "__claims", batch)
    if batch.num_rows:
        wh.con.register("__claims", batch)
        try:
            wh.con.execute(_REFRESH_KNOWN_CLAIMS)
            wh.con.execute(_BACKDATE_FIRST_SEEN)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot refresh {batch.num_rows} claim(s): {exc}") from exc
        finally:
            wh.con.unregister("__claims")
    return new


def claims_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """``claims`` rows as one Arrow batch, the form the writes below take."""
    return pa.Table.from_pylist([{c: r[c] for c in CLAIM_COLUMNS} for r in rows], schema=_CLAIMS_SCHEMA)


def cluster_input_changes(wh: Warehouse, batch: pa.Table) -> list[tuple[str, str, bool]]:
    """``(claim_id, veracity, is_new)`` of the batch rows (not yet written) that are new or change a
    text, status or date: what deduplication must look at again (a re-keyed claim under its kept id).

    A re-crawl of unchanged sites has none, and skips deduplication.
    """
    if batch.num_rows == 0:
        return []
    wh.con.register("__claims", _as_stored(wh, batch))
    try:
        return [(r[0], r[1], bool(r[2])) for r in wh.con.execute(_CLUSTER_INPUT_CHANGES).fetchall()]
    finally:
        wh.con.unregister("__claims")


def claim_count(wh: Warehouse, veracity: str) -> int:
    """Stored claims of ``veracity`` ('false' or 'true'), whatever their status."""
    return int(wh.scalar("SELECT count(*) FROM claims WHERE veracity = ?", [veracity]))


def cluster_input(wh: Warehouse, veracity: str) -> tuple[list[str], list[str]]:
    """``(claim_ids, normalized_texts)`` of the claims to deduplicate, in representative order.

    The earliest published claim (then the smallest id) represents its cluster, whatever the
    order in which runs were loaded.
    """
    rows = wh.con.execute(load_sql("claims_cluster_input"), [veracity]).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows]


def replace_clusters(wh: Warehouse, veracity: str, rows: Sequence[Mapping[str, Any]]) -> int:
    """Make ``claim_clusters`` for one veracity equal ``rows``; return how many rows are new or changed."""
    batch = pa.Table.from_pylist(
        [dict(r) for r in rows],
        schema=pa.schema([("claim_id", pa.string()), ("cluster_id", pa.string()), ("similarity", pa.float64()), ("method", pa.string())]),
    )
    wh.con.register("__clusters", batch)
    try:
        wh.con.execute(load_sql("claims_delete_stale_clusters"), [veracity])
    finally:
        wh.con.unregister("__clusters")
    return wh.insert_rows("claim_clusters", list(rows), on_conflict="ignore")


def review_queue(wh: Warehouse, *, source_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """Claims waiting for a reviewer, oldest first; an unknown ``source_id`` (a typo that would
    otherwise read as an empty queue) is a ValueError naming the known ones: the crawled sites, and
    the sources of claims loaded without a crawl (``dataset load``), which add no ``sources`` row."""
    if source_id is not None:
        known = [r["source_id"] for r in wh.query(_KNOWN_SOURCES)]
        if source_id not in known:
            raise ValueError(f"--source {source_id!r} is not a stored source; known: {', '.join(known) or 'none yet'}")
    return wh.query(load_sql("claims_review_queue"), [source_id, source_id, limit])


def set_override(
    wh: Warehouse,
    claim_id: str,
    text: str,
    *,
    normalized_text: str,
    content_hash: str,
    reviewer: str,
    reviewed_at: datetime,
    note: str | None = None,
) -> None:
    """Store a reviewer's claim text and make the claim active with it, in one transaction."""
    if not wh.query(_CLAIM_FOR_OVERRIDE, [claim_id]):
        raise WarehouseError(f"no claim with claim_id {claim_id!r}")
    with wh.transaction() as con:
        wh.insert_rows("claim_overrides", [{"claim_id": claim_id, "cleaned_text": text, "reviewer": reviewer,
                                            "reviewed_at": reviewed_at, "note": note}], on_conflict="update")
        con.execute(_APPLY_OVERRIDE, [normalized_text, content_hash, claim_id])


def list_overrides(wh: Warehouse) -> list[dict[str, Any]]:
    """Every override with the rule output it replaces, newest first."""
    return wh.query(_OVERRIDES)
