"""Environment variables set for the length of a block, then put back as they were."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


@contextmanager
def environment_overridden(values: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` with ``values`` set inside the block; afterwards each variable has its earlier
    value again, or is unset if it had none. Commands run in-process (CliRunner, a notebook) share the
    environment with their caller: a demo that left ``ARASTANCE_WAREHOUSE_PATH`` behind sent every
    later command of that process to the demo's warehouse."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
