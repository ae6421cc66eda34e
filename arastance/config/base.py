"""The base of every settings group."""

from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator


def refuse_empty_path(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """A path setting given as empty text is an error, as an empty date or number is. ``Path("")`` is
    ``.``: ``ARASTANCE_SEARCH__INDEX_DIR=`` (a common way to "unset" a variable in compose and CI files)
    wrote the index into whatever directory the command ran in."""
    field = cls.model_fields.get(info.field_name or "")
    if field is None or not isinstance(value, str) or value.strip():
        return value
    if Path in (field.annotation, *get_args(field.annotation)):
        raise ValueError("an empty path would be the working directory: give a path, or leave the setting out "
                         "for its default")
    return value


class SettingsGroup(BaseModel):
    """Unknown keys are errors, so a typo in arastance.toml never passes silently."""

    model_config = ConfigDict(extra="forbid")

    _no_empty_path = field_validator("*", mode="before")(refuse_empty_path)
