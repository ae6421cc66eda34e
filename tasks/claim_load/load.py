"""Load one crawl run's staging directory into the warehouse, all of it or nothing.

A run directory (written by the spiders or by ``arastance reparse``) holds ``run.json``,
``pages.jsonl`` (+ gzip'd bodies) and ``claims.jsonl``. Every line is validated before the
warehouse is touched: a bad line stops the load with an error naming the file, the line and
the field, and nothing is stored. Then, in ONE transaction: the sources, the raw pages (bodies
zlib-compressed), the preprocessed claims, the duplicate clusters and the run's counts.

Loading is idempotent: the same run loaded twice, or a re-crawl of unchanged sites, adds no
row; a claim seen again keeps its ``first_seen`` and gets a later ``last_seen``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from tasks.claim_load.clusters import refresh_clusters
from tasks.claim_load.rows import canonical_keys, claim_row, page_rows, patterns_from, source_rows, utc_naive
from tasks.claim_load.staged import StagedRunFiles, read_staging_run
from warehouse import Warehouse
from warehouse import claims as claims_db

log = get_logger(__name__)


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
    clustered_claims: int = 0  # claims in clusters of the veracities re-clustered by this load
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
    """Ingest one staging run directory in one transaction and report what changed.

    Validation and preprocessing happen before the transaction opens, so a bad file leaves the
    warehouse exactly as it was.
    """
    started = time.perf_counter()
    s = settings or load_settings()
    staged = read_staging_run(Path(run_dir))
    if claims_db.run_is_loaded(wh, staged.run.run_id):
        # A finished staging run never changes, so there is nothing to add; re-extraction of
        # stored pages makes a new run (``arastance reparse``).
        log.info("crawl run already loaded", extra={"run_id": staged.run.run_id})
        return LoadReport(
            run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir, already_loaded=True,
            pages=len(staged.pages), claims=len(staged.claims), seconds=time.perf_counter() - started,
        )
    patterns = patterns_from(s)
    pages = page_rows(staged)
    keys = canonical_keys(staged)
    overrides = claims_db.overrides_for(wh, [claim_id for claim_id, _ in keys])
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    dropped: Counter[str] = Counter({k: v for k, v in staged.run.dropped.items() if v})
    for (_, claim), (claim_id, canonical) in tqdm(
        list(zip(staged.claims, keys)), desc=f"preprocess {staged.run.run_id}", unit="claim", disable=None
    ):
        if claim_id in seen:  # the same page reached under two spellings of its URL
            dropped["duplicate_url"] += 1
            continue
        seen.add(claim_id)
        row = claim_row(claim, claim_id, canonical, patterns=patterns, override=overrides.get(claim_id))
        if row["status"] == "excluded":
            dropped[f"excluded:{row['status_reason']}"] += 1
        rows.append(row)
    statuses = Counter(r["status"] for r in rows)
    report = LoadReport(
        run_id=staged.run.run_id, source_id=staged.run.source_id, run_dir=staged.run_dir,
        already_loaded=False,
        pages=len(pages), claims=len(rows), statuses=dict(sorted(statuses.items())), dropped=dict(sorted(dropped.items())),
    )
    with wh.transaction():
        claims_db.ensure_sources(wh, source_rows(s))
        report.new_pages = claims_db.insert_raw_pages(wh, pages)
        batch = claims_db.claims_table(rows)
        changed = claims_db.cluster_input_changes(wh, batch)
        report.new_claims = claims_db.upsert_claims(wh, batch)
        for veracity in sorted(changed):
            clustered, new_rows = refresh_clusters(
                wh, veracity, threshold=s.crawl.near_duplicate_threshold, shingle_size=s.crawl.shingle_size
            )
            report.clustered_claims += clustered
            report.new_cluster_rows += new_rows
        claims_db.insert_crawl_run(wh, _crawl_run_row(staged, report))
    report.seconds = time.perf_counter() - started
    log.info("crawl run loaded", extra=report.as_row())
    return report


def _crawl_run_row(staged: StagedRunFiles, report: LoadReport) -> dict[str, Any]:
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


