"""Re-keying claims stored under old spellings of their URL (http://, http://www., a web-archive
capture) to today's canonical form: ids and provenance kept, duplicates left and listed, idempotent,
and later loads and crawls still know the claim under either spelling."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import helpers_crawl_load
from arastance.base.sites import load_site_config
from arastance.cli import app
from helpers_crawl_load import StagedPost, write_run
from spiders.site_urls import SiteUrls
from tasks.claim_load.load import load_crawl_run
from warehouse import Warehouse, open_warehouse
from warehouse.crawl_inputs import known_canonical_urls

runner = CliRunner()

SCHOOL = StagedPost("/2016/05/school-1/", "لا صحة لما يتم تداوله حول إغلاق المدارس في دبي لمدة أسبوعين", "شائعة المدارس")
ARTIST = StagedPost("/2016/05/artist-2/", "حقيقة وفاة الفنان سامي الحربي إثر أزمة قلبية", "حقيقة وفاة الفنان")
BREAD = StagedPost("/society/2207-fake-bread-prices/", "الحكومة ترفع سعر رغيف الخبز إلى جنيه", "شائعة الخبز")
#: How claims were keyed before canonicalisation put them on the site's https address and original URL.
OLD_ARAANEWS = "http://www.araanews.ae"
CAPTURE_DABEGAD = "https://web.archive.org/web/20160305120000id_/http://www.dabegad.com"


def _load(tmp_path: Path, name: str, source: str, base: str, posts: list[StagedPost],
          monkeypatch: pytest.MonkeyPatch, fetched_at: str = "2018-03-10T12:00:00+00:00") -> Any:
    """Load a staged run whose claim URLs start with ``base`` through the real loader."""
    monkeypatch.setitem(helpers_crawl_load.SITE_BASE, source, base)
    posts = [StagedPost(p.path, p.claim_text, p.title, fetched_at=fetched_at) for p in posts]
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb") as wh:
        return load_crawl_run(wh, write_run(tmp_path / name, source, posts))


def _claims(wh: Warehouse) -> dict[str, dict[str, Any]]:
    return {r["claim_id"]: r for r in wh.query("SELECT * FROM claims")}


def _open(tmp_path: Path) -> Warehouse:
    return open_warehouse(tmp_path / "data" / "warehouse.duckdb", read_only=True)


def _rekey() -> str:
    result = runner.invoke(app, ["warehouse", "rekey-claims"])
    assert result.exit_code == 0, result.output
    return result.output


def test_old_spellings_take_the_current_form_keeping_ids_provenance_and_a_second_run_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load(tmp_path, "araanews-old", "araanews", OLD_ARAANEWS, [SCHOOL, ARTIST], monkeypatch)
    _load(tmp_path, "dabegad-capture", "dabegad", CAPTURE_DABEGAD, [BREAD], monkeypatch)
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb") as wh:  # a claim loaded from a dataset: no web URL
        wh.insert_rows("claims", [{"claim_id": "ds1", "source_id": "arastance", "url": "arastance:ds1",
                                   "canonical_url": "arastance:ds1", "veracity": "false",
                                   "first_seen": datetime(2020, 1, 1), "last_seen": datetime(2020, 1, 1)}])
        before = _claims(wh)
    assert {r["canonical_url"] for r in before.values()} == {
        "http://araanews.ae/2016/05/school-1", "http://araanews.ae/2016/05/artist-2",
        "https://web.archive.org/web/20160305120000id_/http:/www.dabegad.com/society/2207-fake-bread-prices",
        "arastance:ds1"}

    out = _rekey()
    assert "re-keyed 3 claim(s)" in out and "0 URL(s) left with duplicate claims" in out
    assert "1 claim(s) without a web URL left" in out
    with _open(tmp_path) as wh:
        after = _claims(wh)
        former = wh.query("SELECT claim_id, source_id, former_url, canonical_url FROM claim_former_urls ORDER BY former_url")
    assert set(after) == set(before)  # every claim keeps its id
    assert {r["canonical_url"] for r in after.values()} == {
        "https://araanews.ae/2016/05/school-1", "https://araanews.ae/2016/05/artist-2",
        "https://dabegad.com/society/2207-fake-bread-prices", "arastance:ds1"}
    for claim_id, row in after.items():  # only the key moved: the URL as fetched, dates, runs and texts stay
        assert {**row, "canonical_url": None} == {**before[claim_id], "canonical_url": None}
    assert [(r["former_url"], r["canonical_url"]) for r in former] == sorted(
        (before[r["claim_id"]]["canonical_url"], after[r["claim_id"]]["canonical_url"]) for r in former)
    assert len(former) == 3

    again = _rekey()
    assert "re-keyed 0 claim(s)" in again
    with _open(tmp_path) as wh:
        assert _claims(wh) == after
        assert wh.scalar("SELECT count(*) FROM claim_former_urls") == 3


def test_after_rekeying_loads_and_crawls_know_the_claim_under_both_spellings_and_its_override_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load(tmp_path, "araanews-old", "araanews", OLD_ARAANEWS, [SCHOOL, ARTIST], monkeypatch)
    with _open(tmp_path) as wh:
        school_id = next(r["claim_id"] for r in wh.query("SELECT claim_id, url FROM claims") if "school-1" in r["url"])
    reviewed = runner.invoke(app, ["claims", "review", "--set", school_id, "--text", "إغلاق مدارس دبي أسبوعين",
                                   "--reviewer", "r1"])
    assert reviewed.exit_code == 0, reviewed.output
    _rekey()

    # a reparse or re-crawl names the posts by their https address: it was a failed load
    # (UNIQUE (source_id, canonical_url)) once the stored claim held that address under its old id
    new = _load(tmp_path, "araanews-new", "araanews", "https://araanews.ae", [SCHOOL, ARTIST], monkeypatch,
                fetched_at="2019-01-01T00:00:00+00:00")
    with _open(tmp_path) as wh:  # the reviewer's statement wins over the rules' under the new spelling too
        assert wh.query("SELECT status_reason, normalized_text FROM claims WHERE claim_id = ?", [school_id]) == [
            {"status_reason": "override", "normalized_text": "اغلاق مدارس دبي اسبوعين"}]
    old = _load(tmp_path, "araanews-old-again", "araanews", OLD_ARAANEWS, [SCHOOL], monkeypatch,
                fetched_at="2019-02-01T00:00:00+00:00")
    assert (new.new_claims, old.new_claims) == (0, 0)
    with _open(tmp_path) as wh:
        claims = _claims(wh)
        known = known_canonical_urls(wh, "araanews")
    assert len(claims) == 2 and school_id in claims
    school = claims[school_id]
    assert (school["status_reason"], school["cleaned_text"]) == ("override", "إغلاق المدارس في دبي لمدة أسبوعين")
    assert school["normalized_text"] == "اغلاق مدارس دبي اسبوعين"  # the reviewer's statement, not the rules'
    assert (school["last_seen"], school["first_seen"]) == (datetime(2019, 2, 1), datetime(2018, 3, 10, 12))
    assert school["canonical_url"] == "https://araanews.ae/2016/05/school-1"

    # the crawl's known set, re-canonicalised as a spider does, holds the post in either spelling
    base = load_site_config("araanews").canonical_base
    urls = SiteUrls(base, base)
    spider_known = {urls.canonical(url) for url in known}
    for spelling in ("http://www.araanews.ae/2016/05/school-1/", "https://araanews.ae/2016/05/school-1/"):
        assert urls.canonical(spelling) in spider_known


def test_claims_that_would_share_one_url_are_left_as_they_are_and_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a post stored under its old spelling and again under its https one (a reparse before the
    # re-keying), and a post stored under both of its old spellings: duplicates a reviewer merges
    _load(tmp_path, "araanews-old", "araanews", OLD_ARAANEWS, [SCHOOL, ARTIST], monkeypatch)
    _load(tmp_path, "araanews-new", "araanews", "https://araanews.ae", [SCHOOL], monkeypatch)
    _load(tmp_path, "dabegad-capture", "dabegad", CAPTURE_DABEGAD, [BREAD], monkeypatch)
    _load(tmp_path, "dabegad-http", "dabegad", "http://dabegad.com", [BREAD], monkeypatch)
    with _open(tmp_path) as wh:
        before = _claims(wh)
    by_url = {(r["source_id"], r["url"].rsplit("/", 2)[-2]): sorted(
        c for c, x in before.items() if x["url"].rsplit("/", 2)[-2] == r["url"].rsplit("/", 2)[-2]) for r in before.values()}
    monkeypatch.setenv("COLUMNS", "400")  # the table unwrapped

    out = _rekey()
    assert "re-keyed 1 claim(s)" in out and "2 URL(s) left with duplicate claims" in out  # artist-2 moved
    for url, post in (("https://araanews.ae/2016/05/school-1", "school-1"),
                      ("https://dabegad.com/society/2207-fake-bread-prices", "2207-fake-bread-prices")):
        line = next(line for line in out.splitlines() if url in line)
        source = "araanews" if "araanews" in url else "dabegad"
        assert all(claim_id in line for claim_id in by_url[(source, post)]) and len(by_url[(source, post)]) == 2
    with _open(tmp_path) as wh:
        after = _claims(wh)
        former = wh.query("SELECT former_url FROM claim_former_urls")
    assert [r["former_url"] for r in former] == ["http://araanews.ae/2016/05/artist-2"]
    for claim_id, row in before.items():
        if "artist-2" not in row["url"]:
            assert after[claim_id] == row
    assert "re-keyed 0 claim(s)" in _rekey()


def test_a_claim_moved_back_to_a_form_it_held_before_is_re_keyed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it was: after canonical_base went http:// and back, every rekey failed on claim_former_urls' key_id
    import tasks.claim_load.rekey as rekey_module

    _load(tmp_path, "araanews-old", "araanews", OLD_ARAANEWS, [SCHOOL], monkeypatch)
    for base in ("https://araanews.ae/", "http://araanews.ae/", "https://araanews.ae/"):
        monkeypatch.setattr(rekey_module, "_canonical_base", lambda source_id, base=base: base)
        assert "re-keyed 1 claim(s)" in _rekey()
    with _open(tmp_path) as wh:
        [claim] = _claims(wh).values()
        assert claim["canonical_url"].startswith("https://araanews.ae/")
    new = _load(tmp_path, "araanews-new", "araanews", "https://araanews.ae", [SCHOOL], monkeypatch,
                fetched_at="2018-04-01T12:00:00+00:00")
    assert new.new_claims == 0  # the current spelling still finds the claim
