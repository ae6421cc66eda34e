"""The offline demo world wired into the pipeline: snapshot server, local index, simulated annotators.

Everything here stands in for something outside the project in production: the real sites
(the snapshot server), a web search API (the local BM25 index over the world's news articles)
and human annotators (the simulator, whose files still go through the normal import path).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arastance.config import Settings
from arastance.config.crawl import LOOPBACK_CRAWL
from snapshots.build import SITES
from snapshots.server import SnapshotServer, serve_snapshots
from snapshots.world import build_world
from tasks.annotation.demo import run_demo_campaign, world_truth
from tasks.search.local import LocalIndex, records_from_dicts
from warehouse import open_warehouse


def offline_overrides(server: SnapshotServer) -> dict[str, str]:
    """Settings (as environment variables) that point every site and the article fetcher at
    ``server``, without the politeness delays that only real sites need."""
    env = {f"ARASTANCE_SITES__{site.upper()}": server.site_url(site) for site in SITES}
    env["ARASTANCE_SEARCH__MIRROR_BASE"] = server.base_url
    env["ARASTANCE_CRAWL__ARCHIVE_URL"] = server.archive_url  # Dabegad (live = false) is read from the archive
    env["ARASTANCE_CRAWL__ARCHIVE_AVAILABILITY_URL"] = server.availability_url
    env["ARASTANCE_SEARCH__BACKEND"] = "local"  # never spend a configured web API's quota on the demo
    env.update({f"ARASTANCE_CRAWL__{k.upper()}": str(v).lower() for k, v in LOOPBACK_CRAWL.items()})
    return env


@contextmanager
def offline_world() -> Iterator[SnapshotServer]:
    """Serve the snapshots for the duration of the block, with the settings pointing at them.

    Environment variables, not a settings object, carry the addresses: every task reloads its
    settings, and spider subprocesses inherit the environment.
    """
    with serve_snapshots() as server:
        overrides = offline_overrides(server)
        saved = {key: os.environ.get(key) for key in overrides}
        os.environ.update(overrides)
        try:
            yield server
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


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
