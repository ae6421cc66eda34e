"""The near-duplicate index's reads and writes (tables of migration 061) and the cluster rows it touches."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa

from warehouse.connection import Warehouse
from warehouse.sql import load_sql

#: The claims deduplication reads, as in :data:`warehouse.claims._CLUSTER_INPUT`.
_CLUSTERED = "veracity = ? AND status <> 'excluded' AND coalesce(normalized_text, '') <> ''"
_TEXT_KEY = "('0x' || left(content_hash, 16))::UBIGINT"

_FINGERPRINT = f"""
SELECT coalesce(bit_xor(hash(claim_id, normalized_text, published_date)), 0)::UBIGINT
FROM claims WHERE {_CLUSTERED}
"""

#: The new claims' share of the fingerprint (bit_xor is its own inverse: adding them is one XOR).
_NEW_FINGERPRINT = _FINGERPRINT + "AND claim_id IN (SELECT claim_id FROM __new)"

_STATE = "SELECT threshold, shingle_size, fingerprint FROM near_duplicate_index_state WHERE veracity = ?"

_TOUCH_STATE = """
UPDATE near_duplicate_index_state SET fingerprint = xor(fingerprint, ?::UBIGINT), updated_at = ? WHERE veracity = ?
"""

_INSERT_PREFIXES = """
INSERT INTO near_duplicate_prefixes (veracity, shingle, text_key, position, text_size)
SELECT ?, shingle, text_key, position, text_size FROM __prefixes
"""

_DF_OF = """
SELECT coalesce(d.df, 0) AS df FROM __probe p
LEFT JOIN near_duplicate_shingle_df d ON d.veracity = ? AND d.shingle = p.shingle
ORDER BY p.i
"""

_CANDIDATE_PAIRS = load_sql("near_duplicates_candidate_pairs")

_TEXTS_OF_KEYS = f"""
SELECT DISTINCT text_key, normalized_text
FROM (SELECT {_TEXT_KEY} AS text_key, normalized_text FROM claims WHERE {_CLUSTERED})
WHERE text_key IN (SELECT text_key FROM __keys) ORDER BY text_key
"""

_AFFECTED_CLAIMS = load_sql("near_duplicates_affected_claims").format(clustered=_CLUSTERED, text_key=_TEXT_KEY)

_NEW_TEXTS = load_sql("near_duplicates_new_texts").format(clustered=_CLUSTERED, text_key=_TEXT_KEY)

_ALL_TEXTS = f"SELECT DISTINCT normalized_text, {_TEXT_KEY} AS text_key FROM claims WHERE {_CLUSTERED} ORDER BY text_key"


def fingerprint(wh: Warehouse, veracity: str) -> int:
    """A fingerprint of every claim that deduplication reads (ids, texts, dates)."""
    return int(wh.scalar(_FINGERPRINT, [veracity]))


def is_current(wh: Warehouse, veracity: str, *, threshold: float, shingle_size: int) -> bool:
    """Whether the index and ``claim_clusters`` match the stored claims and these settings."""
    rows = wh.con.execute(_STATE, [veracity]).fetchall()
    if not rows:
        return False
    stored_threshold, stored_size, stored_fingerprint = rows[0]
    return (stored_threshold == threshold and stored_size == shingle_size
            and int(stored_fingerprint) == fingerprint(wh, veracity))


def all_texts(wh: Warehouse, veracity: str) -> tuple[list[str], np.ndarray]:
    """Every distinct clustered text of ``veracity`` and its key."""
    table = wh.con.execute(_ALL_TEXTS, [veracity]).fetch_arrow_table()
    return table.column("normalized_text").to_pylist(), table.column("text_key").to_numpy()


def new_texts(wh: Warehouse, veracity: str, new_claim_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The distinct texts of ``new_claim_ids`` that the index does not hold yet, and their keys."""
    with wh.registered(__new=pa.table({"claim_id": pa.array(list(new_claim_ids), pa.string())})):
        table = wh.con.execute(_NEW_TEXTS, [veracity, veracity]).fetch_arrow_table()
    return table.column("normalized_text").to_pylist(), table.column("text_key").to_numpy()


def rebuild(wh: Warehouse, veracity: str, df: pa.Table, prefixes: pa.Table, *, threshold: float, shingle_size: int) -> None:
    """Replace the veracity's index (``df``: shingle, df; ``prefixes``: shingle, text_key, position, text_size)."""
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    wh.con.execute("DELETE FROM near_duplicate_shingle_df WHERE veracity = ?", [veracity])
    wh.con.execute("DELETE FROM near_duplicate_prefixes WHERE veracity = ?", [veracity])
    with wh.registered(__df=df, __prefixes=prefixes):
        wh.con.execute("INSERT INTO near_duplicate_shingle_df SELECT ?, shingle, df FROM __df", [veracity])
        wh.con.execute(_INSERT_PREFIXES, [veracity])
    wh.con.execute("DELETE FROM near_duplicate_index_state WHERE veracity = ?", [veracity])  # no upsert: DuckLake has no keys
    wh.con.execute("INSERT INTO near_duplicate_index_state VALUES (?, ?, ?, ?, ?, ?)",
                   [veracity, threshold, shingle_size, fingerprint(wh, veracity), now, now])


def frozen_df(wh: Warehouse, veracity: str, shingles: np.ndarray) -> np.ndarray:
    """The frozen document frequency of each shingle (0 for one unseen when the index was built)."""
    probe = pa.table({"i": pa.array(np.arange(shingles.size)), "shingle": pa.array(shingles, pa.uint64())})
    with wh.registered(__probe=probe):
        return wh.con.execute(_DF_OF, [veracity]).fetch_arrow_table().column("df").to_numpy()


def candidate_pairs(wh: Warehouse, veracity: str, probe: pa.Table, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """``(new text's key, stored text's key)`` of the pairs that pass the size and positional bounds.

    ``probe``: the new texts' prefix shingles (shingle, text_key, position, text_size).
    """
    with wh.registered(__probe=probe):
        params = [veracity, threshold, threshold, threshold / (1 + threshold)]
        table = wh.con.execute(_CANDIDATE_PAIRS, params).fetch_arrow_table()
    return table.column("new_key").to_numpy(), table.column("text_key").to_numpy()


def texts_of(wh: Warehouse, veracity: str, text_keys: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """``(text_key, normalized_text)`` of the stored texts with these keys, in key order."""
    keys = pa.table({"text_key": pa.array(np.unique(text_keys), pa.uint64())})
    with wh.registered(__keys=keys):
        table = wh.con.execute(_TEXTS_OF_KEYS, [veracity]).fetch_arrow_table()
    return table.column("text_key").to_numpy(), table.column("normalized_text").to_pylist()


def add_prefixes(wh: Warehouse, veracity: str, prefixes: pa.Table, new_claim_ids: Sequence[str]) -> None:
    """Add new texts' prefixes and record that the index now matches the stored claims.

    The claims stored before did not change (the caller's precondition), so the stored
    fingerprint takes the new claims' share instead of hashing every claim again.
    """
    new = pa.table({"claim_id": pa.array(list(new_claim_ids), pa.string())})
    with wh.registered(__prefixes=prefixes, __new=new):
        wh.con.execute(_INSERT_PREFIXES, [veracity])
        added = int(wh.scalar(_NEW_FINGERPRINT, [veracity]))
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    wh.con.execute(_TOUCH_STATE, [added, now, veracity])


def affected_claims(wh: Warehouse, veracity: str, text_keys: np.ndarray, new_claim_ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(claim_ids, texts)`` in representative order: the new claims, the claims whose text is one
    of ``text_keys`` or a new claim's, and every claim sharing a cluster with any of them."""
    keys = pa.table({"text_key": pa.array(np.asarray(text_keys, dtype=np.uint64), pa.uint64())})
    new = pa.table({"claim_id": pa.array(list(new_claim_ids), pa.string())})
    with wh.registered(__keys=keys, __new=new):
        rows = wh.con.execute(_AFFECTED_CLAIMS, [veracity, veracity]).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows]


def replace_cluster_rows(wh: Warehouse, claim_ids: Sequence[str], rows: Sequence[dict[str, Any]]) -> int:
    """Make the ``claim_clusters`` rows of ``claim_ids`` equal ``rows``; return how many are new or changed."""
    ids = pa.table({"claim_id": pa.array(list(claim_ids), pa.string())})
    new = pa.Table.from_pylist(list(rows), schema=pa.schema([
        ("claim_id", pa.string()), ("cluster_id", pa.string()), ("similarity", pa.float64()), ("method", pa.string())]))
    with wh.registered(__ids=ids, __rows=new):
        changed = int(wh.scalar(
            "SELECT count(*) FROM __rows n LEFT JOIN claim_clusters c USING (claim_id) "
            "WHERE c.claim_id IS NULL OR c.cluster_id <> n.cluster_id OR c.similarity IS DISTINCT FROM n.similarity "
            "OR c.method <> n.method"
        ))
        wh.con.execute("DELETE FROM claim_clusters WHERE claim_id IN (SELECT claim_id FROM __ids)")
        wh.con.execute("INSERT INTO claim_clusters (claim_id, cluster_id, similarity, method) "
                       "SELECT claim_id, cluster_id, similarity, method FROM __rows")
    return changed


def clustered_claims(wh: Warehouse, veracity: str) -> int:
    """How many claims of ``veracity`` are in a duplicate cluster."""
    return int(wh.scalar(
        "SELECT count(*) FROM claim_clusters JOIN claims USING (claim_id) WHERE claims.veracity = ?", [veracity]))
