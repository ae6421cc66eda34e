"""The parent flow: every stage in order, each idempotent, with a per-stage report.

A failed stage stops the stages after it (they need its output) and fails the run; since every
stage only adds what is missing, re-running the pipeline resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from pydantic import Field

from arastance.base.secrets import redact_secrets
from arastance.config import load_settings
from arastance.logging import get_logger
from flows.artifacts import table_artifact
from flows.build_dataset import build_dataset
from flows.crawl_sources import crawl_sources
from flows.retrieve_documents import retrieve_documents
from flows.select_true_claims import select_true_claims
from flows.train import train_stance_model
from tasks.pipeline_report import StageOutcome, WarehouseTotals, measured_outcome
from tasks.stance.retraining import check_retraining
from warehouse import open_warehouse

log = get_logger(__name__)

Stage = Literal["crawl", "select", "retrieve", "dataset", "train"]
ALL_STAGES: list[Stage] = ["crawl", "select", "retrieve", "dataset", "train"]
#: A failed stage's reason is cut here: a page of a child's error would bury the run's message.
REASON_CHARS = 300


class PipelineFailed(RuntimeError):
    """A stage failed; what the earlier stages stored is kept, and a re-run resumes."""


class TrainingNotDue(Exception):
    """The train stage was skipped: too few new gold labels since the last training."""


@task(cache_policy=NO_CACHE)
def training_due(warehouse_path: Path, threshold: int) -> tuple[bool, int]:
    """Whether at least ``threshold`` gold labels were decided since the last successful training."""
    check = check_retraining(warehouse_path, threshold)
    return check.due, check.new_labels


def warehouse_totals(warehouse_path: Path) -> WarehouseTotals:
    """Bookkeeping, not a stage: a plain function, so it stays out of the run's task graph
    (a new warehouse is migrated here, before the first stage)."""
    with open_warehouse(warehouse_path) as wh:
        return WarehouseTotals.read(wh)


def _train(path: Path, when: str) -> dict[str, Any]:
    if when == "auto":
        due, new = training_due(path, load_settings().model.retrain_after_new_labels)
        if not due:
            raise TrainingNotDue(f"{new} new gold label(s) since the last training")
    return train_stance_model()


def _reason(exc: Exception) -> str:
    """Why a stage failed, for its log line, its note and the run's message: the error's text (its
    type where it has none), secrets hidden (a run's message is no log record, which the logging
    redacts) before it is cut at :data:`REASON_CHARS` with a mark that it was cut (a cut secret would
    show its first part)."""
    text = redact_secrets(str(exc) or type(exc).__name__)
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 1] + "…"


def _failure_message(outcomes: list[StageOutcome]) -> str:
    """The failed run's message, which the Runs list and the run's header show: each failed stage
    with its reason, so that an operator need not open the stage's own run to learn why."""
    failures = "; ".join(f"stage {o.stage} failed: {o.error}" for o in outcomes if o.status == "failed")
    return f"{failures}; re-run to resume"


def _stage_runners(path: Path, sites: list[str] | None, incremental: bool | None, retrieve_limit: int | None,
                   train: str) -> dict[str, Callable[[], Any]]:
    return {
        "crawl": lambda: crawl_sources(sites=sites, incremental=incremental),
        "select": lambda: select_true_claims(),
        "retrieve": lambda: retrieve_documents(limit=retrieve_limit),  # on orchestration.task_runner
        "dataset": lambda: build_dataset(),
        "train": lambda: _train(path, train),
    }


@flow(name="arastance_pipeline", validate_parameters=True)
def arastance_pipeline(
    stages: Annotated[list[Stage], Field(min_length=1)] | None = None,
    sites: Annotated[list[str], Field(min_length=1)] | None = None,
    incremental: bool | None = None,
    retrieve_limit: Annotated[int, Field(ge=1)] | None = None,
    train: Literal["auto", "always", "never"] = "auto",
) -> list[dict[str, Any]]:
    """Run the pipeline's stages in order and publish what each one did.

    Args:
        stages: which stages to run, in pipeline order (default: all of them:
            crawl, select, retrieve, dataset, train; an empty list is refused, not read as all).
        sites: sites to crawl (default: araanews, dabegad, norumors and reuters).
        incremental: fetch only posts not yet in the warehouse (default: the crawl.incremental setting).
        retrieve_limit: at most this many claims get documents in this run (default: all pending).
        train: ``auto`` retrains (and evaluates) when the new gold labels since the last
            training reach ``model.retrain_after_new_labels``; ``always``; or ``never``.
    """
    asked = ALL_STAGES if stages is None else stages  # an empty list is refused by validation, never read as "all"
    chosen = [s for s in ALL_STAGES if s in asked and not (s == "train" and train == "never")]
    if not chosen:  # a run that does nothing must not end Completed as if it had done what was asked
        raise ValueError(f"no stage left to run: stages={list(asked)} with train={train!r}; ask for another stage, "
                         "or train 'auto' or 'always'")
    path = load_settings().warehouse
    runners = _stage_runners(path, sites, incremental, retrieve_limit, train)
    outcomes: list[StageOutcome] = []
    failed = False
    for stage in chosen:
        if failed:
            log.warning("stage skipped: an earlier stage failed", extra={"stage": stage})
            outcomes.append(StageOutcome(stage, "skipped", 0.0, error="an earlier stage failed"))
            continue
        log.info("stage started", extra={"stage": stage})
        before = warehouse_totals(path)
        started = time.monotonic()
        try:
            runners[stage]()
        except TrainingNotDue as exc:
            log.info("stage skipped", extra={"stage": stage, "reason": str(exc)})
            outcomes.append(StageOutcome(stage, "skipped", time.monotonic() - started, error=str(exc)))
            continue
        except Exception as exc:  # the stage's own run shows the traceback; the report names it
            failed, reason = True, _reason(exc)
            log.error("stage failed", extra={"stage": stage, "error": reason})
            outcomes.append(measured_outcome(stage, "failed", time.monotonic() - started, before,
                                             warehouse_totals(path), reason))
            continue
        outcome = measured_outcome(stage, "ok", time.monotonic() - started, before, warehouse_totals(path))
        row = outcome.as_row()
        log.info("stage finished", extra={"stage": stage, "seconds": row["seconds"], "rows_added": row["rows added"],
                                          "dropped": row["dropped"], "errors": row["errors"]})
        outcomes.append(outcome)
    table_artifact([o.as_row() for o in outcomes], key="arastance-pipeline-stages",
                   description="what each pipeline stage did: rows added, dropped and failed on "
                               "(measured on the warehouse)")
    table_artifact([row for o in outcomes for row in o.figure_rows()], key="arastance-pipeline-figures",
                   description="every figure of the stages table by table, reason and kind of error")
    if failed:
        raise PipelineFailed(_failure_message(outcomes))
    return [o.as_result() for o in outcomes]
