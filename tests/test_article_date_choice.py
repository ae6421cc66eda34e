"""Which of an article page's dates is its publication date: the markup's, else the first date line,
a relative stamp giving way only to an exact date of its own byline, and an update's date last."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from spiders.article_extraction import extract_article
from tasks.search.warc import WarcFilter, WarcStats, page_record

STORY = "وقال المتحدث باسم الوزارة إن القرار سيطبق على جميع المدارس الحكومية والخاصة اعتبارا من الأسبوع المقبل دون استثناء."
#: The archive capture the relative stamps count from.
CAPTURED = datetime(2016, 6, 20, 12, 0)


def _page(inner: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><article><h1>عنوان الخبر</h1>{inner}</article></body></html>"


def _dated(inner: str, head: str = "") -> tuple[date | None, str | None]:
    article = extract_article(_page(inner, head), now=CAPTURED)
    return article.published_date, article.published_raw


@pytest.mark.parametrize(("inner", "stamp", "day"), [
    (f'<time>منذ ساعتين</time><p>{STORY}</p><div class="read-also"><a href="/x">خبر قديم</a>'
     f'<span class="date">12 مايو 2015</span></div><p>{STORY}</p>', "منذ ساعتين", date(2016, 6, 20)),
    (f'<span class="date">منذ 3 ساعات</span><p>{STORY}</p><div class="profile"><b>أحمد علي</b>'
     f'<span class="birth-date">12 مايو 1965</span></div>', "منذ 3 ساعات", date(2016, 6, 20)),
    (f'<time>أمس</time><p>{STORY}</p><div class="event-date">موعد الانتخابات: 20 يوليو 2016</div>',
     "أمس", date(2016, 6, 19)),
    (f'<time>منذ ساعتين</time><p>{STORY}</p><figure><img src="a.jpg"><figcaption>صورة من الأرشيف '
     f'<time datetime="2011-01-25">25 يناير 2011</time></figcaption></figure>', "منذ ساعتين", date(2016, 6, 20)),
    (f'<span class="post-date">منذ ساعتين</span><span class="modified-date">آخر تعديل 19 يونيو 2015</span><p>{STORY}</p>',
     "منذ ساعتين", date(2016, 6, 20)),
], ids=["read-also-box", "birth-date", "event-date", "photo-caption", "modified-date"])
def test_the_articles_relative_stamp_wins_over_an_exact_date_further_down(inner: str, stamp: str, day: date) -> None:
    # since e489eee the first exact date anywhere in the body won: 2015-05-12, 1965-05-12, 2016-07-20,
    # 2011-01-25, 2015-06-19, and a story of 20 June 2016 fell outside its claim's date window
    assert _dated(inner) == (day, stamp)


@pytest.mark.parametrize(("inner", "raw", "day"), [
    ('<div class="meta"><span class="author">أحمد علي</span> <time>منذ 3 أسابيع</time> '
     f'<span class="date">27 مايو 2016</span></div><p>{STORY}</p>', "27 مايو 2016", date(2016, 5, 27)),
    (f'<span class="date">27 مايو 2016</span> <time>منذ 3 أسابيع</time><p>{STORY}</p>', "27 مايو 2016", date(2016, 5, 27)),
    (f'<time>منذ 3 أسابيع</time><div class="date">27 مايو 2016</div><p>{STORY}</p>', "27 مايو 2016", date(2016, 5, 27)),
    # a stamp rounded to the nearest unit (WordPress, moment): the day printed beside it is up to half a unit
    # after the day it counts back to (it was: "منذ 3 أسابيع" 2016-05-30, "منذ شهرين" 04-20, "منذ سنتين" 2014-06-20)
    ('<div class="entry-meta"><span class="time-ago">منذ 3 أسابيع</span> | <span class="post-date">2 يونيو 2016'
     f'</span></div><p>{STORY}</p>', "2 يونيو 2016", date(2016, 6, 2)),
    ('<div class="entry-meta"><span class="time-ago">منذ شهرين</span> | <span class="post-date">5 مايو 2016'
     f'</span></div><p>{STORY}</p>', "5 مايو 2016", date(2016, 5, 5)),
    ('<div class="entry-meta"><span class="time-ago">منذ سنتين</span> | <span class="post-date">1 نوفمبر 2014'
     f'</span></div><p>{STORY}</p>', "1 نوفمبر 2014", date(2014, 11, 1)),
    # an exact date after the day the stamp says is another's, even in the byline (an event, an update)
    (f'<time>منذ ساعتين</time> | <span class="date">20 يوليو 2016</span><p>{STORY}</p>', "منذ ساعتين", date(2016, 6, 20)),
    (f'<time>منذ ساعتين</time><div class="read-also"><a href="/x">خبر قديم</a><span class="date">12 مايو 2015</span></div>'
     f'<p>{STORY}</p>', "منذ ساعتين", date(2016, 6, 20)),
], ids=["same-byline", "printed-before", "next-line", "weeks-rounded-up", "months-rounded-up", "years-rounded-up",
        "later-event", "old-story-next-to-it"])
def test_a_relative_stamp_gives_way_to_an_agreeing_exact_date_of_its_own_date_line(inner: str, raw: str, day: date) -> None:
    assert _dated(inner) == (day, raw)


def test_the_markups_exact_date_wins_over_a_relative_stamp() -> None:
    meta = '<meta property="article:published_time" content="2016-06-17T10:00:00+03:00">'
    assert _dated(f'<span class="date">منذ ساعتين</span><p>{STORY}</p>', meta) == (date(2016, 6, 17), "2016-06-17T10:00:00+03:00")
    itemprop = f'<time>منذ ساعتين</time><p>{STORY}</p><meta itemprop="datePublished" content="2016-06-17">'
    assert _dated(itemprop) == (date(2016, 6, 17), "2016-06-17")


@pytest.mark.parametrize("cls", ["updated", "lastupdate", "last-updated", "date-updated", "modified-date", "update-time",
                                 "updatedate", "lastupdatedate"])
def test_an_update_date_dates_a_page_only_when_nothing_else_does(cls: str) -> None:
    # since 071254e these classes were no date at all: the hAtom <span class="updated"> as a page's one date
    # left it undated; some of them (modified-date, update-time) were ordinary date lines before that
    only = f'<span class="{cls}">17 يونيو 2016</span><p>{STORY}</p>'
    assert _dated(only) == (date(2016, 6, 17), "17 يونيو 2016")
    assert _dated(f'<span class="post-date">منذ ساعتين</span>{only}') == (date(2016, 6, 20), "منذ ساعتين")
    assert _dated(f'<span class="post-date">15 يونيو 2016</span>{only}') == (date(2016, 6, 15), "15 يونيو 2016")


def test_a_time_marked_published_and_updated_is_the_publication() -> None:
    # WordPress marks a post never edited <time class="entry-date published updated">
    wp = ('<time class="updated" datetime="2016-06-19">19 يونيو</time>'
          f'<time class="entry-date published updated" datetime="2016-06-17">17 يونيو</time><p>{STORY}</p>')
    assert _dated(wp) == (date(2016, 6, 17), "2016-06-17")


def test_the_warc_index_keeps_a_page_dated_by_its_update_line_alone() -> None:
    # it was counted undated and left out of the index
    html = _page(f'<div class="lastupdate">آخر تحديث: 17 يونيو 2016</div><p>{STORY}</p><p>{STORY}</p>')
    stats = WarcStats()
    record = page_record("https://news.example/a", html.encode(), WarcFilter(date(2016, 1, 1), date(2016, 12, 31)), stats,
                         extract_article, content_type="text/html; charset=utf-8", captured_at=CAPTURED)
    assert record is not None and record.published_date == date(2016, 6, 17) and dict(stats.counts) == {"extracted": 1}


@pytest.mark.parametrize(("page", "day"), [
    # HTML5: the article's own <header> holds its title and byline (it was dropped with the site's, undated)
    (f'<header class="site-header"><nav><a href="/">الرئيسية</a></nav></header><article><header class="entry-header">'
     f'<h1>عنوان الخبر</h1><time class="entry-date" datetime="2016-06-17">17 يونيو 2016</time></header>'
     f'<p>{STORY}</p></article>', date(2016, 6, 17)),
    # the site's header outside the article still dates nothing (a clock, today's date)
    (f'<header class="site-header"><span class="date">20 يونيو 2016</span></header>'
     f'<article><span class="date">منذ 3 أيام</span><p>{STORY}</p></article>', date(2016, 6, 17)),
], ids=["article-header", "site-header"])
def test_an_articles_own_header_dates_it_and_the_sites_does_not(page: str, day: date) -> None:
    article = extract_article(f"<html><body>{page}</body></html>", now=CAPTURED)
    assert article.published_date == day
    assert "عنوان الخبر" not in " ".join(article.paragraphs) and STORY in article.paragraphs
