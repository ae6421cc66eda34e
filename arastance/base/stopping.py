"""A request to stop, seen by the work a flow runs in its threads.

Python delivers a signal to the main thread only. Prefect's SIGTERM handler raises there, in the
flow that waits on its tasks' futures, but the threads running those tasks went on: a SIGTERM'd
archive crawl kept paging the CDX API for eight minutes, then crawled and loaded what it had
found, and only then did the process exit (the thread pool waits for its threads).

A fan-out waits on its futures inside :func:`stop_on_exit`. When that block is left by an
exception (Prefect's ``TerminationSignal``, Ctrl-C, a failure), the block's stop event is set.
The threads it submitted inherit the event through their context: Prefect's thread pool runs
each task in a copy of the submitter's ``contextvars`` context. Their long waits and loops call
:func:`pause`, :func:`check_stop` or :func:`stop_requested`, and end with
:class:`StopRequested`. Outside such a block (a command's main thread, a Dask worker) no event is
set: the signal reaches that code directly, or its process ends with the cluster.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_STOP: ContextVar[threading.Event | None] = ContextVar("arastance_stop", default=None)


class StopRequested(BaseException):
    """The run that started this work was asked to stop.

    A ``BaseException``, like ``KeyboardInterrupt``: the handlers that turn a failure into a record
    (a failed search, a failed page) let it through, and Prefect does not retry it.
    """


@contextmanager
def stop_on_exit() -> Iterator[None]:
    """Work submitted to threads inside this block is asked to stop if the block raises."""
    event = threading.Event()
    token = _STOP.set(event)
    try:
        yield
    except BaseException:
        event.set()
        raise
    finally:
        _STOP.reset(token)


def stop_requested() -> bool:
    """Whether the block this work was started from has asked it to stop."""
    event = _STOP.get()
    return event is not None and event.is_set()


def check_stop(what: str) -> None:
    """Raise :class:`StopRequested` naming ``what`` if this work was asked to stop."""
    if stop_requested():
        raise StopRequested(f"{what} stopped: the run was asked to stop")


def pause(seconds: float) -> None:
    """``time.sleep`` that ends early with :class:`StopRequested` when this work is asked to stop."""
    event = _STOP.get()
    if event is None:
        time.sleep(seconds)
    elif event.wait(seconds):
        raise StopRequested("a wait was cut short: the run was asked to stop")
