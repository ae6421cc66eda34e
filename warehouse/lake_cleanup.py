"""Freeing a DuckLake's storage: old snapshots expired, the files only they used deleted, and, where asked,
the lake's own files that no snapshot ever used (a copy or load killed before its commit) deleted.

A DuckLake never deletes a data file by itself: every snapshot stays readable (time travel), so a
lake's data path only grows, by each rewrite of a row and each write that was killed. A DuckDB
warehouse file has no such files (its free blocks are reused).

The cleanup holds the catalog's write lock: every writer of this project writes its Parquet files
while holding it (:meth:`warehouse.ducklake.DuckLakeWarehouse.exclusive`), so a file not in the
catalog then is one no writer will commit. What a reader may still read is kept: every snapshot of
the days kept, and the one that was current when they began (a reader that began on it, however
old it is, may still be reading its files). The files of expired snapshots are the catalog's own
record, safe to delete whatever else shares the data path. A file no snapshot uses is not: a second
catalog whose data path is the same one writes files of the same names into the same table folders,
and its live data looked unreferenced to this one. So unreferenced files are deleted only when asked
(the operator knows that this lake alone writes its data path), and then only the lake's own by their
name (``ducklake-*.parquet``) in a table's folder (DuckLake's own orphan deletion took every Parquet
file under the data path that its catalog did not list, a backup there included), last written over
an hour ago (a writer from outside the project may still commit a younger one), on a local data path.
"""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from warehouse.connection import Warehouse, WarehouseError, one_line
from warehouse.sql import load_sql

if TYPE_CHECKING:
    from arastance.config import Settings

#: Unreferenced files younger than this are kept: a writer outside the project may still commit them.
ORPHAN_AGE = timedelta(hours=1)


@dataclass(frozen=True)
class LakeCleanup:
    """What a cleanup expired and deleted (or, in a dry run, would have)."""

    location: str
    keep_days: int
    snapshots: int
    old_files: list[str]
    unreferenced_files: list[str]
    bytes: int
    dry_run: bool
    unreferenced_asked: bool

    def summary(self) -> str:
        """One line of what was done (or would be), for the command and the flow's log."""
        verb = ("would expire", "would delete") if self.dry_run else ("expired", "deleted")
        unreferenced = f" and {len(self.unreferenced_files):,} file(s) no snapshot uses" if self.unreferenced_asked else ""
        line = (f"{verb[0]} {self.snapshots:,} snapshot(s) from before the last {self.keep_days} day(s); {verb[1]} "
                f"{len(self.old_files):,} file(s) only they used{unreferenced}, {self.bytes / 1e6:,.1f} MB on "
                f"{self.location}")
        return line if self.unreferenced_asked else (f"{line}; files no snapshot uses were not looked for "
                                                     "(--delete-unreferenced, where this lake alone writes its data path)")


def clean_lake(lake: Warehouse, keep_days: int, *, dry_run: bool = False,
               delete_unreferenced: bool = False) -> LakeCleanup:
    """Expire the snapshots of ``lake`` that no reader of the last ``keep_days`` days can be on, and
    delete the files only they used and, with ``delete_unreferenced``, the lake's own unreferenced
    files older than :data:`ORPHAN_AGE`; a dry run deletes nothing.

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
    try:
        with lake.exclusive():  # type: ignore[attr-defined]  # a DuckLakeWarehouse, checked above
            expired, old = _expire(lake, now - timedelta(days=keep_days), dry_run)
            unreferenced = _unreferenced(lake, now - ORPHAN_AGE) if delete_unreferenced else []
            freed = _sizes(old + unreferenced)
            if not dry_run:
                old = _paths(lake, "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)")
                for path in unreferenced:
                    with suppress(FileNotFoundError):  # gone since it was listed: nothing to free
                        os.unlink(path)
    except duckdb.Error as exc:  # a catalog that went away: one line, as every warehouse error
        raise WarehouseError(f"cleaning {lake.location} failed: {one_line(exc)}; what it had not deleted "
                             "yet is kept") from exc
    return LakeCleanup(lake.location, keep_days, expired, old, unreferenced, freed, dry_run, delete_unreferenced)


def clean_configured_lake(settings: Settings, keep_days: int, *, dry_run: bool = False,
                          delete_unreferenced: bool = False) -> LakeCleanup:
    """:func:`clean_lake` on the DuckLake the settings name (for the command and the flow). A catalog
    database holding no lake is refused, not given one: opened as a writer first, it was made a lake
    of 28 tables, even by a dry run."""
    from warehouse import open_warehouse

    if settings.warehouse_backend != "ducklake":
        raise WarehouseError(f"clean-lake cleans the configured DuckLake, and warehouse_backend "
                             f"(ARASTANCE_WAREHOUSE_BACKEND) is {settings.warehouse_backend!r}: a DuckDB warehouse "
                             "file keeps no old files (DuckDB reuses its free blocks)")
    open_warehouse(settings.warehouse, read_only=True).close()
    with open_warehouse(settings.warehouse, migrate=False) as lake:
        return clean_lake(lake, keep_days, dry_run=dry_run, delete_unreferenced=delete_unreferenced)


def _expire(lake: Warehouse, cutoff: datetime, dry_run: bool) -> tuple[int, list[str]]:
    """Expire, in a transaction committed unless ``dry_run``, the snapshots older than the newest one
    made before ``cutoff`` (that one was current at the cutoff); return how many, and the files that
    frees, listed from inside the transaction."""
    lake.con.execute("BEGIN TRANSACTION")
    try:
        current_at_cutoff = lake.scalar("SELECT max(snapshot_time) FROM ducklake_snapshots('lake') "
                                        "WHERE snapshot_time < $cutoff", {"cutoff": cutoff})
        expired = 0 if current_at_cutoff is None else len(lake.query(
            "CALL ducklake_expire_snapshots('lake', older_than => $before)", {"before": current_at_cutoff}))
        old = _paths(lake, "CALL ducklake_cleanup_old_files('lake', dry_run => true, cleanup_all => true)")
    except BaseException:
        with suppress(duckdb.Error):  # a lost catalog rolled it back already
            lake.con.execute("ROLLBACK")
        raise
    lake.con.execute("ROLLBACK" if dry_run else "COMMIT")
    return expired, old


def _unreferenced(lake: Warehouse, before: datetime) -> list[str]:
    """The lake's own data files that no snapshot uses, last written before ``before``, on a local data
    path: named as DuckLake names them, in a folder of one of the lake's tables (files scheduled for
    deletion are not among them: DuckLake counts them as used)."""
    paths = _paths(lake, "CALL ducklake_delete_orphaned_files('lake', dry_run => true, older_than => $before)",
                   {"before": before})
    folders = {os.path.normpath(row["folder"]) for row in lake.query(load_sql("lake_table_folders"))}
    return [p for p in paths if "://" not in p and Path(p).name.startswith("ducklake-") and Path(p).suffix == ".parquet"
            and os.path.dirname(os.path.normpath(p)) in folders]


def _paths(lake: Warehouse, call: str, params: dict[str, object] | None = None) -> list[str]:
    return [row["path"] for row in lake.query(call, params)]


def _sizes(paths: list[str]) -> int:
    """The bytes the local files among ``paths`` hold (object-store paths are not counted)."""
    return sum(os.path.getsize(p) for p in paths if "://" not in p and os.path.isfile(p))
