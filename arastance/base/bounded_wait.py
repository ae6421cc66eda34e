"""Waiting a bounded time for something another process holds: a lock file, the warehouse file, a
DuckLake's write lock.

Every such wait is polled the same way: it gives up with the caller's error when its time is up,
says once, as it starts, what it waits for (a writer that seems stuck names its holder), and ends
early when the run is asked to stop (:func:`arastance.base.stopping.pause`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from arastance.base.stopping import pause

T = TypeVar("T")


def wait_for(
    attempt: Callable[[], T | None], *, wait_s: float, every_s: float,
    waiting: Callable[[], None], gave_up: Callable[[], BaseException],
) -> T:
    """The first result of ``attempt()`` that is not ``None``, trying every ``every_s`` seconds.

    ``waiting()`` is called once, after the first attempt that fails, unless ``wait_s`` is 0 (then
    the first failure raises at once); ``gave_up()`` builds the error raised once ``wait_s`` seconds
    have passed without a result.
    """
    deadline = time.monotonic() + wait_s
    said = False
    while (result := attempt()) is None:
        if time.monotonic() >= deadline:
            raise gave_up()
        if not said:
            said = True
            waiting()
        pause(every_s)
    return result
