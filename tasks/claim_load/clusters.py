"""Duplicate clusters of the stored claims, recomputed after a load changed their input."""

from __future__ import annotations

from tasks.dedup import cluster_claims
from warehouse import Warehouse
from warehouse import claims as claims_db


def refresh_clusters(wh: Warehouse, veracity: str, *, threshold: float, shingle_size: int) -> tuple[int, int]:
    """Recompute the duplicate clusters of one veracity over the whole warehouse.

    Returns ``(claims in clusters, new or changed cluster rows)``. Clusters span runs and sites,
    so they are a function of every stored claim, not of the run just loaded.
    """
    ids, texts = claims_db.cluster_input(wh, veracity)
    members = cluster_claims(ids, texts, threshold=threshold, shingle_size=shingle_size)
    rows = [
        {"claim_id": m.claim_id, "cluster_id": m.cluster_id, "similarity": m.similarity, "method": m.method}
        for m in members
    ]
    return len(rows), claims_db.replace_clusters(wh, veracity, rows)
