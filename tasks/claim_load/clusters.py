"""Duplicate clusters of the stored claims, brought up to date after a load wrote its claims.

Clusters span runs and sites, so they are a function of every stored claim, not of the run just
loaded. A load that only added a few claims matches them against the near-duplicate index
(:func:`tasks.dedup_index.add_claims`), which gives the rows a full re-cluster would; anything
else re-clusters the whole veracity and rebuilds the index (:func:`tasks.dedup_index.rebuild_clusters`).
Both loads of claims decide here: a crawl run's (:mod:`tasks.claim_load.load`) and a dataset's
(:mod:`tasks.dataset.load_export`).
"""

from __future__ import annotations

from tasks import dedup_index
from warehouse import Warehouse
from warehouse import claims as claims_db

#: Above this share of new texts a full re-cluster is cheaper than the lookups.
INCREMENTAL_MAX_SHARE = 0.25


def refresh_clusters(
    wh: Warehouse, veracity: str, *, new_claim_ids: list[str], changed_claims: int, index_current: bool,
    threshold: float, shingle_size: int,
) -> tuple[int, int]:
    """Bring ``claim_clusters`` of ``veracity`` up to date after a load wrote its claims.

    Incremental when the index was current before the load (:func:`warehouse.near_duplicates.is_current`),
    no stored claim changed and the new texts are a small share; otherwise a full re-cluster that
    rebuilds the index. Returns ``(claims in clusters, new or changed cluster rows)``.
    """
    stored = claims_db.claim_count(wh, veracity)
    if index_current and changed_claims == 0 and len(new_claim_ids) <= INCREMENTAL_MAX_SHARE * stored:
        return dedup_index.add_claims(wh, veracity, new_claim_ids, threshold=threshold, shingle_size=shingle_size)
    return dedup_index.rebuild_clusters(wh, veracity, threshold=threshold, shingle_size=shingle_size)
