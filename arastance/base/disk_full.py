"""Telling a full (or read-only) disk from other errors: the system's error, or a library's quoting it, or
either behind a wrapper.

A write on a full disk (or over the user's quota) fails where no path is named as a rule (a
flush, a checkpoint, a queue push), and libraries pass it on in their own form: DuckDB raises its
own error quoting the system's words, a Prefect flow or a ``raise … from`` wraps it. The command
line turns it into one line saying so; a crawl stops on it (:mod:`spiders.disk_full`).
"""

from __future__ import annotations

import errno

#: The system's words for each error number that means there is no room left to write.
DISK_FULL = {errno.ENOSPC: "No space left on device", errno.EDQUOT: "Disk quota exceeded"}


#: The system's words for a disk that takes no writes at all: mounted read-only, or turned
#: read-only by the kernel after an I/O error. No retry helps either, nor does freeing space.
READ_ONLY = {errno.EROFS: "Read-only file system"}


def system_error(exc: BaseException | None, words: dict[int, str]) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain with one of ``words``' error numbers (or, from a library, their
    words), with the system's words for it; None if none has."""
    for _ in range(10):
        if exc is None:
            return None
        if isinstance(exc, OSError):
            if exc.errno in words:
                return exc, words[exc.errno]
        else:
            reason = next((r for r in words.values() if r in str(exc)), None)
            if reason is not None:
                return exc, reason
        exc = exc.__cause__ or exc.__context__
    return None


def full_disk_error(exc: BaseException | None) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain that says the disk is full, with the system's words for it; None if none does."""
    return system_error(exc, DISK_FULL)


def read_only_error(exc: BaseException | None) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain that says the disk takes no writes, with the system's words; None if none does."""
    return system_error(exc, READ_ONLY)
