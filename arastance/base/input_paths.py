"""Why a path the user gave cannot be read as an input file, in the words that follow its name.

A check such as ``if not path.is_file()`` is also false for a directory, and a message that then
said "does not exist" or "not found" sent the user looking for a path that is right there.
"""

from __future__ import annotations

from pathlib import Path


def not_a_file(path: Path) -> str:
    """``"does not exist"``, ``"is a directory, not a file"`` or ``"is not a regular file"`` (a
    FIFO or a device, which a read would block on or never finish), for a ``path`` that is not a
    regular file."""
    if path.is_dir():
        return "is a directory, not a file"
    if path.exists():
        return "is not a regular file"
    return "does not exist"
