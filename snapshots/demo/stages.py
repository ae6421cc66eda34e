"""The demo's own stages: the world's stand-ins for the web search API and for human annotators.

The local BM25 index over the world's news articles plays the web, and the simulated annotators
label pairs whose files still go through the normal export and import path. The snapshot server
(the real sites' stand-in) is :func:`snapshots.offline.offline_world`.
"""

from __future__ import annotations

from typing import Any

from arastance.config import Settings
from snapshots.demo.campaign import run_demo_campaign, world_truth
from snapshots.world import build_world
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_warehouse


def build_world_index(settings: Settings) -> int:
    """Index the world's news articles, the demo's stand-in for the web; returns the document count."""
    index = LocalIndex.build(records_from_dicts(build_world().corpus_records()), settings.search_index_dir)
    return len(index)


def simulate_annotation(settings: Settings, seed: int = 0) -> dict[str, Any]:
    """Three simulated annotators label the retrieved pairs (pilot, production, adjudication)."""
    with open_warehouse(settings.warehouse) as wh:
        campaign = run_demo_campaign(
            wh, settings.annotation, world_truth(build_world()), settings.annotation_dir, seed=seed
        )
    return {
        "rounds": campaign.rounds,
        "annotations": campaign.annotations,
        "gold": campaign.gold,
        "disputed": campaign.disputed,
        "kappa": {r.round: None if r.kappa is None else round(r.kappa, 3) for r in campaign.reports},
    }
