"""written_whole: the files replace their namesakes only when the block ends, each on the disk first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arastance.base import whole_files
from arastance.base.whole_files import written_whole


def test_every_file_is_synced_before_any_takes_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: renamed while its data could still be in the page cache, so a power loss could leave an empty
    # or cut file under the name a later run trusts (a cached CDX page, the index's documents, a manifest)
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", Path(os.readlink(f"/proc/self/fd/{fd}")).name))
        real_fsync(fd)

    def replace(src: str | Path, dst: str | Path) -> None:
        events.append(("replace", Path(src).name))
        real_replace(src, dst)

    monkeypatch.setattr(whole_files.os, "fsync", fsync)
    monkeypatch.setattr(whole_files.os, "replace", replace)
    (tmp_path / "manifest.json").write_text("old", encoding="utf-8")
    with written_whole(tmp_path, last=("manifest.json",)) as partial:
        (partial / "data.bin").write_bytes(b"x" * 10_000)
        (partial / "parts").mkdir()
        (partial / "parts" / "a.npy").write_bytes(b"a")
        (partial / "manifest.json").write_text("new", encoding="utf-8")
    synced = [name for kind, name in events if kind == "fsync"]
    assert sorted(synced) == ["a.npy", "data.bin", "manifest.json"]
    first_replace = next(i for i, (kind, _) in enumerate(events) if kind == "replace")
    assert all(kind == "fsync" for kind, _ in events[:first_replace])  # every file synced before any rename
    assert [name for kind, name in events if kind == "replace"] == ["data.bin", "parts", "manifest.json"]
    assert (tmp_path / "manifest.json").read_text(encoding="utf-8") == "new"
    assert (tmp_path / "parts" / "a.npy").read_bytes() == b"a"


def test_a_failed_block_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("old", encoding="utf-8")
    with pytest.raises(OSError), written_whole(tmp_path) as partial:
        (partial / "manifest.json").write_text("new", encoding="utf-8")
        raise OSError(28, "No space left on device")
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    assert (tmp_path / "manifest.json").read_text(encoding="utf-8") == "old"


@pytest.mark.parametrize("blocked", ["dev.jsonl", "test.jsonl"])
def test_a_directory_where_a_file_goes_stops_the_moves_before_any(tmp_path: Path, blocked: str) -> None:
    # it was: the files sorted before it replaced theirs, and the error named the block's own directory
    # ("is a directory: out/.partial-x/test.jsonl -> out/test.jsonl")
    for name in ("dev.jsonl", "test.jsonl", "manifest.json"):
        (tmp_path / name).write_text("old", encoding="utf-8")
    (tmp_path / blocked).unlink()
    (tmp_path / blocked).mkdir()
    with pytest.raises(IsADirectoryError) as raised:
        with written_whole(tmp_path, last=("manifest.json",)) as partial:
            for name in ("dev.jsonl", "test.jsonl", "manifest.json"):
                (partial / name).write_text("new", encoding="utf-8")
    assert raised.value.filename == str(tmp_path / blocked)
    assert raised.value.strerror == "a directory stands where a file is written; move it away"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev.jsonl", "manifest.json", "test.jsonl"]
    assert all((tmp_path / n).read_text(encoding="utf-8") == "old" for n in ("dev.jsonl", "test.jsonl", "manifest.json")
               if n != blocked)


def test_a_file_where_a_directory_goes_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "index").write_text("old", encoding="utf-8")
    with pytest.raises(NotADirectoryError) as raised:
        with written_whole(tmp_path) as partial:
            (partial / "index").mkdir()
    assert raised.value.filename == str(tmp_path / "index")
    assert (tmp_path / "index").read_text(encoding="utf-8") == "old"
