"""Prefect flow ``clean_lake``: free a DuckLake's storage on a schedule.

A DuckLake deletes no data file by itself, so its data path grows by every rewritten row and every
write killed before its commit. Deployed weekly (``prefect.yaml``: ``clean-lake-weekly``, its schedule
off until an operator of a DuckLake turns it on: a DuckDB warehouse file has nothing to clean). The
flow only orchestrates; the work is :func:`warehouse.lake_cleanup.clean_configured_lake`.
"""

from __future__ import annotations

from typing import Annotated, Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from pydantic import Field

from arastance.config import load_settings
from arastance.logging import get_logger
from flows.artifacts import table_artifact
from warehouse.lake_cleanup import LakeCleanup, clean_configured_lake

log = get_logger(__name__)


@task(cache_policy=NO_CACHE)
def expire_and_delete(keep_days: int, dry_run: bool, delete_unreferenced: bool) -> LakeCleanup:
    """Expire the old snapshots and delete what no snapshot reads, under the lake's write lock (a writer
    waits for it, as for any writer; nothing is retried: a second pass would only wait as long)."""
    return clean_configured_lake(load_settings(), keep_days, dry_run=dry_run, delete_unreferenced=delete_unreferenced)


@flow(name="clean_lake", validate_parameters=True)
def clean_lake(keep_days: Annotated[int, Field(ge=1)] = 7, dry_run: bool = False,
               delete_unreferenced: bool = False) -> dict[str, Any]:
    """Free the configured DuckLake's storage; publish what was expired and deleted.

    Args:
        keep_days: keep every snapshot of the last this many days, and the one current before them (at
            least 1: a reader that began on a snapshot of the last day must not meet a deleted file).
        dry_run: say what would be expired and deleted; change nothing.
        delete_unreferenced: also delete the lake's own files that no snapshot uses (a copy or load killed
            before its commit), over an hour old; only where this lake alone writes its data path (a second
            catalog's files there look unreferenced to this one).
    """
    done = expire_and_delete(keep_days, dry_run, delete_unreferenced)
    log.info(done.summary())
    table_artifact([{"figure": "snapshots expired", "value": done.snapshots},
                    {"figure": "files only they used, deleted", "value": len(done.old_files)},
                    {"figure": "files no snapshot uses, deleted", "value": len(done.unreferenced_files)},
                    {"figure": "MB freed", "value": round(done.bytes / 1e6, 1)}],
                   key="lake-cleanup", description=("dry run: nothing changed; " if dry_run else "") + done.location)
    return {"snapshots": done.snapshots, "old_files": len(done.old_files),
            "unreferenced_files": len(done.unreferenced_files), "bytes": done.bytes, "dry_run": dry_run}
