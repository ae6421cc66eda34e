"""The web archive emulator speaks the Wayback CDX server's protocol: text or JSON rows, collapsing on a
field's first N characters, a negative limit, host and domain queries (wayback-cdx-server's README)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlencode

import httpx
import pytest

from helpers_spiders import snapshot_root, world

from snapshots.archive_emulator import ArchivedCapture
from snapshots.archive_index import REDIRECT_TARGET, redirected_post
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


def test_a_redirect_capture_is_listed_with_its_3xx_status_and_replayed_as_a_redirect(server: SnapshotServer) -> None:
    # it was: listed as 200 (statuscode:200 kept it, as the real CDX server does not) and replayed as a 302
    post = redirected_post(world(), "araanews")
    listed = rows(server, url="araanews.ae" + post.path, fl="timestamp,original,statuscode,mimetype")
    [(timestamp, original, status, mimetype)] = [r for r in listed if r[0] != REDIRECT_TARGET]
    assert (status, mimetype) == ("301", "text/html") and [REDIRECT_TARGET, original, "200", "text/html"] in listed
    assert rows(server, url="araanews.ae" + post.path, fl="timestamp", filter="statuscode:200") == [[REDIRECT_TARGET]]
    replay = httpx.get(f"{server.archive_url}web/{timestamp}id_/{original}")
    assert replay.status_code == 301 and replay.headers["Location"] == f"/archive/web/{REDIRECT_TARGET}id_/{original}"
    closest = httpx.get(server.availability_url, params={"url": original, "timestamp": timestamp}).json()
    assert closest["archived_snapshots"]["closest"]["status"] == "301"


def test_an_index_row_whose_status_contradicts_its_redirect_is_refused() -> None:
    for row in ({"statuscode": "200", "redirect_to": "https://a.example/x"}, {"statuscode": "302"}):
        with pytest.raises(ValueError, match=r"capture 20150101000000 of http://a.example/x has status"):
            ArchivedCapture(original="http://a.example/x", timestamp="20150101000000", file=None, **row)
