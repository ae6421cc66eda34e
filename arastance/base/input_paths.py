"""Why a path the user gave cannot serve as an input file or a directory, in the words that follow
its name.

A check such as ``if not path.is_file()`` is also false for a directory, and a message that then
said "does not exist" or "not found" sent the user looking for a path that is right there. Both
functions use ``os.path``'s checks, which answer False instead of raising for a path under a
directory the user may not search.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path


def not_a_file(path: Path) -> str:
    """``"does not exist"``, ``"is a directory, not a file"``, ``"is not a regular file"`` (a FIFO
    or a device, which a read would block on or never finish), ``"is a symbolic link to nothing"``
    or ``"is a loop of symbolic links"``, for a ``path`` that is not a regular file."""
    if os.path.isdir(path):
        return "is a directory, not a file"
    if os.path.exists(path):
        return "is not a regular file"
    return _broken_link(path) if os.path.islink(path) else "does not exist"


def input_file_error(path: Path, what: str) -> OSError:
    """The error for an input file (``what`` names it: "captures file") that :func:`not_a_file`
    refuses, of the type a caller catching the operating system's own would expect: a directory
    raises IsADirectoryError, not FileNotFoundError, which sent a caller's handler down the
    "create it" branch for a path that is right there."""
    problem = not_a_file(path)
    kind = {"does not exist": FileNotFoundError, "is a symbolic link to nothing": FileNotFoundError,
            "is a directory, not a file": IsADirectoryError}.get(problem, OSError)
    return kind(f"{what} {path} {problem}")


def not_a_directory(path: Path) -> str | None:
    """What is in the way of a directory at ``path``: ``"is a file, not a directory"``, a broken
    link (``"is a symbolic link to nothing, not a directory"``, or a loop of them) or ``"is not a
    directory"`` (a FIFO, a device); None where a directory is there or can be made (nothing is)."""
    if os.path.isdir(path) or not os.path.lexists(path):
        return None
    if os.path.isfile(path):
        return "is a file, not a directory"
    if not os.path.exists(path):
        return f"{_broken_link(path)}, not a directory"
    return "is not a directory"


def blocked_directory(path: Path) -> tuple[Path, str] | None:
    """The nearest of ``path`` and the directories above it that is something other than a
    directory, with :func:`not_a_directory`'s words for it: ``train.csv/sub`` is refused because
    ``train.csv`` is a file, which "sub does not exist" hid. None where the way is clear."""
    for above in (path, *path.parents):
        blocker = not_a_directory(above)
        if blocker is not None:
            return above, blocker
    return None


def require_directory_place(what: str, path: Path) -> Path:
    """``path``, where a directory is or can be made; else a NotADirectoryError naming ``what`` (a flow's
    parameter, "export_dir") and the path in the way. A flow checks its output directories when it
    starts: a file given as ``export_dir`` failed the run with a bare "File exists" once the dataset
    was built, and its labels never triggered retraining."""
    blocked = blocked_directory(path)
    if blocked is None:
        return path
    where, why = blocked
    raise NotADirectoryError(f"{what} {path} {why}" if where == path else f"{what} {path}: {where} {why}")


def _broken_link(path: Path) -> str:
    """A symbolic link that leads nowhere: to nothing, or round a loop of links."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a loop of symbolic links"
    return "is a symbolic link to nothing"
