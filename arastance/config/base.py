"""The base of every settings group."""

from pydantic import BaseModel, ConfigDict


class SettingsGroup(BaseModel):
    """Unknown keys are errors, so a typo in arastance.toml never passes silently."""

    model_config = ConfigDict(extra="forbid")
