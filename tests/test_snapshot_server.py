"""The offline web: what the build writes and how the local server answers, faults included."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from helpers_spiders import snapshot_root, start_server, world

from arastance.base.sites import load_site_config, site_base_url
from arastance.config import load_settings
from snapshots.build import EXTRA_PATHS, FAULTS_FILE
from snapshots.fact_check_sites import newest_first
from snapshots.offline import offline_world
from snapshots.server import SnapshotServer, serve_snapshots


@pytest.fixture(scope="module")
def server() -> Iterator[SnapshotServer]:
    srv = start_server(slow_delay_s=0.4)
    yield srv
    srv.stop()


def fetch(url: str, timeout: float = 5) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def test_the_build_writes_every_site_robots_and_faults() -> None:
    root = snapshot_root()
    for site in ("araanews", "dabegad", "norumors"):
        for post in world().posts_of(site):
            assert (root / site / post.path.lstrip("/") / "index.html").is_file()
    for h in world().headlines:
        assert (root / "reuters" / h.path.lstrip("/")).is_file()
    robots = (root / "robots.txt").read_text(encoding="utf-8")
    assert "Disallow: /araanews/private/draft-preview/" in robots
    faults = json.loads((root / FAULTS_FILE).read_text(encoding="utf-8"))
    assert faults["/dabegad" + EXTRA_PATHS["server_error"]] == {"status": 500}


def test_pages_are_served_in_arabic_with_the_sites_structure(server: SnapshotServer) -> None:
    status, home = fetch(server.site_url("araanews"))
    assert status == 200 and 'dir="rtl"' in home and "nav-links" in home
    newest = newest_first(world().posts_of("norumors"))[0]
    status, page = fetch(server.site_url("norumors") + quote(newest.path.lstrip("/")))
    assert status == 200 and "rumor__text" in page and "هـ" in page
    status, _ = fetch(server.site_url("dabegad") + "category/%d8%b4%d8%a7%d8%a6%d8%b9%d8%a7%d8%aa/page/2/")
    assert status == 200
    # Query-string pagination (Norumors ?page=N, Reuters ?view=page&page=N&pageSize=10), any parameter order.
    status, second = fetch(server.site_url("norumors") + "?page=2")
    assert status == 200 and "rumor__meta" in second and second != fetch(server.site_url("norumors"))[1]
    status, reuters = fetch(server.site_url("reuters") + "news/archive/topNews?pageSize=10&page=3&view=page")
    assert status == 200 and reuters.count("headlineMed") == 10


def test_missing_pages_are_404_and_directories_get_their_slash(server: SnapshotServer) -> None:
    assert fetch(server.site_url("araanews") + EXTRA_PATHS["removed"].lstrip("/"))[0] == 404
    assert fetch(server.base_url + "../../etc/passwd")[0] == 404
    status, body = fetch(server.site_url("dabegad") + "category/%d8%b4%d8%a7%d8%a6%d8%b9%d8%a7%d8%aa")  # urllib follows the 301
    assert status == 200 and "<article" in body and "div class=\"entry\"" in body


def test_the_wordpress_rest_api_pages_its_posts_as_wordpress_does(server: SnapshotServer) -> None:
    """``per_page``/``page`` slice the newest-first posts; the totals come as X-WP-* headers; a
    page past the last and a bad ``per_page`` are HTTP 400 with WordPress' error codes."""
    posts = world().posts_of("dabegad")
    rest = server.site_url("dabegad") + "wp-json/wp/v2/posts"
    links: list[str] = []
    for page, size in ((1, 20), (2, 20), (3, len(posts) - 40)):
        with urllib.request.urlopen(f"{rest}?per_page=20&page={page}", timeout=5) as resp:
            assert resp.headers["X-WP-Total"] == str(len(posts)) and resp.headers["X-WP-TotalPages"] == "3"
            assert resp.headers["Content-Type"].startswith("application/json")
            body = json.loads(resp.read())
        assert len(body) == size
        links += [post["link"] for post in body]
    assert len(set(links)) == len(posts), "the pages cover every post once"
    with urllib.request.urlopen(rest, timeout=5) as resp:  # WordPress' default: 10 a page
        assert len(json.loads(resp.read())) == 10 and resp.headers["X-WP-TotalPages"] == str(-(-len(posts) // 10))
    status, body = fetch(f"{rest}?per_page=20&page=4")
    assert status == 400 and json.loads(body)["code"] == "rest_post_invalid_page_number"
    for bad in ("per_page=0", "per_page=101", "per_page=x", "page=0"):
        status, body = fetch(f"{rest}?{bad}")
        assert status == 400 and json.loads(body)["code"] == "rest_invalid_param", bad
    assert fetch(server.site_url("araanews") + "wp-json/wp/v2/posts?page=1")[0] == 404, "no REST API there"


def test_faults_fail_always_once_or_slowly(server: SnapshotServer) -> None:
    site = "norumors"
    assert fetch(server.site_url(site) + EXTRA_PATHS["server_error"].lstrip("/"))[0] == 500
    assert fetch(server.site_url(site) + EXTRA_PATHS["server_error"].lstrip("/"))[0] == 500
    posts = newest_first(world().posts_of(site))
    flaky, slow = posts[1].path.lstrip("/"), posts[2].path.lstrip("/")
    assert fetch(server.site_url(site) + flaky)[0] == 503
    assert fetch(server.site_url(site) + flaky)[0] == 200
    started = time.monotonic()
    assert fetch(server.site_url(site) + slow)[0] == 200
    assert time.monotonic() - started >= 0.4
    assert server.requests[-1].path == f"/{site}/{slow}" and server.requests[-1].status == 200


def test_serve_snapshots_builds_the_default_root_once(tmp_path: Path) -> None:
    with serve_snapshots() as srv:
        status, robots = fetch(srv.base_url + "robots.txt")
        assert status == 200 and "Disallow" in robots
    root = tmp_path / "data" / "snapshots"
    stamp = (root / "robots.txt").stat().st_mtime_ns
    with serve_snapshots() as srv:
        assert fetch(srv.site_url("reuters") + "news/archive/topNews/")[0] == 200
    assert (root / "robots.txt").stat().st_mtime_ns == stamp, "a complete build is reused, not rebuilt"


def test_offline_world_points_the_settings_at_its_server_and_restores_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")  # set before: restored, not removed
    monkeypatch.delenv("ARASTANCE_SITES__NORUMORS", raising=False)
    with offline_world() as srv:
        s = load_settings()
        assert site_base_url(s.sites, "norumors") == srv.site_url("norumors")
        assert str(s.crawl.archive_url) == srv.archive_url and s.crawl.download_delay_s == 0.0
        assert s.search.backend == "local" and str(s.search.mirror_base) == srv.base_url
        assert fetch(srv.site_url("norumors"))[0] == 200
    assert os.environ["ARASTANCE_SEARCH__BACKEND"] == "brave"
    assert "ARASTANCE_SITES__NORUMORS" not in os.environ
    assert site_base_url(load_settings().sites, "norumors") == load_site_config("norumors").canonical_base


def test_a_missing_snapshot_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="arastance snapshots build"):
        SnapshotServer(tmp_path / "nowhere")


def test_addresses_the_file_system_or_the_archive_cannot_read_are_answered_not_dropped(server: SnapshotServer) -> None:
    # it was: each raised in the request's thread (embedded null byte, File name too long, int('abc'), a filter
    # without its colon, month 99) and the connection dropped without an answer
    for path, status in (("araanews/%00", 404), ("a" * 300, 404), ("dabegad/" + "b" * 300 + "/", 404),
                         ("araanews/%00/wp-json/wp/v2/posts", 404),
                         ("archive/cdx/search/cdx?url=norumors.net/*&limit=abc", 400),
                         ("archive/cdx/search/cdx?url=norumors.net/*&filter=statuscode", 400),
                         ("archive/web/99999999999999id_/https://norumors.net/", 400)):
        assert fetch(server.base_url + path)[0] == status, path
    assert "limit must be an integer, got 'abc'" in fetch(server.archive_url + "cdx/search/cdx?url=x&limit=abc")[1]
