"""Named SQL statements kept as ``.sql`` files beside this module."""

from functools import cache
from importlib import resources


@cache
def load_sql(name: str) -> str:
    """Return the text of ``warehouse/sql/<name>.sql``; a missing name is a clear error."""
    resource = resources.files(__package__) / f"{name}.sql"
    if not resource.is_file():
        raise FileNotFoundError(f"no SQL statement named {name!r} in warehouse/sql/")
    return resource.read_text(encoding="utf-8")
