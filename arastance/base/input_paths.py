"""Why a path the user gave cannot serve as an input file or a directory, in the words that follow
its name.

A check such as ``if not path.is_file()`` is also false for a directory, and a message that then
said "does not exist" or "not found" sent the user looking for a path that is right there. Both
functions use ``os.path``'s checks, which answer False instead of raising for a path under a
directory the user may not search.
"""

from __future__ import annotations

import os
from pathlib import Path


def not_a_file(path: Path) -> str:
    """``"does not exist"``, ``"is a directory, not a file"``, ``"is not a regular file"`` (a FIFO
    or a device, which a read would block on or never finish) or ``"is a symbolic link to nothing"``,
    for a ``path`` that is not a regular file."""
    if os.path.isdir(path):
        return "is a directory, not a file"
    if os.path.exists(path):
        return "is not a regular file"
    return "is a symbolic link to nothing" if os.path.islink(path) else "does not exist"


def not_a_directory(path: Path) -> str | None:
    """What is in the way of a directory at ``path``: ``"is a file, not a directory"``, ``"is a
    symbolic link to nothing, not a directory"`` or ``"is not a directory"`` (a FIFO, a device);
    None where a directory is there or can be made (nothing is there)."""
    if os.path.isdir(path) or not os.path.lexists(path):
        return None
    if os.path.isfile(path):
        return "is a file, not a directory"
    if not os.path.exists(path):
        return "is a symbolic link to nothing, not a directory"
    return "is not a directory"
