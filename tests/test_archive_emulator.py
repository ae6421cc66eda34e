"""The web archive emulator speaks the Wayback CDX server's protocol: text or JSON rows, collapsing on a
field's first N characters, a negative limit, host and domain queries (wayback-cdx-server's README)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from helpers_spiders import snapshot_root

from snapshots.server import SnapshotServer


@pytest.fixture(scope="module")
def server() -> Iterator[SnapshotServer]:
    with SnapshotServer(snapshot_root()) as srv:
        yield srv


def cdx(server: SnapshotServer, **params: str) -> tuple[int, str, str]:
    """Status, content type and body of a CDX query."""
    try:
        with urllib.request.urlopen(f"{server.archive_url}cdx/search/cdx?{urlencode(params)}", timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode("utf-8")


def rows(server: SnapshotServer, **params: str) -> list[list[str]]:
    status, _, body = cdx(server, output="json", **params)
    assert status == 200, body
    return json.loads(body)[1:]


def test_without_output_json_the_rows_are_space_separated_lines(server: SnapshotServer) -> None:
    # it was: JSON whatever was asked
    as_json = rows(server, url="norumors.net/*", limit="3", fl="timestamp,original,statuscode")
    status, content_type, body = cdx(server, url="norumors.net/*", limit="3", fl="timestamp,original,statuscode")
    assert status == 200 and content_type.startswith("text/plain")
    assert body.splitlines() == [" ".join(row) for row in as_json]
    status, _, paged = cdx(server, url="norumors.net/*", limit="3", fl="timestamp", showResumeKey="true")
    *lines, blank, key = paged.splitlines()
    assert len(lines) == 3 and blank == "" and key
    status, _, following = cdx(server, url="norumors.net/*", limit="3", fl="timestamp", resumeKey=key)
    assert following.splitlines() == [r[0] for r in rows(server, url="norumors.net/*", fl="timestamp")[3:6]]


def test_collapse_on_the_first_n_characters_of_a_field(server: SnapshotServer) -> None:
    # it was: collapse=timestamp:4 compared whole timestamps (70 rows, not one per year change)
    every = [r[0] for r in rows(server, url="norumors.net/*", fl="timestamp")]
    years = [r[0] for r in rows(server, url="norumors.net/*", fl="timestamp", collapse="timestamp:4")]
    expected = [ts for n, ts in enumerate(every) if n == 0 or ts[:4] != every[n - 1][:4]]  # adjacent rows, as CDX does
    assert years == expected and len(years) < len(every)
    assert cdx(server, url="norumors.net/*", collapse="timestamp:x")[0] == 400


def test_a_negative_limit_gives_the_last_rows(server: SnapshotServer) -> None:
    # it was: every row
    every = rows(server, url="norumors.net/*", fl="timestamp,original")
    assert rows(server, url="norumors.net/*", fl="timestamp,original", limit="-2") == every[-2:]


def test_host_and_domain_queries_list_every_capture_of_the_host(server: SnapshotServer) -> None:
    # it was: matchType=host/domain were exact queries (2 rows) and url=*.norumors.net matched nothing
    every = rows(server, url="norumors.net/*", fl="original")
    assert len(every) > 2
    assert rows(server, url="norumors.net", matchType="host", fl="original") == every
    assert rows(server, url="norumors.net", matchType="domain", fl="original") == every
    assert rows(server, url="*.norumors.net", fl="original") == every
    assert rows(server, url="orumors.net", matchType="domain", fl="original") == []
    assert len(rows(server, url="norumors.net/", fl="original")) < len(every)  # exact stays exact
    status, _, body = cdx(server, url="norumors.net", matchType="everything")
    assert status == 400 and "matchType must be exact, prefix, host or domain" in body
