"""A small real filesystem that fills up, and a directory that turns read-only: write failures
tested on a real ENOSPC and a real EROFS.

A tmpfs of a few MiB is mounted for the test (which needs root: CI's machines run as root, and
elsewhere the tests that use it are skipped), and :meth:`SmallDisk.fill` leaves only so many
bytes free, with a filler file that :meth:`SmallDisk.free` removes.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


class SmallDisk:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.filler = root / ".filler"

    def available(self) -> int:
        st = os.statvfs(self.root)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int) -> None:
        """Write a filler file so that about ``leave`` bytes stay free."""
        with open(self.filler, "ab") as fh:
            fh.write(b"\0" * max(0, self.available() - leave))

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)


@contextmanager
def small_disk(tmp_path: Path, size_mib: int) -> Iterator[SmallDisk]:
    """A tmpfs of ``size_mib`` MiB mounted under ``tmp_path``, unmounted afterwards."""
    root = tmp_path / "disk"
    root.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m", "tmpfs", str(root)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root: {mounted.stderr.strip()}")
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)


@contextmanager
def read_only(directory: Path) -> Iterator[Path]:
    """``directory`` bind-mounted read-only over itself: writes under it fail with EROFS, as on a
    disk that the kernel turned read-only after an I/O error."""
    mounted = subprocess.run(["mount", "--bind", str(directory), str(directory)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a bind mount needs root: {mounted.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], check=True, capture_output=True)
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)
