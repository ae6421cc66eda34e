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


# Drupal and Joomla bylines (class names of core templates: Drupal 8+ classy/olivero
# field--node--created.html.twig and node.html.twig, Drupal 7 node.tpl.php and rdf.module, Joomla's
# com_content info block). A page's only date was in them, and it came out undated.
@pytest.mark.parametrize(("inner", "raw"), [
    # Drupal 8 classy / bartik: the byline is the node's own <footer class="node__meta"> (it was dropped with
    # the site's footer before the date was read)
    ('<footer class="node__meta"><div class="node__submitted">نشره <span class="field field--name-uid field--type-'
     'entity-reference field--label-hidden">سلمى</span> في <span class="field field--name-created field--type-created '
     f'field--label-hidden">الجمعة، 17 حزيران 2016 - 10:30</span></div></footer><div class="node__content"><p>{STORY}</p>'
     '</div>', "نشره سلمى في الجمعة، 17 حزيران 2016 - 10:30"),
    # Drupal 9+ olivero: in the node's <header>, the created field's class alone names the date
    ('<header><div class="node__meta"><span>بقلم <span class="node__author">سلمى</span>، <span class="field '
     f'field--name-created field--type-created">17 يونيو 2016</span></span></div></header><p>{STORY}</p>', "17 يونيو 2016"),
    # Drupal 7 node.tpl.php without the RDF module
    (f'<div class="submitted">أرسلته سلمى يوم 17 يونيو 2016</div><div class="content"><p>{STORY}</p></div>',
     "أرسلته سلمى يوم 17 يونيو 2016"),
    # a Drupal 7 date field named post_date (this one was read already)
    ('<div class="field field-name-post-date field-type-ds field-label-hidden"><div class="field-items"><div '
     f'class="field-item even">17 يونيو 2016</div></div></div><p>{STORY}</p>', "17 يونيو 2016"),
    # Joomla 2.5's info block: "create", not its author's "createdby"
    ('<dl class="article-info"><dd class="createdby">كتبه سلمى</dd><dd class="create">أنشئ يوم الجمعة، 17 حزيران 2016 '
     f'10:30</dd></dl><p>{STORY}</p>', "أنشئ يوم الجمعة، 17 حزيران 2016 10:30"),
    # WordPress twentysixteen: the article's own <footer class="entry-footer"> holds its posted-on date
    (f'<div class="entry-content"><p>{STORY}</p></div><footer class="entry-footer"><span class="posted-on"><a href="/x" '
     'rel="bookmark"><time class="entry-date published" datetime="2016-06-17T10:30:00+03:00">17 يونيو 2016</time></a></span>'
     '<span class="tags-links"><a href="/t">وسم</a></span></footer>', "2016-06-17T10:30:00+03:00"),
], ids=["drupal8-footer-created", "drupal9-created", "drupal7-submitted", "drupal7-post-date-field", "joomla-create",
        "wordpress-entry-footer"])
def test_a_cms_byline_dates_the_page(inner: str, raw: str) -> None:
    assert _dated(inner) == (date(2016, 6, 17), raw)


@pytest.mark.parametrize("prop", ["dc:date dc:created", "dcterms:created", "datePublished", "schema:datePublished"])
def test_an_rdfa_creation_date_is_read_from_its_content_not_its_us_ordered_text(prop: str) -> None:
    # Drupal's RDF module wraps the byline in <span property="dc:date dc:created" content="..."> and the default
    # date format is m/d/Y: "06/07/2016" is 7 June, read day first as 6 July once the byline was a date line
    rdfa = (f'<span property="{prop}" content="2016-06-07T10:30:00+03:00" datatype="xsd:dateTime">أرسلته سلمى يوم '
            'الثلاثاء، 06/07/2016 - 10:30</span>')
    assert _dated(f'<div class="submitted">{rdfa}</div><p>{STORY}</p>') == (date(2016, 6, 7), "2016-06-07T10:30:00+03:00")
    # Drupal 8's RDF module prints it empty in the byline (rdf-metadata.html.twig)
    hidden = ('<div class="node__submitted">أرسلته سلمى يوم الثلاثاء، 06/07/2016 - 10:30'
              f'<span property="{prop}" content="2016-06-07T10:30:00+03:00" class="rdf-meta hidden"></span></div>')
    assert _dated(f'{hidden}<p>{STORY}</p>') == (date(2016, 6, 7), "2016-06-07T10:30:00+03:00")


def test_a_drupal_byline_without_rdfa_is_read_month_first_when_its_weekday_says_so() -> None:
    # Drupal's default "D, m/d/Y - H:i": 06/07/2016 beside Tuesday is 7 June (6 July was a Wednesday)
    byline = "أرسلته سلمى يوم الثلاثاء، 06/07/2016 - 10:30"
    assert _dated(f'<div class="node__submitted">{byline}</div><p>{STORY}</p>') == (date(2016, 6, 7), byline)


def test_a_comments_rdfa_date_is_not_the_articles() -> None:
    comment = ('<div id="comments" class="comment-wrapper"><div class="submitted"><span property="dc:date dc:created" '
               'content="2019-01-05T08:00:00+03:00">علّق زائر يوم 01/05/2019</span></div></div>')
    assert _dated(f'<span class="date">منذ 3 أيام</span><p>{STORY}</p>{comment}') == (date(2016, 6, 17), "منذ 3 أيام")


@pytest.mark.parametrize("modified", [
    '<time itemprop="dateModified" datetime="2019-03-01T09:00:00+03:00">آخر تحديث: 1 مارس 2019</time>',
    # Joomla's info block: the class is on the <dd>, the <time> has only its itemprop
    '<dd class="modified"><time datetime="2019-03-01T09:00:00+03:00" itemprop="dateModified">آخر تحديث: 1 آذار 2019'
    '</time></dd>',
    '<span class="date" itemprop="dateModified">آخر تحديث: 1 مارس 2019</span>',
], ids=["time", "joomla-dd", "date-class"])
def test_an_element_marked_date_modified_is_an_updates_date(modified: str) -> None:
    # it was a date line like any other, printed first here (and a <time> is read before every date class even
    # when printed after it): a story of 17 June 2016 was dated by its 2019 edit and dropped from its claim's window
    assert _dated(f'{modified}<span class="post-date">17 يونيو 2016</span><p>{STORY}</p>') == (date(2016, 6, 17), "17 يونيو 2016")
    assert _dated(f'{modified}<span class="post-date">منذ 3 أيام</span><p>{STORY}</p>') == (date(2016, 6, 17), "منذ 3 أيام")
    # the update tier still dates a page that prints nothing else, as a class naming an update does
    assert _dated(f"{modified}<p>{STORY}</p>")[0] == date(2019, 3, 1)


def test_a_modification_date_only_the_markup_states_never_dates_the_page() -> None:
    # a CMS fills article:modified_time / JSON-LD dateModified from the latest edit, often years after the story:
    # an undated page is kept (and flagged) by the date window, one dated by its edit falls after the window
    head = ('<meta property="article:modified_time" content="2019-03-01T09:00:00+03:00">'
            '<meta property="og:updated_time" content="2019-03-01T09:00:00+03:00">'
            '<script type="application/ld+json">{"@type": "NewsArticle", "dateModified": "2019-03-01T09:00:00Z"}</script>')
    body = f'<meta itemprop="dateModified" content="2019-03-01"><p>{STORY}</p>'
    assert _dated(body, head) == (None, None)
    assert _dated(f'<span class="date">منذ 3 أيام</span>{body}', head) == (date(2016, 6, 17), "منذ 3 أيام")


# An article's own <footer> is read since 31725d3 (Drupal's node__meta byline, WordPress's entry-footer), but
# each <time> was read before every date class wherever it was printed, so one in the footer beat the byline
# above it; and an RDFa dc:created in the footer was the markup's, which beats every date line.
@pytest.mark.parametrize(("inner", "day", "raw"), [
    # an untagged "read also" list in the footer (it was dated 2019-01-02)
    ('<div class="meta"><span class="post-date">3 مايو 2016</span></div>'
     f'<p>{STORY}</p><footer><h3>اقرأ أيضا</h3><ul><li><a href="/a">خبر آخر</a> <time datetime="2019-01-02T10:00:00+03:00">'
     '2 يناير 2019</time></li></ul></footer>', date(2016, 5, 3), "3 مايو 2016"),
    # an edit's date with no update class (2019-03-01)
    (f'<div class="post-meta"><span class="date">الثلاثاء 3 مايو 2016</span></div><p>{STORY}</p>'
     '<footer><p>آخر تعديل <time>2019-03-01</time></p></footer>', date(2016, 5, 3), "الثلاثاء 3 مايو 2016"),
    # a comment's Drupal byline in the footer, in no "comment" wrapper (2019-01-05)
    (f'<span class="date">منذ 3 أيام</span><p>{STORY}</p><footer><div class="links">ردود</div><div class="submitted">'
     '<span property="dc:date dc:created" content="2019-01-05T08:00:00+03:00">علّق زائر</span></div></footer>',
     date(2016, 6, 17), "منذ 3 أيام"),
    # Drupal 8 classy prints the node's footer at its top: it beats a <time> printed below it (a photo's, 2011-01-25)
    ('<footer class="node__meta"><div class="node__submitted">نشره سلمى في <span class="field field--name-created">'
     f'3 أيار 2016</span></div></footer><p>{STORY}</p><figure><img src="a.jpg"><figcaption>صورة من الأرشيف '
     '<time datetime="2011-01-25">25 يناير 2011</time></figcaption></figure>', date(2016, 5, 3), "نشره سلمى في 3 أيار 2016"),
], ids=["read-also-list", "edit-date", "comment-rdfa", "top-footer-before-a-caption"])
def test_an_articles_footer_dates_it_only_when_nothing_above_the_footer_does(inner: str, day: date, raw: str) -> None:
    assert _dated(inner) == (day, raw)


@pytest.mark.parametrize("other", [
    '<ul><li><a href="/b">خبر آخر</a> <span property="dc:date dc:created" content="2012-01-05T08:00:00+03:00"></span></li></ul>',
    # Drupal 8 prints each comment as an <article> inside the node's (the "comment" class does not drop an <article>)
    '<article class="comment"><span property="dc:date dc:created" content="2012-01-05T08:00:00+03:00"></span>'
    '<p>تعليق زائر على الخبر</p></article>',
], ids=["list-item", "nested-article"])
def test_another_items_machine_readable_date_is_not_the_articles(other: str) -> None:
    # it was the markup's and beat the article's byline: dated 2012-01-05
    assert _dated(f'<span class="date">منذ 3 أيام</span><p>{STORY}</p>{other}') == (date(2016, 6, 17), "منذ 3 أيام")


@pytest.mark.parametrize(("stamp", "day", "raw"), [
    ('<span class="date">منذ 3 أيام</span>', date(2016, 6, 17), "منذ 3 أيام"),
    ("", None, None),
], ids=["with-byline", "undated"])
def test_a_mains_footer_outside_an_article_is_the_sites(stamp: str, day: date | None, raw: str | None) -> None:
    # a <footer> is the article's only inside an <article>: one of a <main> prints today's date (it was 2024-05-09)
    page = (f'<main><div class="post"><h1>عنوان الخبر</h1>{stamp}<p>{STORY}</p></div>'
            '<footer><time datetime="2024-05-09">الخميس 9 مايو 2024</time> © الموقع</footer></main>')
    article = extract_article(f"<html><body>{page}</body></html>", now=CAPTURED)
    assert (article.published_date, article.published_raw) == (day, raw)
    assert article.paragraphs == [STORY]


@pytest.mark.parametrize(("box", "day", "raw"), [
    ('<div class="created-by">أنشأ الحساب في 01/02/2012 - المحرر سلمى</div><span class="date">منذ 3 أيام</span>',
     date(2016, 6, 17), "منذ 3 أيام"),
    ('<p class="user-submitted-photo">صورة أرسلها قارئ يوم 12 يناير 2015</p>', None, None),
    ('<div class="resubmitted-form">أعيد إرسال النموذج في 5 مارس 2014</div>', None, None),
], ids=["created-by", "user-submitted-photo", "resubmitted-form"])
def test_a_class_that_merely_holds_a_cms_bylines_word_is_no_date_line(box: str, day: date | None, raw: str | None) -> None:
    # 31725d3 matched "submitted" and "created" / "create" anywhere in a class: dated 2012-02-01, 2015-01-12, 2014-03-05
    assert _dated(f"{box}<p>{STORY}</p>") == (day, raw)


@pytest.mark.parametrize("byline", [
    '<div class="submitted">Submitted by admin on 06/07/2016 - 10:30</div>',
    '<footer class="node__meta"><div class="node__submitted">نشره سلمى في <span class="field field--name-created">'
    "06/07/2016 - 10:30</span></div></footer>",
    '<div class="submitted">نشره سلمى في <time>06/07/2016</time></div>',
], ids=["drupal7-submitted", "drupal8-created-field", "time-without-datetime"])
def test_a_drupal_bylines_numeric_date_that_reads_two_ways_dates_nothing(byline: str) -> None:
    # Drupal's default short format is the US m/d/Y: with no weekday beside it 06/07/2016 may be 7 June (US) or
    # 6 July (day first, as it was read); an undated page is kept and flagged, one a month off may be dropped
    day, raw = _dated(f"{byline}<p>{STORY}</p>")
    assert day is None and raw is not None and "06/07/2016" in raw


@pytest.mark.parametrize(("byline", "day"), [
    # a <time datetime> or the node's RDFa (here in Drupal 8's node__meta footer) states the day
    ('<div class="submitted">نشره سلمى في <time datetime="2016-06-07T10:30:00+03:00">06/07/2016</time></div>',
     date(2016, 6, 7)),
    ('<footer class="node__meta"><div class="node__submitted">نشره سلمى في 06/07/2016 - 10:30<span property="dc:date '
     'dc:created" content="2016-06-07T10:30:00+03:00" class="rdf-meta hidden"></span></div></footer>', date(2016, 6, 7)),
    # a day past 12, or a day that is its month, reads one way only
    ('<div class="submitted">Submitted by admin on 17/06/2016 - 10:30</div>', date(2016, 6, 17)),
    ('<div class="submitted">Submitted by admin on 06/06/2016 - 10:30</div>', date(2016, 6, 6)),
    # outside a Drupal byline a numeric date is read day first, as Arabic pages write it
    ('<span class="post-date">06/07/2016</span>', date(2016, 7, 6)),
], ids=["time-datetime", "footer-rdfa", "day-past-12", "day-is-month", "not-drupal"])
def test_a_drupal_bylines_numeric_date_that_reads_one_way_dates_the_page(byline: str, day: date) -> None:
    assert _dated(f"{byline}<p>{STORY}</p>")[0] == day


def test_nested_drupal_byline_blocks_are_read_no_further_than_a_date_line() -> None:
    # each block reads two ways, so the next one is read: parsed in full twice each, 3,000 of them took 190 s
    depth = 2000
    page = '<div class="submitted">06/07/2016 ' * depth + "</div>" * depth + f"<p>{STORY}</p>"
    article = extract_article(_page(page), now=CAPTURED)
    assert article.published_date is None and article.paragraphs == [STORY]


STORY_DATE = '<div class="story-date">الأربعاء 6 يوليو 2016</div>'


@pytest.mark.parametrize(("page", "day"), [
    # teasers above the story, each with its footer's <time> (it was dated 2024-11-30)
    ('<section class="top-stories"><article class="teaser"><h3>خبر</h3><footer><time datetime="2024-11-30">أمس</time>'
     f'</footer></article></section><main><article class="story"><h1>عنوان الخبر</h1>{STORY_DATE}<p>{STORY}</p>'
     '</article></main>', date(2016, 7, 6)),
    # a photo credit's date in a figure's footer (2010-01-01)
    ('<article><h1>عنوان الخبر</h1><figure><img src="x"><footer class="credit">تصوير: <time datetime="2010-01-01">2010'
     f'</time></footer></figure><span class="date">6 يوليو 2016</span><p>{STORY}</p></article>', date(2016, 7, 6)),
    # the one story printed in a list item, dated by its microdata only (undated)
    ('<ul class="list"><li class="item"><h1>عنوان الخبر</h1><time itemprop="datePublished" '
     f'datetime="2016-07-06T10:00:00+03:00">6 يوليو 2016</time><div class="body"><p>{STORY}</p></div></li></ul>',
     date(2016, 7, 6)),
    ('<ol><li><h1>عنوان الخبر</h1><span itemprop="datePublished" content="2016-07-06">نشر في 2016</span>'
     f'<div><p>{STORY}</p></div></li></ol>', date(2016, 7, 6)),
    # a theme that wraps the page in an <article> around the story's (undated)
    ('<article class="page-wrap"><article class="news" itemscope><h1>عنوان الخبر</h1><span itemprop="datePublished" '
     f'content="2016-07-06">الأربعاء 6 يوليو 2016</span><div class="text"><p>{STORY}</p></div></article></article>',
     date(2016, 7, 6)),
], ids=["teasers-above", "figure-credit", "li-story-time", "li-story-span", "nested-article"])
def test_a_footer_outside_the_story_or_a_story_in_a_list_item_dates_the_page_as_before(page: str, day: date) -> None:
    assert _dated(page)[0] == day
