"""The task runner that fan-out flows use, chosen by configuration.

Fan-out flows are decorated with :class:`ConfiguredTaskRunner`, which reads the
``orchestration`` settings when a run starts: a deployment's run, the parent pipeline and the
CLI all honour ``orchestration.task_runner`` without choosing a runner themselves.
``flow.with_options(task_runner=task_runner(...))`` still pins one explicitly. Dask workers only
compute: results come back to the flow's process, which is the single writer of the warehouse.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self

from prefect.futures import PrefectFuture, PrefectFutureList
from prefect.states import State
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from arastance.base.disk_full import full_disk_error, read_only_error
from arastance.config import SettingsError, load_settings
from arastance.config.orchestration import OrchestrationSettings
from warehouse import WarehouseBusyError


def warehouse_busy(task: Any, task_run: Any, state: State) -> bool:
    """Retry condition for warehouse steps: retry only while another writer holds the file."""
    return isinstance(state.data, WarehouseBusyError)


def unless_disk_refuses_writes(task: Any, task_run: Any, state: State) -> bool:
    """Retry condition for long steps that a retry may carry through (a timed-out crawl resumes, a
    dropped connection comes back): anything but a full or read-only disk, on which the retry fails
    the same way (a crawl in about 2 s, after removing its partial run again) and only delays the error."""
    return full_disk_error(state.data) is None and read_only_error(state.data) is None


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


def configured_orchestration() -> OrchestrationSettings:
    """The ``orchestration`` settings, or their defaults (threads) when the settings are invalid.

    Prefect enters the task runner while it still sets the run up, outside its state handling: an
    error raised there left the run Running (in process) or Crashed with a generic message. The
    flow's body reads the settings again and raises the same error inside the run, which then ends
    Failed, naming the setting.
    """
    try:
        return load_settings().orchestration
    except SettingsError:
        return OrchestrationSettings()


class ConfiguredTaskRunner(TaskRunner[PrefectFuture[Any]]):
    """The runner named by ``orchestration.task_runner``, chosen when the flow run starts.

    A flow decorated with a fixed runner would run a scheduled deployment on threads whatever
    the settings say; this one delegates to the runner :func:`task_runner` builds from the
    settings the run sees (a worker's environment, ``arastance.toml``).
    """

    def __init__(self) -> None:
        super().__init__()
        self._runner: TaskRunner | None = None

    def duplicate(self) -> Self:
        return type(self)()

    @property
    def runner(self) -> TaskRunner:
        if self._runner is None:
            raise RuntimeError("the task runner must be started before submitting work")
        return self._runner

    def __enter__(self) -> Self:
        super().__enter__()
        self._runner = task_runner(configured_orchestration()).__enter__()
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        try:
            if self._runner is not None:
                self._runner.__exit__(exc_type, exc_value, traceback)
        finally:
            self._runner = None
            super().__exit__(exc_type, exc_value, traceback)

    def submit(self, task: Any, parameters: dict[str, Any], wait_for: Iterable[PrefectFuture[Any]] | None = None,
               dependencies: dict[str, Any] | None = None) -> PrefectFuture[Any]:
        return self.runner.submit(task, parameters, wait_for, dependencies)

    def map(self, task: Any, parameters: dict[str, Any],
            wait_for: Iterable[PrefectFuture[Any]] | None = None) -> PrefectFutureList[Any]:
        return self.runner.map(task, parameters, wait_for)
