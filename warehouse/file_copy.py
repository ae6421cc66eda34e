"""Copy a file into another in the kernel, as a program: ``python -I -S file_copy.py SOURCE TARGET``.

:mod:`warehouse.publish` copies the writer's warehouse file for readers in a process of its own:
closing any descriptor of a file drops every POSIX lock the closing process holds on it, DuckDB's
file lock included, so a copy read in the writer's process let another process open the warehouse
for writing while this one still had it open (a crawl's other sites still loading, in the flow's
threads, when one site's writer published). This module imports nothing of the project, so that
the program starts at once (about 30 ms); it runs isolated (``-I``: its directory's modules shadow
nothing) and without ``site``.

The copy uses ``copy_file_range``: on a file system that shares blocks (XFS, btrfs) it takes no
time and no space until the writer changes a block; on ext4 it still saves the trip through
Python's buffers. Where the kernel cannot (another file system, an old kernel), what is left is
copied through a buffer. The target is flushed to the disk before the program ends. An error ends
it with Python's traceback, whose last line (``OSError: [Errno 28] No space left on device``) the
caller reads back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import BinaryIO


def copy_contents(src: BinaryIO, dst: BinaryIO) -> None:
    """Copy ``src`` into ``dst`` from their current positions, in the kernel where it can."""
    left = os.fstat(src.fileno()).st_size
    with contextlib.suppress(OSError):  # EXDEV, ENOSYS, EOPNOTSUPP...: the buffered copy takes over
        while left > 0:
            copied = os.copy_file_range(src.fileno(), dst.fileno(), min(left, 1 << 30))
            if copied == 0:  # a file system that copies nothing this way
                break
            left -= copied
    shutil.copyfileobj(src, dst, length=16 << 20)  # the rest, from where the kernel's copy stopped
    dst.flush()


def main(source: str, target: str) -> None:
    """Copy the file ``source`` over the contents of the existing file ``target``, and sync it."""
    with open(source, "rb", buffering=0) as src, open(target, "wb", buffering=0) as dst:
        copy_contents(src, dst)
        os.fsync(dst.fileno())


if __name__ == "__main__":
    main(*sys.argv[1:3])
