"""A crawl child's command line holds no password: every user of the machine reads it (``ps``,
``/proc/<pid>/cmdline``). The launcher passed an archive, availability API or article mirror behind
basic authentication as ``-a archive_url=http://user:password@host/``, shown for the whole crawl;
it now passes the URL without its credentials there, and the whole URL in the child's environment,
which only its own user reads. Real crawls against servers on 127.0.0.1 that demand the password."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest
from helpers_spiders import crawl_settings, pages_of, snapshot_root, world
from test_url_passwords_crawl import PASSWORD, PASSWORD_IN_URL, BasicAuthGate

from arastance.base.secrets import URL_ARGUMENTS_ENV, url_argument
from snapshots.server import SnapshotServer
from tasks import scrapy_launcher
from tasks.articles import read_fetched, run_article_spider
from tasks.crawl_runner import run_spider

pytestmark = pytest.mark.slow
FAST = {"DOWNLOAD_DELAY": 0, "AUTOTHROTTLE_ENABLED": False, "RETRY_TIMES": 1, "RETRY_BACKOFF_BASE": 0.01}
T = TypeVar("T")


def _children_command_lines() -> list[str]:
    """The command lines of this process's children, as any user of the machine reads them."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            if entry.name.isdigit() and int(stat.rpartition(")")[2].split()[1]) == os.getpid():
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace"))
        except OSError:  # a process that ended meanwhile
            continue
    return found


@contextmanager
def _command_lines_watched() -> Iterator[list[str]]:
    """Every command line of a child of this process seen while the block runs (read every 20 ms)."""
    seen: list[str] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.02):
            seen.extend(c for c in _children_command_lines() if c not in seen)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield seen
    finally:
        done.set()
        watcher.join()


def _watched(crawl: Callable[[], T]) -> tuple[T, list[str]]:
    with _command_lines_watched() as seen:
        result = crawl()
    crawls = [line for line in seen if " -m scrapy crawl " in line]
    assert crawls, f"no crawl child was seen running: {seen}"
    return result, crawls


def test_the_article_fetchers_command_line_holds_no_password_and_it_still_authenticates(tmp_path: Path) -> None:
    article = world().articles[0]
    rumour = world().posts_of("norumors")[3]  # not in the news mirror (dead there), archived
    urls = {"live": f"https://{article.domain}{article.path}", "archived": f"https://norumors.net{rumour.path}"}
    with SnapshotServer(snapshot_root()) as server, BasicAuthGate(server.base_url).running() as gate:
        archive = (gate.url("archive/"), gate.url("archive/wayback/available"))
        out, crawls = _watched(lambda: run_article_spider(list(urls.values()), tmp_path / "run", scrapy_settings=FAST,
                                                          mirror_base=gate.url(""), archive=archive))
    assert not any(PASSWORD in line or PASSWORD_IN_URL in line for line in crawls), crawls
    [line] = crawls
    for name, url in (("mirror_base", gate.url("")), ("archive_url", archive[0]), ("availability_url", archive[1])):
        assert f" -a {name}={url.replace(f'op:{PASSWORD_IN_URL}@', '')} " in line
    # the gate turns away a request without the password (401): each page read came through it
    records = {r["url"]: r for r in read_fetched(out)}
    assert records[urls["live"]]["fetch_error"] is None and records[urls["live"]]["copy"] == "live"
    assert records[urls["archived"]]["fetch_error"] is None and records[urls["archived"]]["copy"] == "archive"


def test_an_archive_crawls_command_line_holds_no_password_and_it_still_authenticates(tmp_path: Path) -> None:
    with SnapshotServer(snapshot_root()) as server, BasicAuthGate(server.base_url).running() as gate:
        settings = crawl_settings(tmp_path / "data", server, archive_url=gate.url("archive/"), archive_delay_s=0.0,
                                  archive_page_size=25)
        result, crawls = _watched(lambda: run_spider("araanews", settings, mode="archive", timeout_s=120))
    assert not any(PASSWORD in line or PASSWORD_IN_URL in line for line in crawls), crawls
    [line] = crawls
    assert f" -a archive_url={gate.url('archive/', credentials=False)} " in line
    ok = [p for p in pages_of(result) if p["parse_status"] == "ok"]  # read through the gate: authenticated
    assert ok and all(p["url"].startswith(gate.url("archive/web/", credentials=False)) for p in ok)


def test_a_url_argument_typed_with_its_credentials_is_used_as_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``scrapy crawl norumors -a archive_url=http://user:pw@host/`` typed by hand still crawls with them; the
    launcher's variable gives a URL's credentials back only to that URL, never to another argument or URL."""
    given = "http://op:Ses%40me@127.0.0.1:8000/archive/"
    assert scrapy_launcher.command_line_arguments({"archive_url": given, "mode": "archive"}) == (
        {"archive_url": "http://127.0.0.1:8000/archive/", "mode": "archive"}, {"archive_url": given})
    monkeypatch.setenv(URL_ARGUMENTS_ENV, f'{{"archive_url": "{given}"}}')
    assert url_argument("archive_url", "http://127.0.0.1:8000/archive/") == given
    assert url_argument("archive_url", "http://127.0.0.1:9000/archive/") == "http://127.0.0.1:9000/archive/"
    assert url_argument("mirror_base", "http://127.0.0.1:8000/archive/") == "http://127.0.0.1:8000/archive/"
    typed = "http://me:other@127.0.0.1:8000/archive/"
    assert url_argument("archive_url", typed) == typed
    monkeypatch.setenv(URL_ARGUMENTS_ENV, "[1")
    with pytest.raises(ValueError, match="ARASTANCE_URL_ARGUMENTS must be a JSON object"):
        url_argument("archive_url", typed)
