"""Near-duplicate clusters kept current incrementally: new claims are matched against an index.

Re-clustering every stored claim on every load grows faster than the warehouse. Instead a load
looks its new texts up in a prefix-filtering index of the stored ones (``near_duplicate_*``
tables): every stored text's first ``|A| - ceil(t|A|) + 1`` shingles under one fixed order
(rarest first by frequencies frozen when the index was built, then by hash; unseen shingles
count as rarest). Two texts with Jaccard >= t share a shingle among those prefixes whatever the
order, as long as both use the same one, so the lookup misses no pair. Each prefix shingle keeps
its position and its text's size, so the lookup drops pairs by PPJoin's size and positional
bounds; the pairs left are verified by their exact Jaccard similarity. Stored texts are shared
by many prefixes (a third of the warehouse were candidates), but few are true near duplicates.

The verified matches' whole clusters, the stored claims with a new claim's exact text and the
new claims are then re-clustered with :func:`tasks.dedup.cluster_claims`. That gives the rows
the full re-cluster would: adding texts only adds edges at the new texts, so a component of the
new graph is the new texts it holds plus the old components they reach through verified edges,
and those are exactly the claims re-clustered.

The index is trusted only while it matches: a fingerprint of every claim deduplication reads
(ids, texts, dates, which claims are excluded) and the settings are stored with it, and any
change made elsewhere (an override, a re-crawl that edits a claim) sends the next load back to
a full re-cluster, which rebuilds the index. Which of the two a load takes is decided in
:func:`tasks.claim_load.clusters.refresh_clusters`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from arastance.logging import get_logger
from tasks.dedup import cluster_claims, pair_jaccard, shingle_hashes, shingle_matrix
from warehouse import Warehouse
from warehouse import claims as claims_db
from warehouse import near_duplicates as index_db

log = get_logger(__name__)


def _distinct_shingles(texts: list[str], shingle_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, hashes)``: each text's distinct shingle hashes, sorted by row then hash."""
    rows, hashes = shingle_hashes(texts, shingle_size)
    order = np.lexsort((hashes, rows))
    rows, hashes = rows[order], hashes[order]
    keep = np.ones(rows.size, dtype=bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (hashes[1:] != hashes[:-1])
    return rows[keep], hashes[keep]


def prefix_table(rows: np.ndarray, hashes: np.ndarray, df: np.ndarray, keys: np.ndarray, threshold: float) -> pa.Table:
    """``(shingle, text_key, position, text_size)`` of each text's prefix: its ``|A| - ceil(t|A|) + 1``
    first shingles by (df, hash), their positions there and the text's number of distinct shingles."""
    n = keys.size
    order = np.lexsort((hashes, df, rows))
    rows, hashes = rows[order], hashes[order]
    sizes = np.bincount(rows, minlength=n).astype(np.int64)
    prefix_len = sizes - np.ceil(threshold * sizes - 1e-9).astype(np.int64) + 1
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    position = np.arange(rows.size) - starts[rows]
    keep = position < prefix_len[rows]
    return pa.table({
        "shingle": pa.array(hashes[keep], pa.uint64()), "text_key": pa.array(keys[rows[keep]], pa.uint64()),
        "position": pa.array(position[keep], pa.int32()), "text_size": pa.array(sizes[rows[keep]], pa.int32()),
    })


def rebuild_clusters(wh: Warehouse, veracity: str, *, threshold: float, shingle_size: int) -> tuple[int, int]:
    """Re-cluster every stored claim of ``veracity`` and rebuild its index.

    Returns ``(claims in clusters, new or changed cluster rows)``.
    """
    ids, texts = claims_db.cluster_input(wh, veracity)
    members = cluster_claims(ids, texts, threshold=threshold, shingle_size=shingle_size)
    rows = [{"claim_id": m.claim_id, "cluster_id": m.cluster_id, "similarity": m.similarity, "method": m.method}
            for m in members]
    changed = claims_db.replace_clusters(wh, veracity, rows)
    rebuild_index(wh, veracity, threshold=threshold, shingle_size=shingle_size)
    return len(rows), changed


def rebuild_index(wh: Warehouse, veracity: str, *, threshold: float, shingle_size: int) -> None:
    """Index every stored text of ``veracity`` afresh (frequencies frozen now); ``claim_clusters`` must be current."""
    distinct, keys = index_db.all_texts(wh, veracity)
    text_rows, hashes = _distinct_shingles(distinct, shingle_size)
    shingles, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    df_table = pa.table({"shingle": pa.array(shingles, pa.uint64()), "df": pa.array(counts.astype(np.int32))})
    prefixes = prefix_table(text_rows, hashes, counts[inverse.ravel()], keys, threshold)
    index_db.rebuild(wh, veracity, df_table, prefixes, threshold=threshold, shingle_size=shingle_size)


def add_claims(wh: Warehouse, veracity: str, new_claim_ids: list[str], *, threshold: float, shingle_size: int) -> tuple[int, int]:
    """Cluster newly stored claims against the index; the result equals a full re-cluster.

    Call only when :func:`warehouse.near_duplicates.is_current` held before the claims were
    written and no stored claim changed. Returns ``(claims in clusters, new or changed cluster rows)``.
    """
    texts, keys = index_db.new_texts(wh, veracity, new_claim_ids)
    rows, hashes = _distinct_shingles(texts, shingle_size)
    prefixes = prefix_table(rows, hashes, index_db.frozen_df(wh, veracity, hashes), keys, threshold)
    new_keys, stored_keys = index_db.candidate_pairs(wh, veracity, prefixes, threshold)
    matches = _verified(wh, veracity, texts, keys, new_keys, stored_keys, threshold=threshold, shingle_size=shingle_size)
    ids, affected_texts = index_db.affected_claims(wh, veracity, matches, new_claim_ids)
    members = cluster_claims(ids, affected_texts, threshold=threshold, shingle_size=shingle_size)
    cluster_rows = [{"claim_id": m.claim_id, "cluster_id": m.cluster_id, "similarity": m.similarity, "method": m.method}
                    for m in members]
    changed = index_db.replace_cluster_rows(wh, ids, cluster_rows)
    index_db.add_prefixes(wh, veracity, prefixes, new_claim_ids)
    log.info("near-duplicates matched incrementally", extra={
        "veracity": veracity, "new_claims": len(new_claim_ids), "new_texts": len(texts),
        "candidate_pairs": int(new_keys.size), "matched_texts": int(matches.size), "reclustered_claims": len(ids),
        "changed_rows": changed,
    })
    return index_db.clustered_claims(wh, veracity), changed


def _verified(
    wh: Warehouse, veracity: str, texts: list[str], keys: np.ndarray, new_keys: np.ndarray, stored_keys: np.ndarray,
    *, threshold: float, shingle_size: int,
) -> np.ndarray:
    """Keys of the stored texts whose Jaccard similarity with a new text reaches ``threshold``.

    ``texts`` and ``keys``: the new texts, by key; ``(new_keys, stored_keys)``: the candidate pairs.
    """
    if new_keys.size == 0:
        return np.empty(0, dtype=np.uint64)
    found, stored_texts = index_db.texts_of(wh, veracity, stored_keys)
    x = shingle_matrix(texts + stored_texts, shingle_size)
    left = np.searchsorted(keys, new_keys)
    right = np.searchsorted(found, stored_keys)
    known = right < found.size
    known[known] = found[right[known]] == stored_keys[known]
    left, right = left[known], right[known] + len(texts)
    similar = pair_jaccard(x, np.diff(x.indptr).astype(np.float64), left, right) >= threshold - 1e-9
    return np.unique(found[right[similar] - len(texts)])
