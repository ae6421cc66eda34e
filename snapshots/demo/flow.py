"""The demo: the whole pipeline on the offline world, with simulated annotators in the middle.

Production runs ``arastance_pipeline`` on a schedule and people annotate between runs; the demo
does both in one go so that every stage has real work.

The flow lives in the demo layer, not in ``flows/``: it wires the invented world into the
production flows, and ``flows/`` holds only what production schedules. No deployment in
``prefect.yaml`` runs it (``arastance demo`` calls it in process), so no entry point needs it there.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE

from arastance.config import load_settings
from flows.pipeline import arastance_pipeline
from snapshots.demo.stages import build_world_index, simulate_annotation
from snapshots.offline import offline_world


@task(cache_policy=NO_CACHE)
def index_world() -> int:
    """Build the local search index over the world's news articles."""
    return build_world_index(load_settings())


@task(cache_policy=NO_CACHE)
def annotate_with_simulated_annotators(seed: int) -> dict[str, Any]:
    """Pilot, production and adjudication rounds by three simulated annotators."""
    return simulate_annotation(load_settings(), seed=seed)


@flow(name="arastance_demo", validate_parameters=True)
def arastance_demo(retrieve_limit: int | None = None, annotation_seed: int = 0) -> dict[str, Any]:
    """Run every stage on the offline snapshot world and return what each one did.

    Args:
        retrieve_limit: at most this many claims get documents (default: all of them).
        annotation_seed: seed of the simulated annotators.
    """
    with offline_world():
        documents = index_world()
        collected = arastance_pipeline(stages=["crawl", "select", "retrieve"], retrieve_limit=retrieve_limit)
        campaign = annotate_with_simulated_annotators(annotation_seed)
        modelled = arastance_pipeline(stages=["dataset", "train"], train="always")
    create_table_artifact([{"round": r, "kappa": k} for r, k in campaign["kappa"].items()],
                          key="arastance-demo-annotation", description="simulated annotation rounds")
    return {"indexed_documents": documents, "stages": collected + modelled, "annotation": campaign}
