"""Prefect flow ``select_true_claims``: read the claims, choose the headlines, store the run.

The flow only orchestrates; the selection is :func:`tasks.true_claims.select.select_true_claims`,
the SQL lives in :mod:`warehouse.selection`. Reading and storing retry when the warehouse is
busy (another writer holds the file). Same claims and settings give the same run id, so a
re-run reports ``new_run = False`` and stores nothing.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from arastance.config import load_settings
from arastance.config.selection import SelectionSettings
from arastance.logging import get_logger
from flows.artifacts import markdown_fields, table_artifact
from flows.runners import warehouse_busy
from tasks.true_claims import select as selection
from tasks.true_claims.rows import claim_records, exclusion_rows, match_rows, run_row, selection_run_id
from tasks.true_claims.select import ClaimRecord, SelectionResult
from tasks.true_claims.sources import check_headline_sources
from warehouse import flow_warehouse, open_warehouse
from warehouse.selection import (
    StoredSelection,
    read_candidate_headlines,
    read_seed_claims,
    store_selection,
    true_claims_by_source,
)

log = get_logger(__name__)


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def load_selection_inputs(
    warehouse_path: Path, sources: list[str], period: tuple[date | None, date | None] = (None, None)
) -> tuple[list[ClaimRecord], list[ClaimRecord]]:
    """The active false claims (seeds) and the candidate headlines of ``sources``, dated within
    ``period`` (the setting ``period``; open by default). Retried only while the warehouse is
    busy: a ``headline_sources`` setting that names no stored source fails at once."""
    with open_warehouse(warehouse_path) as wh:
        check_headline_sources(sources, true_claims_by_source(wh))
        seeds = claim_records(read_seed_claims(wh, period), origin="seed")
        headlines = claim_records(read_candidate_headlines(wh, sources, period), origin="headline")
    log.info("selection inputs read", extra={"seeds": len(seeds), "headlines": len(headlines), "sources": sources})
    if not seeds or not headlines:
        log.warning("nothing to select from", extra={"seeds": len(seeds), "headlines": len(headlines)})
    return seeds, headlines


@task(cache_policy=NO_CACHE)
def choose_headlines(
    seeds: list[ClaimRecord], headlines: list[ClaimRecord], settings: SelectionSettings
) -> SelectionResult:
    """Rank the windowed headlines of every seed and keep the best ``top_k``."""
    result = selection.select_true_claims(seeds, headlines, settings)
    excluded = {k: v for k, v in result.summary()["excluded"].items() if v}
    if excluded:
        log.info("excluded from the selection", extra={"excluded": ", ".join(f"{k}={v}" for k, v in excluded.items())})
    return result


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def store_selection_run(
    warehouse_path: Path, result: SelectionResult, run_id: str, fingerprint: str, started_at: datetime
) -> StoredSelection:
    """Write the run, its matches and its exclusions in one transaction."""
    finished_at = datetime.now(timezone.utc).replace(tzinfo=None)
    with open_warehouse(warehouse_path) as wh:
        stored = store_selection(
            wh,
            run_row(result, run_id, fingerprint, started_at, finished_at),
            match_rows(result, run_id),
            exclusion_rows(result, run_id),
        )
    log.info("selection stored" if stored.new_run else "same input and settings as a stored run: nothing added",
             extra={"run_id": run_id, "new_matches": stored.new_matches})
    return stored


def _publish(result: SelectionResult, stored: StoredSelection) -> None:
    summary = result.summary()
    counts = [{"figure": k, "value": v} for k, v in summary.items() if k != "excluded"]
    counts += [{"figure": f"excluded {k}", "value": v} for k, v in summary["excluded"].items()]
    table_artifact(counts, key="true-claim-selection", description=f"selection run {stored.run_id}")
    create_markdown_artifact(
        f"# True-claim selection {stored.run_id}\n\n"
        f"{'New run' if stored.new_run else 'Same input and settings as a stored run: nothing added'}; "
        f"{stored.new_matches} new match(es), {summary['selected_headlines']} headline(s) chosen for "
        f"{summary['seeds_matched']} of {summary['seeds_used']} seed(s).\n\n"
        f"Parameters:\n\n{markdown_fields(result.params)}",
        key="true-claim-selection-report",
    )


@flow(name="select_true_claims", validate_parameters=True)
def select_true_claims(
    window_months: int | None = None,
    top_k: int | None = None,
    min_similarity: float | None = None,
    analyzer: Literal["word", "char"] | None = None,
    undated_policy: Literal["exclude", "ignore_window"] | None = None,
    sample_size: int | None = None,
    seed: int | None = None,
    warehouse_path: str | None = None,
) -> dict[str, Any]:
    """Choose true claims for the false seeds; parameters left empty come from the settings.

    Args:
        window_months: headlines within this many months before or after a seed's date (default 3).
        top_k: at most this many headlines per seed (default 10).
        min_similarity: TF-IDF cosine a headline needs to be chosen (default 0.05).
        analyzer: TF-IDF on word n-grams or character n-grams.
        undated_policy: seeds or headlines without a date are excluded with a recorded reason
            (exclude), or compared without a window (ignore_window).
        sample_size: a seeded sample of this many seeds (0 or empty: every seed).
        seed: the sample's seed.
        warehouse_path: the DuckDB warehouse; default: the configured one.
    """
    settings = load_settings()
    params = settings.selection.with_overrides(
        window_months=window_months, top_k=top_k, min_similarity=min_similarity, analyzer=analyzer,
        undated_policy=undated_policy, sample_size=sample_size, seed=seed,
    )
    path = flow_warehouse(warehouse_path, settings)
    started_at = datetime.now(timezone.utc).replace(tzinfo=None)

    seeds, headlines = load_selection_inputs(path, params.headline_sources, settings.period.bounds)
    fingerprint = selection.input_fingerprint(seeds, headlines)
    # quote(): hand the 200k records over as they are, without Prefect visiting each one
    result = choose_headlines(quote(seeds), quote(headlines), params)
    run_id = selection_run_id(result.params, fingerprint)
    stored = store_selection_run(path, quote(result), run_id, fingerprint, started_at)
    _publish(result, stored)
    return {"run_id": run_id, "new_run": stored.new_run, "new_matches": stored.new_matches, **result.summary()}
