"""A context whose run was asked to stop, for tests of waits that must end when their run stops."""

from __future__ import annotations

import contextvars

from arastance.base.stopping import stop_on_exit


def stopped_context() -> contextvars.Context:
    """The context that work submitted from a failed :func:`stop_on_exit` block runs in: its stop event is set."""
    try:
        with stop_on_exit():  # the flow's block fails: the work it started is asked to stop
            stopped = contextvars.copy_context()
            raise KeyError("the flow failed")
    except KeyError:
        return stopped
