"""Load one crawl run's staging directory into the warehouse, all of it or nothing.

A run directory (written by the spiders or by ``arastance reparse``) holds ``run.json``,
``pages.jsonl`` (+ gzip'd bodies) and ``claims.jsonl``. Both stream through in batches, so
memory stays bounded whatever the run's size. First the raw pages (bodies checked against their
hash and stored zlib-wrapped), a batch per transaction; then, in ONE transaction, the sources,
the preprocessed claims, the duplicate clusters and the run's counts. Every line is validated as
it streams: a bad line stops the load with an error naming the file, the line and the field,
the claims' transaction is rolled back and the pages this load added are taken out again, so
nothing is stored (a process killed mid-load can leave pages behind: content-addressed, they
change nothing and the next load of the run keeps them).

Loading is idempotent: the same run loaded twice, or a re-crawl of unchanged sites, adds no
row; a claim seen again keeps its ``first_seen`` and gets a later ``last_seen``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from arastance.base.staging import CLAIMS_FILE, PAGES_FILE, SITES
from arastance.progress import Progress
from tasks.claim_load.ahead import AHEAD_FROM, claims_prepared_ahead
from tasks.claim_load.clusters import refresh_clusters
from tasks.claim_load.rows import page_row_batches, patterns_from, prepared_claims, source_rows, utc_naive, with_override
from tasks.claim_load.staged import RunPages, StagedRunStream, count_lines, open_staging_run
from tasks.stage_locks import stage_lock, warehouse_locks
from warehouse import Warehouse
from warehouse import claims as claims_db
from warehouse import near_duplicates

log = get_logger(__name__)

#: How much page data the write-ahead log takes before a checkpoint (see
#: :meth:`warehouse.Warehouse.checkpoints_every`): fewer checkpoints, and bounded memory.
PAGES_WAL_SIZE = "256MB"


@dataclass
class LoadReport:
    """What one load did; ``new_*`` count rows that were not in the warehouse before."""

    run_id: str
    source_id: str
    run_dir: Path
    already_loaded: bool
    pages: int = 0
    new_pages: int = 0
    claims: int = 0
    new_claims: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    clustered_claims: int = 0  # claims whose cluster rows this load recomputed
    new_cluster_rows: int = 0
    seconds: float = 0.0

    def as_row(self) -> dict[str, Any]:
        """A flat dictionary for tables and Prefect artifacts."""
        return {
            "run_id": self.run_id, "source_id": self.source_id, "already_loaded": self.already_loaded,
            "pages": self.pages, "new_pages": self.new_pages, "claims": self.claims, "new_claims": self.new_claims,
            "statuses": ", ".join(f"{k}={v}" for k, v in sorted(self.statuses.items())),
            "dropped": ", ".join(f"{k}={v}" for k, v in sorted(self.dropped.items())),
            "clustered_claims": self.clustered_claims, "new_cluster_rows": self.new_cluster_rows,
            "seconds": round(self.seconds, 2),
        }


def load_crawl_run(wh: Warehouse, run_dir: Path, *, settings: Settings | None = None) -> LoadReport:
    """Ingest one staging run directory and report what changed; all of it is stored, or none.

    Pages, then claims, stream through in batches (bounded memory whatever the run's size). Page
    batches commit as they go; claims, clusters and the run's row commit in one transaction. A bad
    line or body anywhere rolls that transaction back and deletes the pages this load added, so a
    bad file leaves the warehouse as it was. Holds the warehouse's ``load`` stage lock throughout
    (:func:`load_lock_wait_s` says how long it waits for another load of this host).
    """
    s = settings or load_settings()
    with stage_lock(warehouse_locks(wh.path), "load", wait_s=load_lock_wait_s(wh, s)):
        return _load(wh, Path(run_dir), s)


def load_lock_wait_s(wh: Warehouse, settings: Settings) -> float:
    """How long a load (or a re-keying, :func:`tasks.claim_load.rekey.rekey_claims`) waits for the
    host's ``load`` lock held by another load.

    The lock keeps two loads of one host apart: two of the same staging run would both load it,
    and one that fails takes back pages the other may have found there and kept. On a DuckDB file
    a load of another process cannot get this far (the file's lock keeps it out while this one has
    the file open), so only a second load in the same process meets the lock, and is refused at
    once. On a DuckLake, loads of several processes on one host are meant to run (two sites'
    crawl loads, ``claims load`` by hand beside a scheduled crawl), and were refused: a load there
    waits for the other as a writer waits for another's transaction, up to ``warehouse_write_wait_s``.
    """
    return settings.warehouse_write_wait_s if wh.backend == "ducklake" else 0.0


def _load(wh: Warehouse, run_dir: Path, s: Settings) -> LoadReport:
    started = time.perf_counter()
    staged = open_staging_run(run_dir)
    if claims_db.run_is_loaded(wh, staged.run.run_id):
        # A finished staging run never changes, so there is nothing to add; re-extraction of
        # stored pages makes a new run (``arastance reparse``).
        log.info("crawl run already loaded", extra={"run_id": staged.run.run_id})
        return LoadReport(
            run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=True,
            pages=count_lines(staged.run_dir / PAGES_FILE), claims=count_lines(staged.run_dir / CLAIMS_FILE),
            seconds=time.perf_counter() - started,
        )
    patterns = patterns_from(s)
    report = LoadReport(run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=False)
    seen: set[str] = set()
    page_ids: RunPages = {}
    statuses: Counter[str] = Counter()
    dropped: Counter[str] = Counter({k: v for k, v in staged.run.dropped.items() if v})
    veracity = SITES[staged.run.source_id][3]
    new_ids: list[str] = []
    changed_claims = 0
    dedup = {"threshold": s.crawl.near_duplicate_threshold, "shingle_size": s.crawl.shingle_size}
    added_pages: list[str] = []
    try:
        # Page bodies are most of a run's bytes, and DuckDB keeps a transaction's rows in memory
        # until it commits: each batch of pages commits on its own, and a load that fails takes
        # back the pages it added. Pages are keyed by URL and content, so nothing else changes.
        ahead = (claims_prepared_ahead(staged.run_dir, patterns, s.crawl.noun_phrase_claims)
                 if staged.run.items >= AHEAD_FROM else nullcontext(None))
        with ahead as prepared_ahead:
            with wh.checkpoints_every(PAGES_WAL_SIZE):
                for read, pages in page_row_batches(staged, page_ids, lambda ids: claims_db.known_page_ids(wh, ids)):
                    with wh.transaction():
                        added_pages += claims_db.insert_raw_pages(wh, pages)
                    report.pages += read
            report.new_pages = len(added_pages)
            with wh.transaction():
                index_current = near_duplicates.is_current(wh, veracity, **dedup)
                claims_db.ensure_sources(wh, source_rows(s))
                progress = Progress(f"load {staged.run.run_id}", staged.run.items, "claims", min_total=500)
                batches = (prepared_ahead() if prepared_ahead is not None
                           else prepared_claims(staged, page_ids, patterns, s.crawl.noun_phrase_claims))
                for prepared in batches:
                    progress.update(len(prepared))
                    overrides = claims_db.overrides_for(wh, [row["claim_id"] for row in prepared])
                    rows: list[dict[str, Any]] = []
                    for row in prepared:
                        if row["claim_id"] in seen:  # the same page reached under two spellings of its URL
                            dropped["duplicate_url"] += 1
                            continue
                        seen.add(row["claim_id"])
                        if row["claim_id"] in overrides:
                            row = with_override(row, overrides[row["claim_id"]])
                        if row["status"] == "excluded":
                            dropped[f"excluded:{row['status_reason']}"] += 1
                        statuses[row["status"]] += 1
                        rows.append(row)
                    batch = claims_db.claims_table(rows)
                    for claim_id, _, is_new in claims_db.cluster_input_changes(wh, batch):
                        if is_new:
                            new_ids.append(claim_id)
                        else:
                            changed_claims += 1
                    report.new_claims += claims_db.upsert_claims(wh, batch)
                    report.claims += len(rows)
                progress.close()
                report.statuses, report.dropped = dict(sorted(statuses.items())), dict(sorted(dropped.items()))
                if new_ids or changed_claims:  # a re-crawl of unchanged sites skips deduplication
                    report.clustered_claims, report.new_cluster_rows = refresh_clusters(
                        wh, veracity, new_claim_ids=new_ids, changed_claims=changed_claims, index_current=index_current,
                        **dedup,
                    )
                claims_db.insert_crawl_run(wh, _crawl_run_row(staged, report))
    except BaseException:
        if added_pages:
            with wh.transaction():
                claims_db.delete_pages(wh, added_pages)
        raise
    report.seconds = time.perf_counter() - started
    log.info("crawl run loaded", extra=report.as_row())
    return report


def _crawl_run_row(staged: StagedRunStream, report: LoadReport) -> dict[str, Any]:
    run = staged.run
    load_stats = {
        "claims": report.claims, "statuses": report.statuses, "new_pages": report.new_pages,
        "clustered_claims": report.clustered_claims,
    }
    return {
        "run_id": run.run_id,
        "source_id": run.source_id,
        "started_at": utc_naive(run.started_at),
        "finished_at": None if run.finished_at is None else utc_naive(run.finished_at),
        "staging_path": str(staged.run_dir),
        "pages": run.pages,
        "items": run.items,
        "new_claims": report.new_claims,
        "errors": run.errors,
        "dropped": json.dumps(report.dropped, ensure_ascii=False, sort_keys=True),
        "stats": json.dumps({**run.stats, "load": load_stats}, ensure_ascii=False, sort_keys=True, default=str),
    }


