"""``arastance crawl``'s archive window and mode, checked against the effective settings before anything runs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arastance.cli import app

runner = CliRunner()


def _refused(*args: str) -> str:
    result = runner.invoke(app, ["crawl", "--offline", "--site", "norumors", *args])
    assert result.exit_code == 2, result.output
    return " ".join((result.output + str(result.stderr)).split())


def test_a_bound_is_checked_against_the_other_one_from_the_settings() -> None:
    # it was: the CLI compared --from with --to only, and the flow failed on crawl.archive_to (2018-12-31) with a
    # pydantic ValidationError traceback
    shown = _refused("--archive", "--from", "2019-06-01")
    assert "--from 2019-06-01 is after crawl.archive_to 2018-12-31; give --to as well" in shown
    assert "Traceback" not in shown and "ValidationError" not in shown
    assert "crawl.archive_from 2012-01-01 is after --to 2011-06-01; give --from as well" in _refused(
        "--both", "--to", "2011-06-01")
    assert "--from 2015-01-01 is after --to 2014-01-01" in _refused("--archive", "--from", "2015-01-01",
                                                                    "--to", "2014-01-01")


def test_the_crawl_mode_setting_counts_as_archive_or_both(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: with ARASTANCE_CRAWL__MODE=archive (README: "the same as a setting"), --from/--to asked for --archive
    for mode in ("archive", "both"):
        monkeypatch.setenv("ARASTANCE_CRAWL__MODE", mode)
        assert "is after crawl.archive_to" in _refused("--from", "2019-06-01")  # taken as an archive window
    monkeypatch.setenv("ARASTANCE_CRAWL__MODE", "live")
    assert "--from/--to choose archive captures: add --archive" in _refused("--from", "2016-01-01")


@pytest.mark.timeout(120)  # it was: a whole crawl
def test_offline_refuses_a_site_without_snapshots_before_anything_is_fetched(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: `crawl --offline --site misbar` crawled the real misbar.com, with the offline world's politeness
    # delays (none) and its claims loaded; the snapshots hold four sites only
    from helpers_search import ApiServer, Reply

    live = ApiServer(lambda r: Reply(body=[]))
    monkeypatch.setenv("ARASTANCE_SITES__MISBAR", live.url + "/")  # where "the real site" would be asked
    with live.running():
        result = runner.invoke(app, ["crawl", "--offline", "--site", "misbar", "--site", "norumors"])
    shown = " ".join((result.output + str(result.stderr)).split())
    assert result.exit_code == 2, shown
    assert "no offline snapshots of misbar; the snapshots hold araanews, dabegad, norumors, reuters" in shown
    assert live.requests == [] and not (tmp_path / "data" / "snapshots").exists(), "refused before anything ran"


def test_offline_names_a_snapshot_directory_holding_other_files_in_one_line(tmp_path) -> None:
    # it was: a 48-line SnapshotDirError traceback, whose advice ("choose a new or empty directory") no option gave
    snapshots = tmp_path / "data" / "snapshots"
    snapshots.mkdir(parents=True)
    (snapshots / "notes.txt").write_text("mine", encoding="utf-8")
    for command in (["crawl", "--offline", "--site", "norumors"], ["snapshots", "serve", "--port", "0"]):
        result = runner.invoke(app, command)
        shown = " ".join((result.output + str(result.stderr)).split())
        assert result.exit_code == 2, (command, shown)
        assert f"error: {snapshots} holds files that are not a snapshot build (it has no .complete); move what is " \
               "there away, or set ARASTANCE_DATA_DIR to another data directory" in shown, (command, shown)
        assert "Traceback" not in shown and (snapshots / "notes.txt").read_text(encoding="utf-8") == "mine"
