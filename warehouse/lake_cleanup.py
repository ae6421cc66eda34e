"""Freeing a DuckLake's storage: old snapshots expired, the files only they used deleted, and files no
snapshot ever used (a copy or load killed before its commit) deleted.

A DuckLake never deletes a data file by itself: every snapshot stays readable (time travel), so a
lake's data path only grows, by each rewrite of a row and each write that was killed. A DuckDB
warehouse file has no such files (its free blocks are reused).

The cleanup holds the catalog's write lock: every writer of this project writes its Parquet files
while holding it (:meth:`warehouse.ducklake.DuckLakeWarehouse.exclusive`), so a file not in the
catalog then is one no writer will commit. Snapshots are kept at least a day, so that a reader that
began on one of them (a long export) never meets a deleted file; an unreferenced file is kept for an
hour after it was last written, in case a writer from outside the project writes the lake.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from warehouse.connection import Warehouse, WarehouseError

#: Unreferenced files younger than this are kept: a writer outside the project may still commit them.
ORPHAN_AGE = timedelta(hours=1)


@dataclass(frozen=True)
class LakeCleanup:
    """What a cleanup expired and deleted (or, in a dry run, would have)."""

    snapshots: int
    old_files: list[str]
    unreferenced_files: list[str]
    bytes: int
    dry_run: bool


def clean_lake(lake: Warehouse, keep_days: int, *, dry_run: bool = False) -> LakeCleanup:
    """Expire the snapshots of ``lake`` older than ``keep_days`` days and delete the files only they
    used, and the unreferenced files older than :data:`ORPHAN_AGE`; a dry run deletes nothing.

    The expiry runs in a transaction whose listing of the files it frees is what a dry run reports
    (rolled back) and what a cleanup deletes (committed, then deleted): the files are sized before
    they go. The current snapshot is never expired, so every table reads as before.
    """
    if lake.backend != "ducklake":
        raise WarehouseError(f"{lake.location} is a DuckDB warehouse file, which keeps no old files (DuckDB reuses "
                             "its free blocks): cleaning is for a DuckLake (warehouse_backend = 'ducklake')")
    if keep_days < 1:
        raise WarehouseError(f"keep_days {keep_days} is below 1: a reader that began on a snapshot of the last day "
                             "could meet a deleted file")
    now = datetime.now(timezone.utc)
    expire_before, orphans_before = _timestamp(now - timedelta(days=keep_days)), _timestamp(now - ORPHAN_AGE)
    with lake.exclusive():  # type: ignore[attr-defined]  # a DuckLakeWarehouse, checked above
        lake.con.execute("BEGIN TRANSACTION")
        try:
            expired = lake.query(f"CALL ducklake_expire_snapshots('lake', older_than => {expire_before})")
            old = _paths(lake, "CALL ducklake_cleanup_old_files('lake', dry_run => true, cleanup_all => true)")
            unreferenced = _paths(lake, "CALL ducklake_delete_orphaned_files('lake', dry_run => true, "
                                        f"older_than => {orphans_before})")
        except BaseException:
            lake.con.execute("ROLLBACK")
            raise
        lake.con.execute("ROLLBACK" if dry_run else "COMMIT")
        freed = _sizes(old + unreferenced)
        if not dry_run:
            old = _paths(lake, "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)")
            unreferenced = _paths(lake, f"CALL ducklake_delete_orphaned_files('lake', older_than => {orphans_before})")
    return LakeCleanup(len(expired), old, unreferenced, freed, dry_run)


def _timestamp(moment: datetime) -> str:
    return f"TIMESTAMPTZ '{moment.isoformat()}'"


def _paths(lake: Warehouse, call: str) -> list[str]:
    return [row["path"] for row in lake.query(call)]


def _sizes(paths: list[str]) -> int:
    """The bytes the local files among ``paths`` hold (object-store paths are not counted)."""
    return sum(os.path.getsize(p) for p in paths if "://" not in p and os.path.isfile(p))
