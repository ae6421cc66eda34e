"""Readers and writers never block each other: readers open the published copy, never the writer's file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest
from helpers_disk import read_only, small_disk

from warehouse import Warehouse, WarehouseError, file_copy, open_published, open_warehouse, published_path
from warehouse.migrate import apply_migrations

SOURCES = [
    {"source_id": "araanews", "name": "Araanews", "country": "AE", "kind": "fact_check"},
    {"source_id": "dabegad", "name": "Dabegad", "country": "EG", "kind": "fact_check"},
]
CLI = Path(sys.executable).with_name("duckdb")


def _hold(script: str, ready: Path) -> subprocess.Popen:
    """Run ``script`` in another process and wait until it has written ``ready``."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not ready.exists():
        if proc.poll() is not None:
            raise AssertionError(f"helper process ended early: {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("helper process never got ready")
        time.sleep(0.05)
    return proc


def test_closing_a_writer_publishes_a_copy_that_readers_open(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    assert published_path(primary) == tmp_path / "data" / "published" / "warehouse.duckdb"
    with open_published(primary) as reader:
        assert reader.read_only and reader.path == published_path(primary)
        assert reader.scalar("SELECT count(*) FROM sources") == 1
        with pytest.raises(WarehouseError, match="read-only"):
            with reader.transaction():
                pass


def test_a_long_lived_reader_in_another_process_never_holds_up_the_writer(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    ready, release, seen = tmp_path / "ready", tmp_path / "release", tmp_path / "seen"
    reader = _hold(f"""
        import time
        from pathlib import Path
        from warehouse import open_published
        with open_published({str(primary)!r}) as wh:
            Path({str(ready)!r}).touch()
            while not Path({str(release)!r}).exists():
                time.sleep(0.05)
            Path({str(seen)!r}).write_text(str(wh.scalar("SELECT count(*) FROM sources")))
    """, ready)
    try:
        started = time.monotonic()
        with open_warehouse(primary, wait_s=0) as wh:  # wait_s=0: a lock conflict would fail at once
            wh.insert_rows("sources", SOURCES[1:])
        assert time.monotonic() - started < 10
        with open_published(primary) as fresh:  # a new reader sees the new row
            assert fresh.scalar("SELECT count(*) FROM sources") == 2
    finally:
        release.touch()
        assert reader.wait(timeout=60) == 0, reader.stderr.read() if reader.stderr else ""
    assert seen.read_text() == "1"  # the old reader kept its consistent snapshot


def test_readers_open_while_another_process_writes(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES)
    ready, release = tmp_path / "ready", tmp_path / "release"
    writer = _hold(f"""
        import time
        from pathlib import Path
        from warehouse import open_warehouse
        with open_warehouse({str(primary)!r}) as wh:
            wh.con.execute("DELETE FROM sources WHERE source_id = 'dabegad'")
            Path({str(ready)!r}).touch()
            while not Path({str(release)!r}).exists():
                time.sleep(0.05)
    """, ready)
    try:
        with pytest.raises(duckdb.IOException, match="(?i)lock"):  # the writer's file is locked...
            duckdb.connect(str(primary), read_only=True)
        with open_published(primary) as reader:  # ...the published copy is not
            assert reader.scalar("SELECT count(*) FROM sources") == 2
        cli = subprocess.run([str(CLI), "-readonly", "-csv", str(published_path(primary)), "-c",
                              "SELECT count(*) AS n FROM sources"], capture_output=True, text=True, timeout=60)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout.split() == ["n", "2"]
    finally:
        release.touch()
        assert writer.wait(timeout=60) == 0, writer.stderr.read() if writer.stderr else ""
    with open_published(primary) as reader:
        assert reader.scalar("SELECT count(*) FROM sources") == 1


def test_a_session_that_changed_nothing_is_not_copied_again(tmp_path: Path) -> None:
    primary = tmp_path / "warehouse.duckdb"
    open_warehouse(primary).close()
    before = published_path(primary).stat()
    open_warehouse(primary).close()
    after = published_path(primary).stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_a_warehouse_from_before_publishing_gets_its_copy_on_first_read(tmp_path: Path) -> None:
    primary = tmp_path / "warehouse.duckdb"
    with Warehouse(primary, publish=False) as wh:
        apply_migrations(wh)
        wh.insert_rows("sources", SOURCES[:1])
    assert not published_path(primary).exists()
    with open_published(primary) as reader:
        assert reader.scalar("SELECT count(*) FROM sources") == 1
    with pytest.raises(WarehouseError, match="does not exist"):
        open_published(tmp_path / "absent.duckdb")


def test_a_warehouse_path_that_is_a_directory_is_named_as_one_by_readers_and_writers(tmp_path: Path) -> None:
    # it was: a report said "warehouse … does not exist; run `arastance warehouse migrate`", and migrate then failed
    # with DuckDB's "IO Error: Could not read from file …: Is a directory"
    a_dir = tmp_path / "warehouse.duckdb"
    a_dir.mkdir()
    (a_dir / "kept.txt").write_text("kept\n", encoding="utf-8")
    said = f"warehouse {a_dir} is a directory, not a DuckDB file; set warehouse_path (ARASTANCE_WAREHOUSE_PATH"
    for opening in (lambda: open_published(a_dir), lambda: open_warehouse(a_dir), lambda: Warehouse(a_dir, read_only=True)):
        with pytest.raises(WarehouseError) as refused:
            opening()
        assert said in str(refused.value)
    assert [p.name for p in a_dir.iterdir()] == ["kept.txt"] and not published_path(a_dir).exists()


def test_a_reader_never_copies_the_warehouse_again_itself(tmp_path: Path) -> None:
    primary = tmp_path / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    before = published_path(primary).stat()
    with Warehouse(primary, publish=False) as wh:  # a session that publishes at its end, as retrieval's claims do
        wh.insert_rows("sources", SOURCES[1:])
    with open_published(primary) as reader:  # it must not take the writer's lock to copy the file meanwhile
        assert reader.scalar("SELECT count(*) FROM sources") == 1
    after = published_path(primary).stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_a_full_disk_fails_the_copy_not_the_committed_writes_and_readers_say_how_old_theirs_is(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with small_disk(tmp_path, 12) as disk:
        primary = disk.root / "warehouse.duckdb"
        with open_warehouse(primary) as wh:
            wh.insert_rows("sources", SOURCES[:1])
        disk.fill(leave=1 << 20)  # room for the writes, not for another 2.6 MB copy
        with caplog.at_level("WARNING"):
            with open_warehouse(primary) as wh:  # it was: OSError [Errno 28] after the commit
                wh.insert_rows("sources", SOURCES[1:])
            assert "the read-only copy of the warehouse for readers could not be written" in caplog.text
            assert any("No space left on device" in getattr(r, "error", "") for r in caplog.records)
            caplog.clear()
            with open_published(primary) as reader:  # it was: the old count, with no word
                assert reader.scalar("SELECT count(*) FROM sources") == 1
            [warned] = [r for r in caplog.records if r.levelname == "WARNING"]
            assert warned.getMessage().startswith("reading an older read-only copy of the warehouse: a later write "
                                                  "could not refresh it")
            assert "No space left on device" in warned.error and warned.taken
        assert not [p for p in primary.parent.joinpath("published").iterdir() if p.suffix == ".tmp"]
        published_path(primary).unlink()
        disk.fill(leave=1 << 20)
        with pytest.raises(WarehouseError, match="has no published read-only copy, and it could not be written"):
            open_published(primary)  # it was: OSError [Errno 28] with no path
        disk.free()
        with open_published(primary) as reader:
            assert reader.scalar("SELECT count(*) FROM sources") == 2
        caplog.clear()
        with caplog.at_level("WARNING"):
            open_warehouse(primary).close()
            with open_published(primary) as reader:
                assert reader.scalar("SELECT count(*) FROM sources") == 2
        assert "older read-only copy" not in caplog.text  # a copy written since ends the warning



def test_readers_are_warned_also_when_the_copys_directory_refused_the_note(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # it was: a read-only published/ refused the copy and the note saying so alike, and readers
    # read the old copy with no word (3 rounds shown, 4 stored)
    primary = tmp_path / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    with read_only(published_path(primary).parent):
        with open_warehouse(primary) as wh:
            wh.insert_rows("sources", SOURCES[1:])
        with caplog.at_level("WARNING"), open_published(primary) as reader:
            assert reader.scalar("SELECT count(*) FROM sources") == 1
        assert "reading an older read-only copy of the warehouse" in caplog.text
        assert any("Read-only file system" in str(getattr(r, "error", "")) for r in caplog.records)
    caplog.clear()
    with caplog.at_level("WARNING"):
        open_warehouse(primary).close()  # a write that publishes ends the warning
        with open_published(primary) as reader:
            assert reader.scalar("SELECT count(*) FROM sources") == 2
    assert "older read-only copy" not in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []

def test_the_official_cli_reads_the_file_the_library_writes(tmp_path: Path) -> None:
    """duckdb-cli and the duckdb library are pinned to one release line: same storage version."""
    primary = tmp_path / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES)
    env = {**os.environ, "HOME": str(tmp_path)}  # no ~/.duckdbrc from the machine
    done = subprocess.run([str(CLI), "-readonly", "-csv", str(published_path(primary))],
                          input="SELECT source_id FROM sources ORDER BY 1;\n", capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["source_id", "araanews", "dabegad"]
    assert duckdb.__version__ in subprocess.run([str(CLI), "--version"], capture_output=True, text=True).stdout


def test_the_readers_copy_is_as_readable_as_the_warehouse(tmp_path: Path) -> None:
    # it was 0600 (mkstemp's mode, kept by the rename): no user but the writer could read the copy meant for the others
    primary = tmp_path / "data" / "warehouse.duckdb"
    open_warehouse(primary).close()
    primary.chmod(0o644)
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    assert published_path(primary).stat().st_mode & 0o777 == 0o644


def test_a_copy_left_half_written_by_a_killed_writer_is_removed_by_the_next_publish(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    open_warehouse(primary).close()
    partial = published_path(primary).with_name(".warehouse.duckdb.k1ll3d_.tmp")  # as tempfile names it
    partial.write_bytes(b"\0" * 4096)
    other = published_path(primary).with_name(".other.duckdb.k1ll3d_.tmp")  # another warehouse's: not this one's to remove
    other.write_bytes(b"\0")
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES[:1])
    assert not partial.exists() and other.exists()
    with open_published(primary) as reader:
        assert reader.scalar("SELECT count(*) FROM sources") == 1


def test_a_warehouse_file_named_up_to_the_file_systems_limit_gets_its_copy(tmp_path: Path) -> None:
    # it was: the copy's temporary file and stamp (".<name>.XXXXXXXX.tmp", ".<name>.source") passed
    # the 255-byte limit on a name, so the copy was never written and readers were refused
    primary = tmp_path / ("w" * 244 + ".duckdb")  # 251 bytes: DuckDB's own "<name>.wal" takes the rest
    with open_warehouse(primary) as wh:  # created aside, under a name of its own (".<name>.creating-<pid>" was too long)
        wh.insert_rows("sources", SOURCES[:1])
    with open_published(primary) as reader:
        assert reader.scalar("SELECT count(*) FROM sources") == 1
    before = published_path(primary).stat()
    open_warehouse(primary).close()  # its stamp says the copy is current: not copied again
    after = published_path(primary).stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    assert not [p for p in published_path(primary).parent.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize("kernel_copies", [0, 1, None], ids=["refused", "one-block-then-refused", "all"])
def test_the_copy_is_whole_whether_the_kernel_copies_it_all_part_or_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel_copies: int | None) -> None:
    """``copy_file_range`` fails across file systems and on old kernels (EXDEV, ENOSYS); the
    buffered copy then writes what is left, from where the kernel stopped."""
    real = os.copy_file_range
    calls = []

    def kernel_copy(src: int, dst: int, count: int, *args: int) -> int:
        calls.append(count)
        if kernel_copies is not None and len(calls) > kernel_copies:
            raise OSError(18, "Invalid cross-device link")
        return real(src, dst, min(count, 64 << 10), *args)  # one block a call, so the file takes several

    monkeypatch.setattr(os, "copy_file_range", kernel_copy)
    primary = tmp_path / "warehouse.duckdb"
    with open_warehouse(primary) as wh:
        wh.insert_rows("sources", SOURCES)
    copy = tmp_path / "copy.duckdb"
    with open(primary, "rb", buffering=0) as src, open(copy, "wb", buffering=0) as dst:  # as the copying process does
        file_copy.copy_contents(src, dst)
    assert copy.read_bytes() == primary.read_bytes()
    blocks = -(-primary.stat().st_size // (64 << 10))
    assert len(calls) == (blocks if kernel_copies is None else kernel_copies + 1)  # the kernel was asked first
