"""Custom Prefect events that start deployments: "enough new gold labels to retrain".

Training is weekly, but a burst of annotation should not wait a week. After gold labels are
decided, :func:`signal_retraining_if_due` counts those decided after the newest one that the
last successful training on the warehouse's data read (:mod:`warehouse.retraining`) and, from
``model.retrain_after_new_labels`` on, emits ``arastance.gold-labels.threshold-reached``; the
train deployment in ``prefect.yaml`` has a trigger on that event. The count starts again once
a training succeeds, so the event repeats (at most once per check) only while no training has
caught up. ``check_retraining_due`` runs the check as a flow of its own, which
``prefect.yaml`` starts after every dataset build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.events import emit_event
from pydantic import Field

from arastance.base.ids import stable_id
from arastance.config import load_settings
from arastance.logging import get_logger
from flows.runners import warehouse_busy
from tasks.stance.retraining import check_retraining

log = get_logger(__name__)

THRESHOLD_EVENT = "arastance.gold-labels.threshold-reached"


def warehouse_resource(warehouse_path: Path) -> dict[str, str]:
    """The event's resource: one warehouse, named by its resolved path (a trigger may match on it)."""
    resolved = str(Path(warehouse_path).resolve())
    return {"prefect.resource.id": f"arastance.warehouse.{stable_id(resolved)}", "prefect.resource.name": resolved}


@task(retries=3, retry_delay_seconds=2, retry_condition_fn=warehouse_busy, cache_policy=NO_CACHE)
def signal_retraining_if_due(warehouse_path: Path, threshold: int) -> dict[str, Any]:
    """Count the gold labels new to the last successful training (:mod:`warehouse.retraining`); emit the
    event at ``threshold``.

    Retried only while another writer holds the warehouse: a bad threshold or path fails at once.

    Returns the figures and whether the event was sent. Read-only on the warehouse, so it may
    run right after the task that decided the labels, in the same flow.
    """
    check = check_retraining(warehouse_path, threshold)
    since = check.last_training.isoformat() if check.last_training else None
    result: dict[str, Any] = {"new_gold_labels": check.new_labels, "threshold": threshold,
                              "last_training": since, "event": None}
    if check.due:
        emit_event(THRESHOLD_EVENT, resource=warehouse_resource(warehouse_path),
                   payload={"new_gold_labels": check.new_labels, "threshold": threshold, "last_training": since})
        result["event"] = THRESHOLD_EVENT
    log.info("retraining check", extra=result)
    return result


@flow(name="check_retraining_due", validate_parameters=True)
def check_retraining_due(threshold: Annotated[int, Field(ge=1)] | None = None,
                         warehouse_path: str | None = None) -> dict[str, Any]:
    """Emit ``arastance.gold-labels.threshold-reached`` when enough gold labels are new.

    Args:
        threshold: new gold labels (decided after the last successful training) that call for
            retraining; default: the ``model.retrain_after_new_labels`` setting.
        warehouse_path: the DuckDB warehouse; default: the configured one.
    """
    settings = load_settings()
    path = Path(warehouse_path) if warehouse_path else settings.warehouse
    return signal_retraining_if_due(path, settings.model.retrain_after_new_labels if threshold is None else threshold)
