"""A snapshots directory given as a symbolic link to nothing is refused, not followed to where it points."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers_spiders import world

from arastance.cli import app
from snapshots.build import COMPLETE_MARKER, SnapshotDirError, build_snapshots, ensure_snapshots

runner = CliRunner()


def _dangling(tmp_path: Path, name: str = "link") -> tuple[Path, Path]:
    """A link at ``tmp_path/name`` to a target three missing directories deep."""
    target = tmp_path / "elsewhere" / "deep" / "target"
    (tmp_path / name).symlink_to(target)
    return tmp_path / name, target


def test_a_build_refuses_a_link_to_nothing_and_makes_no_directory(tmp_path: Path) -> None:
    # it was: the link was resolved first, and the build made elsewhere/deep/target and filled it
    link, _ = _dangling(tmp_path)
    for out in (link, link / "sub"):
        with pytest.raises(SnapshotDirError, match=re.escape(f"{link} is a symbolic link to nothing, not a "
                                                             "directory; choose a new or empty directory")):
            build_snapshots(out, world())
    with pytest.raises(SnapshotDirError, match="is a symbolic link to nothing"):
        ensure_snapshots(link)
    assert not (tmp_path / "elsewhere").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["link"]


def test_snapshots_build_refuses_a_link_to_nothing_in_one_line(tmp_path: Path) -> None:
    link, _ = _dangling(tmp_path)
    refused = runner.invoke(app, ["snapshots", "build", "--out", str(link)])
    shown = " ".join(refused.output.split())
    assert refused.exit_code == 2, shown
    assert f"error: {link} is a symbolic link to nothing, not a directory" in shown and "Traceback" not in shown
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.timeout(60)  # it was: built at the link's target, then served until interrupted
def test_snapshots_serve_refuses_a_default_snapshots_directory_that_is_a_link_to_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    link, target = _dangling(data, "snapshots")
    refused = runner.invoke(app, ["snapshots", "serve", "--port", "0"])
    shown = " ".join(refused.output.split())
    assert refused.exit_code == 2, shown
    assert f"error: {link} is a symbolic link to nothing, not a directory; move what is there away" in shown
    assert "ARASTANCE_SITES" not in shown and not (data / "elsewhere").exists()
    served = runner.invoke(app, ["snapshots", "serve", "--root", str(link), "--port", "0"])  # --root: refused too
    assert served.exit_code == 2 and "is a symbolic link to nothing, not a directory" in " ".join(served.output.split())
    assert not target.exists()


def test_a_link_to_a_directory_is_still_built_at_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    assert build_snapshots(tmp_path / "link", world()).root == target
    assert (target / COMPLETE_MARKER).is_file() and (tmp_path / "link").is_symlink()
