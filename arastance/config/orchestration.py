"""How flows fan out: threads on one machine, or Dask (a local cluster or an existing scheduler)."""

from typing import Literal

from pydantic import Field

from arastance.config.base import SettingsGroup


class OrchestrationSettings(SettingsGroup):
    """Fan-out stages (retrieval per claim, features, evaluation per dataset) use this runner."""

    task_runner: Literal["threads", "dask"] = "threads"
    dask_address: str | None = Field(
        default=None, description="tcp://host:8786 of an existing Dask scheduler; unset = a LocalCluster"
    )
    workers: int = Field(default=2, ge=1, le=256, description="threads, or LocalCluster worker processes")
