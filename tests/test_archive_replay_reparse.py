"""``arastance reparse`` of a capture stored before the archive crawl refused replays: a listed 2012-2018
capture that the Wayback Machine replayed from 2022, whose body is another post's page, was stored ok.
Re-parsed, it is a failed page, as the crawl now has it, and gives no claim of the other post; a capture
taken after the crawl's days of the page itself (the page a redirect captured within them leads to) is
read as before. The crawl's days are the settings' (2012-2018 by default), as the command has them."""

from __future__ import annotations

import zlib
from datetime import datetime
from pathlib import Path

from arastance.base.captures import capture_url
from arastance.base.staging import StoredPage, page_id_of
from spiders.reparse import reparse_pages
from spiders.staging import read_run
from test_spiders_reparse import BASE, CLAIM, PAGE, TITLE, URL

ARCHIVE = "https://web.archive.org/"
#: Another post of the site, which its own canonical link names.
OTHER = BASE + "society/3402-another-post/"


def capture(original: str, timestamp: str, body: bytes) -> StoredPage:
    """A stored archive capture of ``original`` as the crawl keeps it: under the capture's address."""
    url = capture_url(ARCHIVE, timestamp, original)
    page_id, digest = page_id_of(url, body)
    return StoredPage(page_id=page_id, url=url, source_id="dabegad", fetched_at=datetime(2024, 1, 1),
                      http_status=200, content_hash=digest, html_zlib=zlib.compress(body),
                      original_url=original, captured_at=datetime.strptime(timestamp, "%Y%m%d%H%M%S"))


def page(canonical: str) -> bytes:
    return PAGE.format(meta=f'<meta charset="utf-8"><link rel="canonical" href="{canonical}">').encode("utf-8")


def test_a_stored_replay_of_another_post_from_another_year_is_a_failed_page(tmp_path: Path) -> None:
    # it was: re-parsed ok, the other post's claim given again under the replay's 2022 capture
    replay = capture(URL, "20220615000000", page(OTHER))
    summary, run_dir = reparse_pages([replay], "dabegad", BASE, tmp_path)
    _, claims, [failed] = read_run(run_dir)
    assert claims == [] and summary.errors == 1
    assert failed["parse_status"] == "failed" and failed["parse_error"].startswith("capture_outside_window: ")
    assert failed["html_file"] is None, "the other post's page is not kept as this one"
    assert replay.url in failed["parse_error"] and OTHER.rstrip("/") in failed["parse_error"]
    assert "2012-01-01..2018-12-31" in failed["parse_error"]


def test_a_stored_capture_of_the_page_itself_is_read_within_or_after_the_days(tmp_path: Path) -> None:
    pages = [capture(URL, "20160504000000", page(URL)), capture(URL, "20200115080000", page(URL)),
             capture(OTHER, "20160504000000", page(OTHER))]  # within the days, the canonical link is read
    summary, run_dir = reparse_pages(pages, "dabegad", BASE, tmp_path)
    _, claims, staged = read_run(run_dir)
    assert summary.errors == 0 and [p["parse_status"] for p in staged] == ["ok"] * 3
    assert sorted(c["url"] for c in claims) == sorted([URL.rstrip("/")] * 2 + [OTHER.rstrip("/")])
    assert {(c["title"], c["claim_text"]) for c in claims} == {(TITLE, CLAIM)}
