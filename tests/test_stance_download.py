"""Downloading AraStance: git blob checksums, a local HTTP server in place of GitHub, offline errors."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app
from tasks.stance.download import ARASTANCE_FILES, DownloadError, download_arastance, git_blob_sha1


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "upstream" / "data"
    root.mkdir(parents=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(tmp_path / "upstream")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/data/", root
    finally:
        server.shutdown()
        server.server_close()


def test_git_blob_sha1_matches_git() -> None:
    assert git_blob_sha1(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # `git hash-object`
    assert git_blob_sha1(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob
    assert set(ARASTANCE_FILES) == {"train.jsonl", "dev.jsonl", "test.jsonl"}


def test_download_verifies_and_keeps_verified_files(served: tuple[str, Path], tmp_path: Path) -> None:
    url, upstream = served
    contents = {name: f'{{"claim": "{name}", "article": ["نص"], "stance": ["Agree"]}}\n'.encode() for name in ("a.jsonl", "b.jsonl")}
    for name, data in contents.items():
        (upstream / name).write_bytes(data)
    files = {name: git_blob_sha1(data) for name, data in contents.items()}
    dest = tmp_path / "out"
    written = download_arastance(dest, url, files=files)
    assert [p.read_bytes() for p in written] == list(contents.values())
    (upstream / "a.jsonl").unlink()  # a second run keeps the verified copies without fetching
    assert download_arastance(dest, url, files=files) == written


def test_a_wrong_checksum_is_refused_and_nothing_is_written(served: tuple[str, Path], tmp_path: Path) -> None:
    url, upstream = served
    (upstream / "train.jsonl").write_bytes(b"<html>proxy error</html>")
    dest = tmp_path / "out"
    with pytest.raises(DownloadError, match="does not match the published 1f69d4d56f8bfef95b1b76fe1c11bed935b73423"):
        download_arastance(dest, url)
    assert list(dest.iterdir()) == []


def test_http_errors_and_offline_are_clear(served: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = served
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_arastance(tmp_path / "out", url)
    with socket.socket() as s:  # a port nobody listens on: what "offline" looks like here
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DownloadError, match="needs internet access.*copy train.jsonl"):
        download_arastance(tmp_path / "out", f"http://127.0.0.1:{port}/data/")


def test_cli_download_reports_the_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ARASTANCE_MODEL__ARASTANCE_URL", f"http://127.0.0.1:{port}/data/")
    result = CliRunner().invoke(app, ["datasets", "download", "arastance"])
    assert result.exit_code == 2 and "needs internet access" in result.output
    result = CliRunner().invoke(app, ["datasets", "download", "fnc"])
    assert result.exit_code == 2 and "only 'arastance' can be downloaded" in result.output


class _CutShort(BaseHTTPRequestHandler):
    """Announces 100,000 bytes and closes the connection after 13: a download interrupted mid-file."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b'{"claim": "x"')
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def test_a_download_cut_short_is_a_clear_error_and_nothing_is_saved(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``http.client.IncompleteRead`` is no OSError: it escaped as a traceback."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CutShort)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/data/"
    try:
        with pytest.raises(DownloadError) as err:
            download_arastance(tmp_path / "out", url)
        assert str(err.value) == (f"{url}train.jsonl: broken answer from the server "
                                  "(IncompleteRead(13 bytes read, 99987 more expected)); file not saved")
        assert list((tmp_path / "out").iterdir()) == []
        monkeypatch.setenv("ARASTANCE_MODEL__ARASTANCE_URL", url)
        result = CliRunner().invoke(app, ["datasets", "download", "arastance", "--dest", str(tmp_path / "cli")])
        assert result.exit_code == 2 and "IncompleteRead(13 bytes read" in result.output, result.output
    finally:
        server.shutdown()
        server.server_close()
