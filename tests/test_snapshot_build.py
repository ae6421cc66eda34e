"""Building the offline web replaces an earlier build, and nothing else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers_spiders import world

from arastance.cli import app
from snapshots.build import COMPLETE_MARKER, FAULTS_FILE, SnapshotDirError, build_snapshots

runner = CliRunner()


def test_a_rebuild_replaces_the_earlier_build_and_leaves_no_staging(tmp_path: Path) -> None:
    out = tmp_path / "web"
    build_snapshots(out, world())
    (out / "stale.html").write_text("from an earlier build", encoding="utf-8")
    (tmp_path / ".web.building").mkdir()  # an interrupted build's leftovers
    (tmp_path / ".web.building" / "half.html").write_text("cut short", encoding="utf-8")
    summary = build_snapshots(out, world())
    assert summary.root == out
    assert not (out / "stale.html").exists()
    assert (out / COMPLETE_MARKER).is_file() and (out / FAULTS_FILE).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["web"]


def test_a_build_that_finds_the_disk_full_keeps_the_earlier_one_and_frees_what_it_wrote(tmp_path: Path) -> None:
    from helpers_disk import small_disk

    with small_disk(tmp_path, 32) as disk:
        out = disk.root / "web"
        build_snapshots(out, world())
        before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
        disk.fill(leave=2 << 20)
        left = disk.available()
        with pytest.raises(OSError, match="No space left on device"):
            build_snapshots(out, world())
        assert sorted(p.name for p in disk.root.iterdir()) == [".filler", "web"]  # it was: .web.building, the disk full
        assert disk.available() >= left and sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before



def test_a_rebuild_over_a_build_it_cannot_delete_whole_puts_itself_in_place_whole(tmp_path: Path) -> None:
    # it was: the earlier build was deleted in place; refused partway (a read-only part), it lost
    # three sites and its fault plan under its marker, which the offline crawls then trusted
    from helpers_disk import read_only

    out = tmp_path / "web"
    build_snapshots(out, world())
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    with read_only(out / "reuters"):
        try:
            build_snapshots(out, world())
        finally:  # the rebuild moved the mount aside with the earlier build: unmount it there
            for moved in tmp_path.glob(".web.replaced-*/reuters"):
                subprocess.run(["umount", "-l", str(moved)], check=False)
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
        [earlier] = [p for p in tmp_path.iterdir() if p.name.startswith(".web.replaced-")]  # what could not go
    build_snapshots(out, world())  # a later build is not stopped by it

def test_a_directory_that_is_not_a_build_is_refused_and_kept(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(SnapshotDirError, match="not a snapshot build"):
        build_snapshots(tmp_path, world())
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "keep me"
    a_file = tmp_path / "notes.txt"
    with pytest.raises(SnapshotDirError, match="is a file"):
        build_snapshots(a_file, world())
    build_snapshots(tmp_path / "empty", world())  # a new directory is fine
    assert (tmp_path / "empty" / COMPLETE_MARKER).is_file()


def test_snapshots_build_refuses_an_occupied_directory_with_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "warehouse.duckdb").write_bytes(b"stored data")
    refused = runner.invoke(app, ["snapshots", "build", "--out", str(tmp_path)])
    assert refused.exit_code == 2
    assert f"error: {tmp_path} holds files that are not a snapshot build" in refused.output
    assert "Traceback" not in refused.output
    assert (tmp_path / "warehouse.duckdb").read_bytes() == b"stored data"


def test_snapshots_serve_refuses_a_port_or_delay_out_of_range() -> None:
    for option, value in (("--port", "70000"), ("--port", "-1"), ("--slow-delay", "-5")):
        refused = runner.invoke(app, ["snapshots", "serve", option, value])
        assert refused.exit_code == 2 and option in refused.output, (option, value, refused.output)


def test_two_processes_building_the_same_snapshots_at_once_both_end_with_one_build(tmp_path: Path) -> None:
    # it was: both used the staging directory .snapshots.building and deleted each other's; one of the two
    # crashed (two offline crawls, or a demo and a crawl, on a fresh data directory)
    import sys

    out = tmp_path / "snapshots"
    code = ("import sys; from pathlib import Path; from snapshots.build import ensure_snapshots; "
            f"ensure_snapshots(Path({str(out)!r})); print((Path({str(out)!r}) / '.complete').stat().st_mtime_ns)")
    repo = Path(__file__).resolve().parents[1]
    runs = [subprocess.Popen([sys.executable, "-c", code], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outcomes = [run.communicate(timeout=300) + (run.returncode,) for run in runs]
    assert [code for _, _, code in outcomes] == [0, 0], [err for _, err, _ in outcomes]
    assert outcomes[0][0] == outcomes[1][0], "the one that waited found the other's build and did not build again"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snapshots"] and (out / COMPLETE_MARKER).is_file()


def test_snapshots_build_into_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: ValueError: PosixPath('.') has an empty name
    here = tmp_path / "web"
    here.mkdir()
    monkeypatch.chdir(here)
    built = runner.invoke(app, ["snapshots", "build", "--out", "."])
    assert built.exit_code == 0, built.output
    assert (here / COMPLETE_MARKER).is_file() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.timeout(60)  # it was: served until interrupted
def test_snapshots_serve_refuses_a_root_that_is_not_a_build(tmp_path: Path) -> None:
    # it was: any directory was served whole, `--root data/demo` its warehouse included
    (tmp_path / "warehouse.duckdb").write_bytes(b"stored data")
    refused = runner.invoke(app, ["snapshots", "serve", "--root", str(tmp_path), "--port", "0"])
    shown = " ".join(refused.output.split())
    assert refused.exit_code == 2, shown
    assert f"error: --root {tmp_path} is not a snapshot build (it has no .complete)" in shown
    assert "`arastance snapshots build --out DIR`" in shown and "ARASTANCE_SITES" not in shown
