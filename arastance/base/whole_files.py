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

Only files of an earlier version are replaced: a directory that holds files of the same names but
no mark that a write of ours left there (a manifest, a marker written last) holds someone else's
(the AraStance release that ``datasets download`` fetched, a saved model, the data directory), and
:func:`foreign_files` names them so that the writer can refuse instead of losing them.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
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
            _refuse_kind_change(partial / name, directory / name)
        for name in names:
            _sync(partial / name)
        for name in [n for n in names if n not in last] + [n for n in last if n in names]:
            os.replace(partial / name, directory / name)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _refuse_kind_change(written: Path, target: Path) -> None:
    """Stop before any file moves when ``target`` is a directory where a file was written, or a file where
    a directory was: the move fails there, and with the files before it in place (a directory named
    ``test.jsonl`` left a new ``dev.jsonl`` beside an old manifest), naming the block's own directory."""
    if not os.path.lexists(target) or target.is_dir() == written.is_dir():
        return
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "a directory stands where a file is written; move it away", str(target))
    raise NotADirectoryError(errno.ENOTDIR, "a file stands where a directory is written; move it away", str(target))


def foreign_files(directory: Path, ours: Callable[[Path], bool], names: Collection[str] | None = None) -> list[str]:
    """The entries of ``directory`` that a write there would replace (those named in ``names``; every one
    where None, for a write that replaces the directory whole), sorted, where ``ours(directory)`` finds no
    mark of an earlier write of ours; empty where the directory is missing, is ours, or holds none of them."""
    if not os.path.isdir(directory) or ours(directory):
        return []
    return sorted(entry.name for entry in directory.iterdir() if names is None or entry.name in names)


def _sync(path: Path) -> None:
    """Flush a written file's data to the disk; a directory's files are flushed one by one."""
    if path.is_dir():
        for child in path.iterdir():
            _sync(child)
        return
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
