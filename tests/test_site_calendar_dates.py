"""Publication dates on each site's own calendar: a relative stamp counted from a fetch or an archive
capture, and a timestamp in UTC, are the day they were where the site is (its TOML's ``timezone``).

It was: both were taken on UTC's calendar, so a page read or stamped after 20:00-22:00 UTC was dated a
day early in the UAE, Saudi Arabia and Egypt, which moves a claim across the edge of its ±3-month /
±2-month retrieval window and shows the user the wrong day.
"""

from __future__ import annotations

import json
import tomllib
from datetime import date, datetime, timezone
from importlib import resources
from pathlib import Path

import pytest

from helpers_crawl_load import StagedPost, write_run

from arastance.base.dates import parse_published, preferred_date
from arastance.base.sites import CONFIG_PACKAGE, SiteConfigError, all_site_configs
from spiders.extraction import extract_detail
from spiders.site_config import load_site_config, parse_site_config
from spiders.site_urls import SiteUrls
from tasks.claim_load.load import load_crawl_run
from warehouse import Warehouse

#: An archive capture late in the UTC evening: already the next day in Dubai (01:30) and Riyadh (00:30).
LATE = datetime(2016, 5, 3, 21, 30, tzinfo=timezone.utc)


def _page(body: str, head: str = "") -> str:
    return f'<!DOCTYPE html><html lang="ar"><head><meta charset="utf-8">{head}</head><body>{body}</body></html>'


def _araanews(stamp: str, head: str = "") -> str:
    return _page('<article class="post"><h1 class="entry-title">حقيقة إغلاق المدارس في دبي</h1>'
                 f'<span class="posted-on">{stamp}</span><div class="entry-content">'
                 '<div class="rumor-box"><p class="rumor-text">إغلاق المدارس في دبي لمدة أسبوعين</p></div>'
                 '<p>نفت الوزارة الخبر.</p></div></article>', head)


def _norumors(stamp: str) -> str:
    return _page('<section class="rumor"><h1 class="rumor__title">سيل جدة</h1><div class="rumor__meta">'
                 f'<span class="rumor__date">{stamp}</span><ul><li>أمطار</li></ul></div>'
                 '<div class="rumor__text"><p>سيل يجرف السيارات في جدة اليوم</p></div>'
                 '<div class="rumor__truth"><p>الصور قديمة.</p></div></section>')


def _dabegad(stamp: str) -> str:
    return _page('<article class="post"><h1 class="entry-title">حقيقة عصابة خطف الأطفال</h1>'
                 f'<time class="entry-date published">{stamp}</time>'
                 '<div class="entry"><blockquote><p>عصابة تخطف الأطفال</p></blockquote><p>نص</p></div></article>')


def _reuters(stamp: str) -> str:
    return _page('<div class="contentBand"><div class="article primaryContent">'
                 '<h1>السعودية ترفع أسعار الوقود</h1><div class="sectionName"><a>أعمال</a></div>'
                 f'<span class="timestamp">{stamp}</span><p>رفعت السعودية أسعار البنزين.</p></div></div>')


PAGES = {"araanews": (_araanews, "2016/05/school-closure/"), "norumors": (_norumors, "rumors/561/"),
         "dabegad": (_dabegad, "society/3401-child-kidnapping-gang/"),
         "reuters": (_reuters, "article/businessNews/idARAKBN1Q0FZH20160503")}


def _published(site: str, stamp: str, captured: datetime) -> tuple[str | None, str | None]:
    """``(published_raw, published_date)`` of a claim page of ``site`` stamped ``stamp``, read as the
    crawl and ``arastance reparse`` read it (captured at ``captured``)."""
    config = load_site_config(site)
    build, path = PAGES[site]
    urls = SiteUrls(config.canonical_base, config.canonical_base)
    fields = extract_detail(build(stamp), config.canonical_base + path, config, urls, fetched_at=captured)
    return fields.published_raw, fields.published_date


def test_each_paper_site_names_its_time_zone() -> None:
    zones = {c.source_id: str(c.timezone) for c in all_site_configs()}
    assert {site: zones[site] for site in PAGES} == {
        "araanews": "Asia/Dubai", "norumors": "Asia/Riyadh", "dabegad": "Africa/Cairo", "reuters": "UTC"}
    assert all(c.timezone is not None for c in all_site_configs() if c.enabled), "every site crawled by default"


@pytest.mark.parametrize(("site", "stamp", "expected", "on_utc_calendar"), [
    ("araanews", "منذ ساعة", "2016-05-04", "2016-05-03"),      # 20:30 UTC is 00:30 in Dubai
    ("araanews", "أمس", "2016-05-03", "2016-05-02"),
    ("araanews", "منذ 3 ساعات", "2016-05-03", "2016-05-03"),   # 22:30 in Dubai: still the 3rd
    ("norumors", "منذ دقائق", "2016-05-04", "2016-05-03"),     # 00:29 in Riyadh
    ("norumors", "منذ يومين", "2016-05-02", "2016-05-01"),
    ("norumors", "اليوم", "2016-05-04", "2016-05-03"),
    ("dabegad", "منذ ساعة", "2016-05-03", "2016-05-03"),       # 22:30 in Cairo (no summer time in 2016)
    ("dabegad", "أمس", "2016-05-02", "2016-05-02"),
])
def test_a_relative_stamp_captured_at_21_30_utc_counts_back_on_the_sites_calendar(
    site: str, stamp: str, expected: str, on_utc_calendar: str
) -> None:
    assert _published(site, stamp, LATE) == (stamp, expected), f"it was {on_utc_calendar}"


@pytest.mark.parametrize("head_or_visible", ["json_ld", "visible"])
def test_an_explicit_offset_timestamp_on_araanews_is_the_day_in_dubai(head_or_visible: str) -> None:
    stamp = "2018-03-04T23:30:00+00:00"  # WordPress (Yoast) writes a UTC-configured blog's datePublished so
    config = load_site_config("araanews")
    urls = SiteUrls(config.canonical_base, config.canonical_base)
    if head_or_visible == "json_ld":
        ld = {"@context": "https://schema.org", "@type": "NewsArticle", "datePublished": stamp}
        html = _araanews("", f'<script type="application/ld+json">{json.dumps(ld)}</script>')
    else:
        html = _araanews(stamp)
    fields = extract_detail(html, config.canonical_base + "2018/03/x/", config, urls, fetched_at=LATE)
    assert (fields.published_raw, fields.published_date) == (stamp, "2018-03-05")  # it was 2018-03-04
    assert parse_published(stamp, tz=config.timezone).date == date(2018, 3, 5)
    assert parse_published("2018-03-04T23:30:00Z", tz=config.timezone).date == date(2018, 3, 5)
    assert parse_published("2018-03-04T19:30:00Z", tz=config.timezone).date == date(2018, 3, 4)  # 23:30 there
    chosen = preferred_date(["منذ ساعة", stamp], now=LATE, tz=config.timezone)
    assert chosen is not None and (chosen[0], chosen[1].date) == (1, date(2018, 3, 5))


@pytest.mark.parametrize(("stamp", "expected"), [
    ("الثلاثاء 3 مايو 2016 21:45 GMT", "2016-05-03"),          # the GMT date printed, not Dubai's 4th
    ("3 مايو 2016 | 9:45 م بتوقيت غرينتش", "2016-05-03"),
    ("Tue, 03 May 2016 21:45:00 GMT", "2016-05-03"),
    ("الأربعاء 4 مايو 2016 01:30 GMT+3", "2016-05-03"),        # 22:30 GMT on the 3rd
    ("الثلاثاء 3 مايو 2016 21:45", "2016-05-03"),              # a time in no zone: as written
])
def test_a_reuters_dateline_is_dated_on_the_gmt_calendar_it_prints(stamp: str, expected: str) -> None:
    assert _published("reuters", stamp, LATE) == (stamp, expected)


@pytest.mark.parametrize(("captured", "expected"), [
    (datetime(2014, 1, 20, 21, 30, tzinfo=timezone.utc), "2014-01-20"),  # winter, UTC+2: 23:30
    (datetime(2014, 5, 20, 21, 30, tzinfo=timezone.utc), "2014-05-21"),  # summer time, UTC+3: 00:30
    (datetime(2014, 7, 10, 21, 30, tzinfo=timezone.utc), "2014-07-10"),  # summer time paused for Ramadan
    (datetime(2024, 7, 10, 21, 30, tzinfo=timezone.utc), "2024-07-11"),  # summer time again since 2023
])
def test_cairo_summer_time_moves_dabegads_day_only_in_the_summers_that_kept_it(
    captured: datetime, expected: str
) -> None:
    assert _published("dabegad", "منذ دقائق", captured) == ("منذ دقائق", expected)
    stamp = captured.isoformat().replace("+00:00", "Z")
    assert _published("dabegad", stamp, captured) == (stamp, expected)


@pytest.mark.parametrize("stamp", ["2018-03-04", "4 مارس 2018", "04/03/2018", "2018-03-04 23:30",
                                   "2018-03-04T23:30:00+04:00", "الأحد 4 مارس 2018 - 23:30"])
def test_a_date_without_a_time_in_a_zone_stays_as_written(stamp: str) -> None:
    assert _published("araanews", stamp, LATE) == (stamp, "2018-03-04")


def test_a_caller_that_knows_no_site_keeps_the_utc_calendar_and_the_written_day() -> None:
    # search results and retrieved articles: no site, so no zone
    assert parse_published("أمس", now=LATE).date == date(2016, 5, 2)
    assert parse_published("منذ ساعة", now=LATE.replace(tzinfo=None)).date == date(2016, 5, 3)  # naive is UTC
    assert parse_published("2018-03-04T23:30:00+00:00").date == date(2018, 3, 4)
    assert parse_published("2018-03-05T01:30:00+03:00").date == date(2018, 3, 5)  # the publisher's own day


def test_the_loader_dates_a_staged_relative_stamp_on_the_sites_calendar(warehouse: Warehouse, tmp_path: Path) -> None:
    """A staging run written before a parser read the stamp is dated at load, as the spider dates it."""
    undated = {"published_raw": "أمس", "published_date": None, "fetched_at": "2025-06-10T08:00:00+00:00"}
    posts = [StagedPost("/rumors/561/", "سيل يجرف السيارات في جدة", "سيل جدة",
                        captured_at="2016-05-03T21:30:00+00:00", **undated)]
    load_crawl_run(warehouse, write_run(tmp_path / "norumors-archive", "norumors", posts))
    [row] = warehouse.query("SELECT published_date FROM claims")
    assert row["published_date"] == date(2016, 5, 3)  # it was 2016-05-02


def _araanews_toml() -> dict:
    return tomllib.loads((resources.files(CONFIG_PACKAGE) / "araanews.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("bad", ["Asia/Dubia", "UTC+4", "Asia", "", 4, "../../etc/passwd"])
def test_a_bad_time_zone_is_refused_at_load_naming_the_file_and_the_value(bad: object) -> None:
    data = _araanews_toml()
    data["site"]["timezone"] = bad
    source = "arastance/base/site_configs/araanews.toml"
    with pytest.raises(SiteConfigError) as refused:
        parse_site_config(data, source)
    message = str(refused.value)
    assert message.startswith(f"{source}: site.timezone ") and repr(bad) in message and "IANA" in message
