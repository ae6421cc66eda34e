"""Checking that a directory takes new files before long work whose result goes there.

A training run of minutes (an encoder: up to the ten-minute budget) refused only at its save is
lost whole: a read-only disk, a directory of another user. Asking the directory for a file first
costs nothing and fails at once, naming the directory rather than a file that was never made.
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def require_writable_directory(directory: Path) -> Path:
    """Make ``directory`` (with its parents) and create and remove a file in it; an OSError names the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:  # it names the random file name tried, which is of no use to the reader
        raise OSError(exc.errno, exc.strerror, str(directory)) from exc
    return directory
