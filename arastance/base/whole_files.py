"""A set of files that replaces its earlier version only once all of it is written.

An export or an index is several files written one after another, straight into the directory
that holds the earlier version. A write that failed part-way (a full disk) left a mix: the
dataset export's complete train.jsonl was replaced by a cut one beside the old manifest, the
search index had a new data file, a cut one and the old documents. Here the files are written into
a directory inside the target first (same filesystem), and moved over their namesakes only when
the block ends normally; moving needs no space, and the names in ``last`` go last (a manifest or
the file a reader looks for first), so an interruption between the moves leaves files that
disagree with the old manifest rather than a manifest vouching for them. A failed block leaves
the target as it was. Each file is on the disk (fsync) before it takes its name: after a power
loss a file renamed while its data was still in the page cache could be found empty or cut short
under the name a later run trusts.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def written_whole(directory: Path, last: Sequence[str] = ()) -> Iterator[Path]:
    """A fresh directory to write the files into; they replace those of ``directory`` when the block succeeds."""
    directory.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=directory))
    try:
        yield partial
        names = sorted(p.name for p in partial.iterdir())
        for name in names:
            _sync(partial / name)
        for name in [n for n in names if n not in last] + [n for n in last if n in names]:
            os.replace(partial / name, directory / name)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _sync(path: Path) -> None:
    """Flush a written file's data to the disk; a directory's files are flushed one by one."""
    if path.is_dir():
        for child in path.iterdir():
            _sync(child)
        return
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
