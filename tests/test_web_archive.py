"""The Wayback client against the archive emulator: CDX paging, resume from cache, 429s, politeness,
``id_`` captures with redirects and lost captures, and the availability API. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import pytest

from helpers_search import ApiServer, Reply, SeenRequest, SiteServer
from helpers_spiders import snapshot_root, world
from snapshots.archive_emulator import urlkey
from snapshots.archive_index import REDIRECT_TARGET, redirected_post
from snapshots.server import SnapshotServer
from tasks.web_archive import ArchiveError, CdxQuery, WaybackClient, capture_url, parse_capture_url, to_site_url
from arastance.base.cdx import CdxAnswerError, parse_cdx_json

WINDOW = (date(2012, 1, 1), date(2018, 12, 31))
UNREADABLE = "cached archive answer unreadable; asking the archive again"


@pytest.fixture()
def server() -> Iterator[SnapshotServer]:
    with SnapshotServer(snapshot_root()) as srv:
        yield srv


def client(server: SnapshotServer, cache: Path | None, **kwargs: object) -> WaybackClient:
    options: dict[str, object] = {"delay_s": 0.0, "backoff_s": 0.0, "retries": 3}
    options.update(kwargs)
    return WaybackClient(server.archive_url, server.availability_url, cache_dir=cache, **options)  # type: ignore[arg-type]


def test_cdx_json_has_a_header_row_and_a_resume_key_after_an_empty_row() -> None:
    page = parse_cdx_json([["timestamp", "original"], ["20140101000000", "http://a.net/x"], [], ["KEY"]], "test")
    assert (page.captures[0].original, page.resume_key) == ("http://a.net/x", "KEY")
    assert parse_cdx_json([], "test").captures == []
    with pytest.raises(CdxAnswerError, match="lacks"):
        parse_cdx_json([["urlkey"], ["net,a)/x"]], "test")


def test_cdx_rows_without_a_real_timestamp_or_url_are_skipped_and_the_others_kept() -> None:
    bad = [["20151340000000", "http://a.net/x"], [20150101000000, "http://a.net/y"], ["2015", None]]
    page = parse_cdx_json([["timestamp", "original"], *bad, ["20150101000000", "http://a.net/ok"]], "test")
    assert [c.original for c in page.captures] == ["http://a.net/ok"]  # one bad row used to fail the whole site
    assert page.skipped == [repr(row) for row in bad]  # the client logs each: "CDX row skipped"


def test_the_client_logs_each_cdx_row_it_skips_and_refuses_an_answer_that_is_no_rows(
        caplog: pytest.LogCaptureFixture) -> None:
    from helpers_search import ApiServer, Reply

    rows = [["timestamp", "original"], ["2015", None], ["20150101000000", "http://a.net/ok"]]
    with ApiServer(lambda r: Reply(body=rows)).running() as api:
        captures = WaybackClient(api.url, api.url, delay_s=0.0).captures(CdxQuery("a.net/*", *WINDOW))
    assert [c.original for c in captures] == ["http://a.net/ok"]
    assert caplog.text.count("CDX row skipped") == len(api.requests)  # one bad row in each answer
    with ApiServer(lambda r: Reply(body={"rows": 1})).running() as api, \
            pytest.raises(ArchiveError, match=r"CDX a\.net/\*: CDX answer is not a JSON list of rows"):
        WaybackClient(api.url, api.url, delay_s=0.0).captures(CdxQuery("a.net/*", *WINDOW))


def test_a_cdx_server_that_lists_the_same_captures_under_new_keys_is_stopped() -> None:
    from helpers_search import ApiServer, Reply

    keys = iter(range(10**6))
    api = ApiServer(lambda r: Reply(body=[["timestamp", "original"], ["20150101000000", "http://a.net/x"], [],
                                          [f"KEY{next(keys)}"]]))
    with api.running(), pytest.raises(ArchiveError, match="page 2 lists only captures listed before; stopped after 2"):
        WaybackClient(api.url, api.url, delay_s=0.0).captures(CdxQuery("a.net/*", *WINDOW))


def test_a_cdx_server_that_hands_back_a_resume_key_is_not_paged_for_ever(tmp_path: Path) -> None:
    # it was: 36,275 cached pages (144 MB) in 2.5 minutes, and still going
    from helpers_search import ApiServer, Reply

    pages = iter(range(10**6))
    api = ApiServer(lambda r: Reply(body=[["timestamp", "original"], ["20150101000000", f"http://a.net/{next(pages)}"],
                                          [], ["SAMEKEY"]]))
    wb = WaybackClient(api.url, api.url + "/wayback/available", cache_dir=tmp_path, delay_s=0.0, backoff_s=0.0)
    with api.running(), pytest.raises(ArchiveError, match="page 2 gave resume key 'SAMEKEY' again; stopped after 2 pages"):
        wb.captures(CdxQuery("a.net/*", *WINDOW))
    assert len(api.requests) == 2



def _cdx_archive(*originals: str) -> ApiServer:
    """A CDX server that lists ``originals`` one a page, with a resume key on all but the last."""

    def answer(request: SeenRequest) -> Reply:
        number = int(request.params.get("resumeKey", "0"))
        rows = [["timestamp", "original"], ["20150101000000", originals[number]]]
        return Reply(body=rows + ([[], [str(number + 1)]] if number + 1 < len(originals) else []))

    return ApiServer(answer)


def test_each_archive_has_its_own_cdx_cache(tmp_path: Path) -> None:
    # it was: the cache was keyed by the query alone, so a crawl against another archive (crawl.archive_url,
    # or the offline emulator before the real one) was answered from the first archive's pages for ever
    query = CdxQuery("a.net/*", *WINDOW)
    first, second = _cdx_archive("http://a.net/first"), _cdx_archive("http://a.net/second")
    with first.running(), second.running():
        for archive, original in ((first, "http://a.net/first"), (second, "http://a.net/second"),
                                  (first, "http://a.net/first")):
            wb = WaybackClient(archive.url, archive.url, cache_dir=tmp_path, delay_s=0.0)
            assert [c.original for page in wb.cdx_pages(query) for c in page.captures] == [original]
    assert (len(first.requests), len(second.requests)) == (1, 1), "each archive is asked once, then its cache answers"


@pytest.mark.parametrize("damage", ["", '{"captures": [{"timestamp": "2015', '{"captures": [], "resume": null}',
                                    '["not", "a", "page"]', '{"captures": [{"timestamp": 2015, "original": 1}], '
                                                            '"resume_key": null}',
                                    "[" * 100_000 + "]" * 100_000])
def test_a_damaged_cached_cdx_page_is_asked_for_again_and_replaced(damage: str, tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    # it was: an empty or cut page (a power loss after the rename, before the data reached the disk) stopped
    # every later discovery of the site with a bare JSONDecodeError, KeyError or TypeError naming no file
    query = CdxQuery("a.net/*", *WINDOW)
    archive = _cdx_archive("http://a.net/1", "http://a.net/2", "http://a.net/3")
    with archive.running():
        def discover() -> list[str]:
            wb = WaybackClient(archive.url, archive.url, cache_dir=tmp_path, delay_s=0.0)
            return [c.original for page in wb.cdx_pages(query) for c in page.captures]

        assert discover() == ["http://a.net/1", "http://a.net/2", "http://a.net/3"]
        [damaged] = tmp_path.glob("cdx/*/page-00001.json")
        damaged.write_text(damage, encoding="utf-8")
        assert discover() == ["http://a.net/1", "http://a.net/2", "http://a.net/3"]
        assert [r.params.get("resumeKey") for r in archive.requests] == [None, "1", "2", "1"], \
            "only the damaged page is asked for again, with its own resume key"
        [warned] = [r for r in caplog.records if r.getMessage() == UNREADABLE]
        assert (getattr(warned, "cache"), getattr(warned, "path")) == ("CDX page", str(damaged)), \
            "the warning names the kind of answer and the damaged file"
        assert discover() == ["http://a.net/1", "http://a.net/2", "http://a.net/3"]
        assert len(archive.requests) == 4, "the page asked for again replaced the damaged one"
    assert sorted(p.name for p in damaged.parent.iterdir()) == ["page-00000.json", "page-00001.json", "page-00002.json"]

def test_captures_outside_the_window_are_left_out_even_when_the_server_lists_them() -> None:
    from helpers_search import ApiServer, Reply

    rows = [["timestamp", "original"], ["19991231235959", "http://a.net/old"], ["20150101000000", "http://a.net/in"],
            ["20181231235959", "http://a.net/last"], ["20240101000000", "http://a.net/new"]]
    api = ApiServer(lambda r: Reply(body=rows))  # a server that ignores from/to
    with api.running():
        wb = WaybackClient(api.url, api.url, delay_s=0.0)
        found = wb.captures(CdxQuery("a.net/*", *WINDOW))
        paged = [c.original for page in wb.cdx_pages(CdxQuery("a.net/*", *WINDOW)) for c in page.captures]
    assert [c.original for c in found] == paged == ["http://a.net/in", "http://a.net/last"]  # the archive crawl pages


def test_capture_addresses_with_impossible_timestamps_are_no_captures() -> None:
    assert parse_capture_url("http://127.0.0.1:1/web/20151399999999id_/http://a.net/x") is None
    assert parse_capture_url("http://127.0.0.1:1/web/20151231235959id_/http://a.net/x") == (
        "20151231235959", "http://a.net/x")


def test_paged_discovery_lists_every_capture_once_within_the_window(server: SnapshotServer) -> None:
    one_page = client(server, None).captures(CdxQuery("norumors.net/*", *WINDOW, page_size=10_000))
    wb = client(server, None)
    paged = wb.captures(CdxQuery("norumors.net/*", *WINDOW, page_size=7))
    assert sorted(c.original for c in paged) == sorted(c.original for c in one_page)
    # One request a page; a full last page carries a resume key, so one more (empty) page follows; then
    # one page of redirect captures (the redirected post's first capture, its page already listed).
    assert wb.requests_sent == -(-len(paged) // 7) + (len(paged) % 7 == 0) + 1
    posts = world().posts_of("norumors")
    assert len({to_site_url(c.original, "https://norumors.net/") for c in paged}) == len(paged) > len(posts)
    assert all("20120101" <= c.timestamp <= "20181231999999" for c in paged), "captures of 2021 are left out"
    assert all(c.mimetype == "text/html" for c in paged), "the logo (image/png) is filtered out"
    # collapse=urlkey: the post captured twice (a redirecting capture, then the real one) is listed once
    assert len({urlkey(c.original) for c in paged}) == len(paged)


def test_an_interrupted_discovery_resumes_from_its_cached_pages(server: SnapshotServer, tmp_path: Path) -> None:
    query = CdxQuery("dabegad.com/*", *WINDOW, page_size=10)
    full = client(server, None).captures(query)
    server.archive.limit_rate(3)  # type: ignore[union-attr]
    with pytest.raises(ArchiveError, match="HTTP 429 after 1 attempt"):
        client(server, tmp_path, retries=0).captures(query)  # pages 1 and 2 arrive, the third is refused
    server.archive.limit_rate(0)  # type: ignore[union-attr]
    cached = sorted((tmp_path / "cdx").glob("*/page-*.json"))
    assert len(cached) == 2
    resumed = client(server, tmp_path)
    assert sorted(c.original for c in resumed.captures(query)) == sorted(c.original for c in full)
    # the pages not cached, then one page of redirect captures (the redirected post's, already listed)
    assert resumed.requests_sent == -(-len(full) // 10) - 2 + (len(full) % 10 == 0) + 1
    again = client(server, tmp_path)
    assert len(again.captures(query)) == len(full) and again.requests_sent == 0, "a finished discovery is cached"


def _retry_warnings(caplog: pytest.LogCaptureFixture) -> set[str]:
    return {r.getMessage() for r in caplog.records if r.name == "tasks.web_archive.client" and hasattr(r, "attempt")}


def test_429s_are_retried_after_backing_off_and_requests_keep_their_distance(
        server: SnapshotServer, caplog: pytest.LogCaptureFixture) -> None:
    server.archive.limit_rate(2)  # type: ignore[union-attr]
    waits: list[float] = []
    wb = client(server, None, delay_s=0.5, backoff_s=0.2, sleep=waits.append)
    captures = wb.captures(CdxQuery("ara.reuters.com/*", *WINDOW, page_size=50))
    assert len(captures) > len(world().headlines)
    statuses = [r.status for r in server.requests if "/cdx/" in r.path]
    assert statuses.count(429) >= 3 and statuses[-1] == 200
    assert wb.requests_sent == len(statuses)
    # The sleeps are the politeness gaps (up to 0.5 s) and Retry-After: 0 after each 429.
    assert waits and all(0 <= w <= 0.5 for w in waits) and sum(1 for w in waits if w > 0.3) >= len(statuses) - 4
    assert _retry_warnings(caplog) == {"archive asked to slow down"}


def test_a_refusing_archive_is_a_clear_error_after_the_retries(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    waits: list[float] = []
    wb = WaybackClient("http://127.0.0.1:9/", "http://127.0.0.1:9/wayback/available", delay_s=0, backoff_s=1.0,
                       retries=2, sleep=waits.append)
    with pytest.raises(ArchiveError, match="ConnectError.*after 3 attempt.*; the archive could not be reached, try"):
        wb.captures(CdxQuery("norumors.net/*", *WINDOW))
    assert waits == [1.0, 2.0], "exponential backoff between attempts"
    # it was: "archive asked to slow down", when no archive had answered at all
    assert _retry_warnings(caplog) == {"archive unreachable; retrying"}


def test_an_archive_error_hides_the_password_of_an_archive_behind_basic_authentication() -> None:
    """The error's text goes on into run states (the crawl's, the pipeline's message), where no log
    redaction reaches: it showed the password of the URL it named."""
    wb = WaybackClient("http://arch:pw-Secret-77@127.0.0.1:9/", "http://127.0.0.1:9/wayback/available", delay_s=0,
                       backoff_s=0, retries=0, sleep=lambda s: None)
    with pytest.raises(ArchiveError) as raised:
        wb.captures(CdxQuery("norumors.net/*", *WINDOW))
    assert "pw-Secret-77" not in str(raised.value) and "http://arch:****@127.0.0.1:9/cdx/search/cdx" in str(raised.value)


def test_an_archive_answering_server_errors_is_not_said_to_ask_for_less(caplog: pytest.LogCaptureFixture) -> None:
    api = ApiServer(lambda r: Reply(status=502))
    with api.running():
        wb = WaybackClient(api.url + "/", api.url + "/wayback/available", delay_s=0, backoff_s=0, retries=1)
        with pytest.raises(ArchiveError, match="HTTP 502 after 2 attempt.*; the archive is failing, try again later"):
            wb.captures(CdxQuery("norumors.net/*", *WINDOW))
    assert _retry_warnings(caplog) == {"archive answered with a server error; retrying"}


def test_id_captures_follow_redirects_and_lost_captures_are_404(server: SnapshotServer) -> None:
    # it was: the redirect capture was listed as a 200 (replayed as a 302), so discovery handed it on as a page
    oldest = redirected_post(world(), "araanews")
    wb = client(server, None)
    [redirect] = [c for page in wb.cdx_pages(CdxQuery("araanews.ae/*", *WINDOW, filters=("statuscode:3..",)))
                  for c in page.captures]
    assert to_site_url(redirect.original, "https://araanews.ae/").endswith(oldest.path) and redirect.statuscode == "301"
    captures = wb.captures(CdxQuery("araanews.ae/*", *WINDOW))
    listed = next(c for c in captures if to_site_url(c.original, "https://araanews.ae/").endswith(oldest.path))
    assert (listed.timestamp, listed.statuscode) == (REDIRECT_TARGET, "200"), "the page by its whole capture"
    with httpx.Client(follow_redirects=True) as http:
        response = http.get(capture_url(server.archive_url, redirect.timestamp, redirect.original))
        assert response.status_code == 200 and [r.status_code for r in response.history] == [301]
        timestamp, original = parse_capture_url(str(response.url))  # type: ignore[misc]
        assert timestamp == REDIRECT_TARGET != redirect.timestamp and original == redirect.original
        assert oldest.title in response.text
        # A timestamp the archive does not hold is redirected to the nearest capture.
        near = http.get(capture_url(server.archive_url, "2013", listed.original))
        assert near.status_code == 200 and near.history
        lost = next(c for c in captures if c.digest == "LOST")
        assert http.get(capture_url(server.archive_url, lost.timestamp, lost.original)).status_code == 404
        assert http.get(capture_url(server.archive_url, "2015", "https://araanews.ae/never/")).status_code == 404


def test_the_availability_api_gives_the_closest_capture_or_none(server: SnapshotServer) -> None:
    post = world().posts_of("norumors")[0]
    url = "https://norumors.net" + post.path
    found = client(server, None).closest(url, "20180101")
    assert found is not None and found.original == url and found.timestamp.startswith(("2012", "2013", "2014",
                                                                                           "2015", "2016", "2017", "2018"))
    assert client(server, None).closest("https://norumors.net/nothing-here/") is None


def test_capture_addresses_round_trip_and_originals_map_to_the_canonical_site() -> None:
    url = capture_url("https://web.archive.org", "20140709101500", "http://ara.reuters.com/article/x?id=1")
    assert url == "https://web.archive.org/web/20140709101500id_/http://ara.reuters.com/article/x?id=1"
    assert parse_capture_url(url) == ("20140709101500", "http://ara.reuters.com/article/x?id=1")
    assert parse_capture_url("https://web.archive.org/web/2014id_/http:/norumors.net/a") == ("2014", "http://norumors.net/a")
    assert parse_capture_url("https://norumors.net/rumors/1/") is None
    assert to_site_url("http://www.norumors.net/rumors/1/", "https://norumors.net/") == "https://norumors.net/rumors/1/"
    assert to_site_url("http://example.com/x", "https://norumors.net/") == "http://example.com/x"


def test_an_answer_nested_too_deep_for_json_is_an_archive_error(tmp_path: Path) -> None:
    # it was: the decoder's RecursionError left the client, where its callers catch ArchiveError
    for answer in ("cdx/search/cdx", "wayback/available"):
        (tmp_path / answer).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / answer).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    archive = SiteServer(tmp_path, content_types={"/cdx/search/cdx": "application/json",
                                                  "/wayback/available": "application/json"})
    with archive.running():
        wb = WaybackClient(archive.base_url, archive.base_url + "wayback/available", delay_s=0.0, retries=0)
        with pytest.raises(ArchiveError, match="cdx/search/cdx.*: the archive's answer is not JSON"):
            list(wb.cdx_pages(CdxQuery("a.net/*", *WINDOW)))
        with pytest.raises(ArchiveError, match="wayback/available.*: the archive's answer is not JSON"):
            wb.closest("https://a.net/x")


#: A site the archive holds partly as redirects: an old slug and a shortlink moved to a new slug, and
#: ``http://`` pages moved to ``https://``; the pages they lead to captured after the window or in it.
MOVED_SITE = [
    {"original": "http://a.example/rumors/1-old-title/", "timestamp": "20150101000000", "file": None,
     "redirect_to": "https://a.example/rumors/1-new-title/"},
    {"original": "http://a.example/?p=1", "timestamp": "20150105000000", "file": None,
     "redirect_to": "https://a.example/rumors/1-new-title/"},
    {"original": "https://a.example/rumors/1-new-title/", "timestamp": "20190301000000", "file": "a/1.html"},
    {"original": "http://a.example/rumors/2/", "timestamp": "20160101000000", "file": None, "statuscode": "302",
     "redirect_to": "https://a.example/rumors/2/"},
    {"original": "https://a.example/rumors/2/", "timestamp": "20190401000000", "file": "a/2.html"},
    {"original": "http://a.example/rumors/3/", "timestamp": "20150101000000", "file": None,
     "redirect_to": "https://a.example/rumors/3/"},
    {"original": "https://a.example/rumors/3/", "timestamp": "20150102000000", "file": "a/3.html"},
    {"original": "http://a.example/rumors/4-old/", "timestamp": "20150101000000", "file": None,
     "redirect_to": "https://a.example/rumors/4-never-captured/"},
]


def _moved_site_archive(root: Path) -> SnapshotServer:
    """A snapshot server whose archive holds :data:`MOVED_SITE` (each page's title is its file's name)."""
    for capture in MOVED_SITE:
        if capture["file"]:
            page = root / str(capture["file"])
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"<html><title>{page.stem}</title></html>", encoding="utf-8")
    (root / "archive").mkdir(parents=True)
    (root / "archive" / "index.json").write_text(json.dumps({"captures": MOVED_SITE}), encoding="utf-8")
    return SnapshotServer(root)


def test_a_page_captured_only_as_a_redirect_is_listed_by_the_capture_it_leads_to(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # it was: statuscode:200 left out every page the archive holds only as a redirect in the window (an old
    # slug, http:// moved to https://): the post was never read; an emulator listing redirects as 200 hid it
    with _moved_site_archive(tmp_path) as srv, httpx.Client() as http:
        found = client(srv, None).captures(CdxQuery("a.example/*", *WINDOW))
        assert len(found) == 3, "the old slug and the shortlink lead to one page, listed once"
        assert {(c.timestamp, to_site_url(c.original, "https://a.example/"), c.statuscode) for c in found} == {
            ("20190301000000", "https://a.example/rumors/1-new-title/", "200"),  # old slug and shortlink: once
            ("20190401000000", "https://a.example/rumors/2/", "200"),  # http:// moved, https:// captured later
            ("20150102000000", "https://a.example/rumors/3/", "200"),  # captured whole in the window: as listed
        }
        for capture in found:  # each is a page to read, not a redirect
            page = http.get(capture_url(srv.archive_url, capture.timestamp, capture.original))
            assert page.status_code == 200 and not page.history and "<title>" in page.text
    [warned] = [r for r in caplog.records if r.getMessage() == "archive redirect leads to no captured page"]
    assert "rumors/4-old/" in getattr(warned, "capture"), "the redirect to a page never captured is named"


def test_discovery_follows_only_the_redirects_it_is_told_are_worth_their_requests(tmp_path: Path) -> None:
    # a site's whole redirect listing (shortlinks, tag pages) would cost about three requests a page
    with _moved_site_archive(tmp_path) as srv:
        every = client(srv, None)
        all_found = list(every.discover(CdxQuery("a.example/*", *WINDOW)))
        posts = client(srv, None)
        post_found = list(posts.discover(CdxQuery("a.example/*", *WINDOW), follow=lambda url: "?p=" not in url))
    assert {c.original for c in post_found} == {c.original for c in all_found}  # the shortlink led to a post too
    assert posts.requests_sent < every.requests_sent  # but cost its requests only where followed


def test_a_redirect_the_archive_will_not_replay_leaves_the_rest_of_the_discovery_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # it was: one replay answering 503 past the retries ended the site's whole discovery with an ArchiveError
    broken = "/archive/web/20150101000000id_/http://a.example/rumors/1-old-title/"
    (tmp_path / "faults.json").write_text(json.dumps({broken: {"status": 503}}), encoding="utf-8")
    with _moved_site_archive(tmp_path) as srv:
        found = client(srv, None, retries=1).captures(CdxQuery("a.example/*", *WINDOW))
    assert len(found) == 3  # the shortlink leads to the page the broken old slug would have
    [warned] = [r for r in caplog.records if r.getMessage() == "archive redirect could not be followed; left out this time"]
    assert "rumors/1-old-title/" in getattr(warned, "capture") and "HTTP 503" in getattr(warned, "error")


def test_a_resumed_discovery_asks_the_archive_again_for_no_redirect_it_followed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    with _moved_site_archive(tmp_path / "site") as srv:
        first = client(srv, cache)
        found = first.captures(CdxQuery("a.example/*", *WINDOW))
        again = client(srv, cache)
        assert again.captures(CdxQuery("a.example/*", *WINDOW)) == found
    assert first.requests_sent > 2 and again.requests_sent == 0  # it was: every redirect followed again (3 requests each)
    targets = [json.loads(f.read_text(encoding="utf-8"))["target"] for f in (cache / "redirects").glob("*.json")]
    assert None in targets and len([t for t in targets if t]) == 3, \
        "a redirect leading to no captured page is remembered as such, not as one never followed"
    assert not [r for r in caplog.records if r.getMessage() == UNREADABLE]


@pytest.mark.parametrize("damage", [b"", b'{"target": {"timest', b"\xff\xfe{", b"{}", b"[]", b'{"target": 5}',
                                    b'{"target": []}', b'{"target": {"timestamp": "20190401000000"}}',
                                    b'{"target": {"timestamp": "x", "original": 3}}',
                                    b'{"target": {"timestamp": "x", "original": "https://a.example/rumors/2/"}}',
                                    b'{"target": {"timestamp": "20190401000000", "original": 3}}'])
def test_a_damaged_remembered_redirect_is_named_and_followed_again(
    damage: bytes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # it was: an empty or cut file was followed again without a word, and a hand-edited or foreign one whose
    # target had no real timestamp or URL became a Capture that failed far from the file (or was handed on)
    cache = tmp_path / "cache"
    with _moved_site_archive(tmp_path / "site") as srv:
        found = client(srv, cache).captures(CdxQuery("a.example/*", *WINDOW))
        [damaged] = [f for f in (cache / "redirects").glob("*.json")
                     if (json.loads(f.read_text(encoding="utf-8"))["target"] or {}).get("timestamp") == "20190401000000"]
        damaged.write_bytes(damage)
        asked_before = len(srv.requests)
        assert client(srv, cache).captures(CdxQuery("a.example/*", *WINDOW)) == found
        assert srv.paths_requested()[asked_before:] == [
            "/archive/web/20160101000000id_/http://a.example/rumors/2/",
            "/archive/web/20190401000000id_/http://a.example/rumors/2/",
        ], "only the damaged redirect is followed again"
        [warned] = [r for r in caplog.records if r.getMessage() == UNREADABLE]
        assert (getattr(warned, "cache"), getattr(warned, "path")) == ("redirect", str(damaged))
        assert getattr(warned, "error"), "the warning says what is wrong with the file"
        resumed = client(srv, cache)
        assert resumed.captures(CdxQuery("a.example/*", *WINDOW)) == found
    assert resumed.requests_sent == 0, "the redirect followed again replaced the damaged file"
