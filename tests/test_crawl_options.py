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
