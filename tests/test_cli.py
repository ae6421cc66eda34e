"""The command line: stage commands listed, SQL read-only by default, config errors named."""

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app

runner = CliRunner()


def test_help_lists_the_foundation_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("config", "warehouse", "sql", "stats", "demo"):
        assert command in result.output


def test_migrate_then_sql_prints_a_table() -> None:
    assert runner.invoke(app, ["warehouse", "migrate"]).exit_code == 0
    result = runner.invoke(app, ["sql", "SELECT 6 * 7 AS answer"])
    assert result.exit_code == 0, result.output
    assert "answer" in result.output and "42" in result.output


def test_sql_is_read_only_unless_asked() -> None:
    runner.invoke(app, ["warehouse", "migrate"])
    result = runner.invoke(app, ["sql", "DELETE FROM claims"])
    assert result.exit_code == 2
    assert "read-only" in result.output or "read-only" in str(result.stderr)


def test_invalid_setting_stops_the_command_naming_it(monkeypatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "bing")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 2
    assert "ARASTANCE_SEARCH__BACKEND" in result.output + str(result.stderr)


def test_config_show_masks_secrets(monkeypatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", "brv-secret-123")
    result = runner.invoke(app, ["config", "show"])
    assert result.exit_code == 0
    assert "brv-secret-123" not in result.output and "****" in result.output


def test_the_entry_point_gives_prefect_time_to_start_its_first_server_and_keeps_an_operators_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import Settings

    from arastance.cli import main

    monkeypatch.delenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", raising=False)
    monkeypatch.setenv("PREFECT_SERVER_ANALYTICS_ENABLED", "true")
    monkeypatch.setattr(sys, "argv", ["arastance", "--help"])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 0
    settings = Settings()  # what a flow command's temporary server will read
    assert settings.server.ephemeral.startup_timeout_seconds == 180  # Prefect's own default is 20
    assert settings.server.analytics_enabled is True


def test_a_path_the_system_refuses_ends_the_command_with_one_line_naming_it(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from arastance.cli import main

    target = tmp_path / "settings"
    target.mkdir()  # a directory where the settings file should go
    monkeypatch.setattr(sys, "argv", ["arastance", "config", "preset", "paper", "--out", str(target), "--force"])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"error: is a directory: {target}" in err.replace("\n", "")
    assert "Traceback" not in err and list(target.iterdir()) == []


def test_a_path_error_raised_with_a_message_of_its_own_ends_the_command_with_that_message(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # it was: "error: filenotfounderror", the message lost (such errors carry no strerror or filename)
    from arastance import cli

    def refuse() -> None:
        raise FileNotFoundError("no local search index in data/index; build it with `arastance index build`")

    monkeypatch.setattr(cli, "app", refuse)
    monkeypatch.setattr(sys, "argv", ["arastance", "retrieve"])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    assert "error: no local search index in data/index; build it with `arastance index build`" in \
        capsys.readouterr().err.replace("\n", "")
    assert cli.path_error_message(FileExistsError(17, "File exists", "out")) == "file exists: out"
    assert cli.path_error_message(OSError(36, "File name too long", b"/srv/\xd8\xa3")) == "file name too long: /srv/أ"


def test_an_out_directory_that_is_a_file_is_named_as_such(tmp_path: Path) -> None:
    # it was: "error: file exists: out.txt", which did not say that a directory was wanted there
    from typer.testing import CliRunner

    from arastance.cli import app, path_error_message

    a_file = tmp_path / "out.txt"
    a_file.write_text("kept\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["dataset", "export", "--out", str(a_file)])
    assert result.exit_code == 2 and f"error: is a file, not a directory: {a_file}" in result.output.replace("\n", ""), \
        result.output
    for data_dir in (a_file, a_file / "below"):  # it was: the staging path under it named, after Prefect started
        demo = CliRunner().invoke(app, ["demo", "--data-dir", str(data_dir)])
        said = demo.output.replace("\n", "")
        assert demo.exit_code == 2 and (f"is a file, not a directory: {a_file}" in said or
                                        f"not a directory: {data_dir}" in said), demo.output
        assert "Prefect" not in said and ".snapshots" not in said, demo.output
    serve = CliRunner().invoke(app, ["snapshots", "serve", "--root", str(a_file)])  # it was: "does not exist"
    assert serve.exit_code == 2 and f"snapshot directory {a_file} is a file, not a directory" in \
        serve.output.replace("\n", ""), serve.output
    from snapshots.server import SnapshotServer
    with pytest.raises(NotADirectoryError, match="is a file, not a directory"):  # it was FileNotFoundError
        SnapshotServer(a_file)
    with pytest.raises(FileNotFoundError, match="does not exist; run `arastance snapshots build`"):
        SnapshotServer(tmp_path / "nowhere")
    assert a_file.read_text(encoding="utf-8") == "kept\n"
    (tmp_path / "dir").mkdir()  # a directory there: the system's own words
    assert path_error_message(FileExistsError(17, "File exists", str(tmp_path / "dir"))) == f"file exists: {tmp_path / 'dir'}"
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "fifo")
    for there, said in (("dangling", "is a symbolic link to nothing, not a directory"), ("fifo", "is not a directory")):
        assert path_error_message(FileExistsError(17, "File exists", str(tmp_path / there))) == f"{said}: {tmp_path / there}"


def test_a_command_run_in_process_ends_a_refused_path_with_the_same_one_line(tmp_path) -> None:
    # it was: only the installed command's entry point gave the line; CliRunner and a notebook calling app()
    # got the IsADirectoryError's traceback (exit code 1)
    from typer.testing import CliRunner

    from arastance.cli import app

    target = tmp_path / "settings"
    target.mkdir()
    result = CliRunner().invoke(app, ["config", "preset", "paper", "--out", str(target), "--force"])
    assert result.exit_code == 2
    assert f"error: is a directory: {target}" in result.output.replace("\n", "")
    assert "Traceback" not in result.output


def test_a_command_that_ended_itself_on_a_full_disk_keeps_its_one_line_and_exit_code(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was (review): the command group caught the command's own typer.Exit, followed its context back to the full
    # disk and printed a second error line, with exit code 2 instead of the crawl's 1
    import errno

    import flows.crawl_sources
    from typer.testing import CliRunner

    from arastance.cli import app

    def full_disk(**_: object) -> None:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as exc:
            raise RuntimeError("crawl of norumors (run r1) stopped: the disk filled up; free space and crawl again") from exc

    monkeypatch.setattr(flows.crawl_sources, "crawl_sources", full_disk)
    result = CliRunner().invoke(app, ["crawl", "--site", "norumors"])
    assert result.exit_code == 1 and result.output.count("error:") == 1, result.output
    assert "error: crawl of norumors (run r1) stopped: the disk filled up" in result.output


def test_a_path_error_keeps_the_case_of_the_paths_its_text_names() -> None:
    from arastance.cli import path_error_message

    refused = FileNotFoundError(2, "No usable temporary directory found in ['/srv/TMP.AbC']")
    assert path_error_message(refused) == "no usable temporary directory found in ['/srv/TMP.AbC']"
