"""Standard streams that the process was started without.

Cron jobs, daemons and service managers often start a program with standard output, error or input
closed (``>&-``, ``2>&-``, ``<&-``). Python then leaves ``sys.stdout`` (``sys.stderr``, ``sys.stdin``)
None, and code that asks it anything crashed: ``sys.stdout.isatty()`` at import ended every
``arastance`` command with a traceback, and tqdm's progress bars (model downloads, training) a run with
stderr closed. The descriptor stays free too, so the next file the process opens takes its number
(under ``2>&-``, the warehouse took descriptor 2), and whatever then writes to "standard output" or "standard error"
below Python (a library's C or Rust code, a child between its fork and its exec) writes into that file.

:func:`hold_closed_streams` opens ``/dev/null`` on each such descriptor, as OpenSSH and the C library
(for set-user-ID programs) do, and gives Python a stream on it, so that all of that writes nowhere;
:func:`was_closed` still tells a command that its result has nowhere to go.
"""

from __future__ import annotations

import os
import sys
from typing import IO

NAMES = {0: "standard input", 1: "standard output", 2: "standard error"}
_ATTRIBUTES = {0: "stdin", 1: "stdout", 2: "stderr"}
_closed: set[int] = set()  # the process's own: its descriptors 0 to 2 as they were when it started


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _hold(fd: int) -> None:
    """``/dev/null`` on the free descriptor ``fd``, inherited by children as a standard stream is."""
    null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)  # the lowest free number: ``fd``,
    os.set_inheritable(null, True)  # as those below it are open by now


def hold_closed_streams() -> None:
    """Open ``/dev/null`` on each of descriptors 0, 1 and 2 that is not open, and set the matching
    ``sys.stdin``, ``sys.stdout`` or ``sys.stderr`` to a stream on it. Called first thing in a program's
    entry point, before it opens any file of its own."""
    for fd in (0, 1, 2):
        if _is_open(fd):
            continue
        _hold(fd)
        _closed.add(fd)
        stream = open(fd, "r" if fd == 0 else "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        setattr(sys, _ATTRIBUTES[fd], stream)


def was_closed(fd: int) -> bool:
    """Whether the process was started with descriptor ``fd`` (0, 1 or 2) closed, which
    :func:`hold_closed_streams` found and filled with ``/dev/null``."""
    return fd in _closed


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` (``sys.stdout``, ``sys.stderr``) is a terminal; None, the stream Python gives a
    process started with it closed, is none."""
    return stream is not None and stream.isatty()
