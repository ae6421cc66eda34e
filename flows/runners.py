"""The task runner that fan-out flows use, chosen by configuration.

Flows are decorated with the thread runner; ``flow.with_options(task_runner=task_runner(...))``
swaps in Dask without touching the flow's code. Dask workers only compute: results come back to
the flow's process, which is the single writer of the warehouse.
"""

from __future__ import annotations

from typing import Any

from prefect.states import State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from arastance.config.orchestration import OrchestrationSettings
from warehouse import WarehouseBusyError


def warehouse_busy(task: Any, task_run: Any, state: State) -> bool:
    """Retry condition for warehouse steps: retry only while another writer holds the file."""
    return isinstance(state.data, WarehouseBusyError)


def task_runner(settings: OrchestrationSettings) -> TaskRunner:
    """Threads by default; a DaskTaskRunner on a LocalCluster, or on ``dask_address`` when set."""
    if settings.task_runner == "dask":
        from prefect_dask import DaskTaskRunner

        if settings.dask_address:
            return DaskTaskRunner(address=settings.dask_address)
        return DaskTaskRunner(
            cluster_class="distributed.LocalCluster",
            cluster_kwargs={"n_workers": settings.workers, "threads_per_worker": 1, "processes": True},
        )
    return ThreadPoolTaskRunner(max_workers=settings.workers)
