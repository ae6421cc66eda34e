"""Layered extraction: ClaimReview, Article JSON-LD, OpenGraph, <time datetime>, then the site's
selectors as overrides; each claim records which layer gave each field."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from spiders.extraction import ExtractionError, extract_detail
from spiders.site_config import load_site_config
from spiders.site_urls import SiteUrls

MISBAR = load_site_config("misbar")  # no evidenced selectors: the generic layers carry it
URLS = SiteUrls("https://misbar.com/", "https://misbar.com/")
PAGE = "https://misbar.com/factcheck/2017/03/05/a"

CLAIM_REVIEW = {"@context": "https://schema.org", "@type": "ClaimReview", "claimReviewed": "مياه البحر تعالج الزكام",
                "datePublished": "2017-03-05", "reviewRating": {"@type": "Rating", "alternateName": "زائف"},
                "author": {"@type": "Organization", "name": "فريق التحقق"}}
ARTICLE = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "حقيقة علاج الزكام بمياه البحر",
           "articleBody": "قال أطباء إن مياه البحر لا تعالج الزكام.\nوأوضحوا أن الراحة تكفي.",
           "datePublished": "2017-03-04T08:00:00+03:00", "articleSection": ["صحة"]}


def page(*, head: str = "", body: str = "") -> str:
    return f'<!DOCTYPE html><html lang="ar"><head><meta charset="utf-8">{head}</head><body>{body}</body></html>'


def ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data, ensure_ascii=False)}</script>'


def test_claim_review_gives_the_claim_the_verdict_and_the_date() -> None:
    fields = extract_detail(page(head=ld(CLAIM_REVIEW) + ld(ARTICLE)), PAGE, MISBAR, URLS)
    assert fields.claim_text == "مياه البحر تعالج الزكام" and fields.published_date == "2017-03-05"
    assert fields.claim_review == {"claim_reviewed": "مياه البحر تعالج الزكام", "rating": "زائف", "author": "فريق التحقق"}
    assert fields.field_layers["claim"] == fields.field_layers["verdict"] == fields.field_layers["published"] == "claim_review"


def test_article_json_ld_gives_title_body_date_and_section() -> None:
    fields = extract_detail(page(head=ld({"@graph": [{"@type": "WebSite"}, ARTICLE]})), PAGE, MISBAR, URLS)
    assert fields.title == "حقيقة علاج الزكام بمياه البحر" and fields.body_text.startswith("قال أطباء")
    assert (fields.published_date, fields.category) == ("2017-03-04", "صحة")
    assert {fields.field_layers[f] for f in ("title", "body", "published", "category")} == {"article_json_ld"}
    assert fields.field_layers["claim"] == "title:article_json_ld", "Misbar states the claim in the title"


def test_open_graph_and_article_meta_tags() -> None:
    head = ('<meta property="og:title" content="عنوان من الوسوم">'
            '<meta property="article:published_time" content="2016-11-02T10:00:00Z">'
            '<meta property="article:section" content="سياسة">')
    fields = extract_detail(page(head=head), PAGE, MISBAR, URLS)
    assert (fields.title, fields.published_date, fields.category) == ("عنوان من الوسوم", "2016-11-02", "سياسة")
    assert fields.field_layers == {"title": "open_graph", "claim": "title:open_graph", "published": "open_graph",
                                   "category": "open_graph"}


def test_time_datetime_is_the_last_generic_layer_for_the_date() -> None:
    html = page(body='<article><h1>عنوان</h1><time datetime="2015-07-09">٩ يوليو</time><p>نص.</p></article>')
    fields = extract_detail(html, PAGE, MISBAR, URLS)
    assert fields.published_date == "2015-07-09" and fields.field_layers["published"] == "time"
    assert fields.field_layers["title"] == "css" and fields.field_layers["body"] == "css"


def test_the_sites_selectors_override_every_generic_layer() -> None:
    head = ld(ARTICLE) + '<meta property="og:title" content="عنوان الوسوم">'
    html = page(head=head, body='<article><h1>عنوان الصفحة</h1><p>فقرة الموقع.</p><time datetime="2014-01-01"></time></article>')
    fields = extract_detail(html, PAGE, MISBAR, URLS)
    assert (fields.title, fields.body_text) == ("عنوان الصفحة", "فقرة الموقع.")
    assert fields.field_layers["title"] == fields.field_layers["body"] == "css"
    # Misbar has no date selector: among the generic layers, Article JSON-LD comes before <time>.
    assert fields.published_date == "2017-03-04" and fields.field_layers["published"] == "article_json_ld"


def test_a_page_no_layer_understands_is_a_parse_failure_naming_the_field() -> None:
    with pytest.raises(ExtractionError, match="title .*no generic layer"):
        extract_detail(page(body="<div>لا شيء هنا</div>"), PAGE, MISBAR, URLS)


# -- JSON-LD as CMSs write it ---------------------------------------------------------------------

CLAIM_REVIEW_JSON = json.dumps(CLAIM_REVIEW, ensure_ascii=False)


@pytest.mark.parametrize("block", [
    CLAIM_REVIEW_JSON.replace("مياه البحر تعالج", "مياه البحر\nتعالج"),  # a raw line break inside a string
    CLAIM_REVIEW_JSON.replace("مياه البحر تعالج", "مياه البحر\tتعالج"),  # a raw tab
    "/*<![CDATA[*/" + CLAIM_REVIEW_JSON + "/*]]>*/",
    "//<![CDATA[\n" + CLAIM_REVIEW_JSON + "\n//]]>",
    "<!--" + CLAIM_REVIEW_JSON + "-->",
    json.dumps({**ARTICLE, "review": CLAIM_REVIEW}, ensure_ascii=False),  # nested in the Article
    json.dumps({**CLAIM_REVIEW, "@type": "http://schema.org/ClaimReview"}, ensure_ascii=False),
    json.dumps({**CLAIM_REVIEW, "reviewRating": [CLAIM_REVIEW["reviewRating"]]}, ensure_ascii=False),
], ids=["line_break", "tab", "cdata", "cdata_line_comments", "html_comment", "article_review", "type_iri", "rating_list"])
def test_claim_review_is_read_as_browsers_read_json_ld(block: str) -> None:
    # it was: strict json.loads dropped the whole ClaimReview (claim, verdict and date lost), a wrapper
    # or a nested review hid it, and a list of ratings was stored as its Python repr as the verdict
    script = f'<script type="application/ld+json">{block}</script>'
    fields = extract_detail(page(head=script, body="<h1>عنوان</h1>"), PAGE, MISBAR, URLS)
    assert fields.claim_text == "مياه البحر تعالج الزكام" and fields.field_layers["claim"] == "claim_review"
    assert fields.claim_review == {"claim_reviewed": "مياه البحر تعالج الزكام", "rating": "زائف", "author": "فريق التحقق"}
    assert fields.published_date == "2017-03-05"


def test_a_lone_surrogate_escape_in_json_ld_becomes_a_replacement_character() -> None:
    # it was: "\ud83d" (half an emoji) reached the claim, and its staging line could not be encoded
    block = CLAIM_REVIEW_JSON.replace("الزكام", "الزكام \\ud83d").replace("فريق التحقق", "فريق \\ud83d\\ude00")
    fields = extract_detail(page(head=f'<script type="application/ld+json">{block}</script>', body="<h1>عنوان</h1>"),
                            PAGE, MISBAR, URLS)
    assert fields.claim_text == "مياه البحر تعالج الزكام \ufffd"
    assert fields.claim_review is not None and fields.claim_review["author"] == "فريق 😀", "a whole pair is the emoji"


# -- the claim of sites whose selectors are only fallbacks -----------------------------------------

@pytest.mark.parametrize("site, body", [
    ("misbar", "<article><h1>هل تعالج مياه البحر الزكام؟</h1><p>نص.</p></article>"),
    ("fatabyyano", '<h1 class="post_title">هل تعالج مياه البحر الزكام؟</h1><div itemprop="text"><p>نص.</p></div>'),
])
def test_claim_review_states_the_claim_over_the_question_headline(site: str, body: str) -> None:
    # it was: claim = ["h1"] overrode claimReviewed, and the question headline was stored as the claim
    config = load_site_config(site)
    urls = SiteUrls(config.canonical_base, config.canonical_base)
    fields = extract_detail(page(head=ld(CLAIM_REVIEW), body=body), config.canonical_base + "x/", config, urls)
    assert (fields.title, fields.claim_text) == ("هل تعالج مياه البحر الزكام؟", "مياه البحر تعالج الزكام")
    assert fields.field_layers["claim"] == "claim_review"
    without_review = extract_detail(page(body=body), config.canonical_base + "x/", config, urls)
    assert without_review.claim_text == without_review.title and without_review.field_layers["claim"] == "title:css"


# -- the date: the first exact one ------------------------------------------------------------------

DABEGAD = load_site_config("dabegad")
DABEGAD_URLS = SiteUrls(DABEGAD.canonical_base, DABEGAD.canonical_base)
CAPTURED = datetime(2018, 11, 20, tzinfo=timezone.utc)  # an archive capture, two and a half years on


def dabegad_post(visible: str, head: str = "") -> str:
    return page(head=head, body='<article class="post"><h1 class="entry-title">حقيقة عصابة خطف الأطفال</h1>'
                '<time class="entry-date published" datetime="2016-05-03T09:00:00+02:00">' + visible + "</time>"
                '<div class="entry"><blockquote><p>عصابة تخطف الأطفال</p></blockquote><p>نص</p></div></article>')


@pytest.mark.parametrize("visible", ["منذ سنتين", "منذ سنوات", "الثلاثاء", "نُشر في 3 مايو", ""])
def test_a_rough_or_unreadable_visible_date_gives_way_to_the_exact_datetime_attribute(visible: str) -> None:
    # it was: the first selector with any text won: "منذ سنتين" was the capture minus two years
    # (2016-11-20, six months off) and the others no date, though the attribute holds the day
    fields = extract_detail(dabegad_post(visible), DABEGAD.canonical_base + "society/3401-x/", DABEGAD, DABEGAD_URLS,
                            fetched_at=CAPTURED)
    assert (fields.published_raw, fields.published_date) == ("2016-05-03T09:00:00+02:00", "2016-05-03")
    assert fields.field_layers["published"] == "css"


def test_an_exact_visible_date_wins_and_a_relative_one_counts_only_when_nothing_is_exact() -> None:
    url = DABEGAD.canonical_base + "society/3401-x/"
    exact = extract_detail(dabegad_post("3 مايو 2016"), url, DABEGAD, DABEGAD_URLS, fetched_at=CAPTURED)
    assert (exact.published_raw, exact.published_date) == ("3 مايو 2016", "2016-05-03")
    relative_only = page(body='<article><h1 class="entry-title">عنوان</h1><span class="posted-on">منذ يومين</span>'
                         '<time datetime="قبل فترة"></time></article>')
    araanews = load_site_config("araanews")
    fields = extract_detail(relative_only, araanews.canonical_base + "2016/05/x/", araanews,
                            SiteUrls(araanews.canonical_base, araanews.canonical_base), fetched_at=CAPTURED)
    assert (fields.published_raw, fields.published_date) == ("منذ يومين", "2018-11-18"), "never guessed, still counted"
    unreadable = extract_detail(page(body='<h1 class="entry-title">عنوان</h1><span class="posted-on">قبل فترة</span>'),
                                araanews.canonical_base + "2016/05/x/", araanews,
                                SiteUrls(araanews.canonical_base, araanews.canonical_base))
    assert (unreadable.published_raw, unreadable.published_date) == ("قبل فترة", None), "kept raw, not dropped"


def test_claim_reviews_exact_date_beats_a_visible_date_that_cannot_be_read() -> None:
    # it was: Norumors' "منذ أسابيع" in span.rumor__date hid ClaimReview's datePublished: no date at all
    norumors = load_site_config("norumors")
    html = page(head=ld(CLAIM_REVIEW), body='<section class="rumor"><h1 class="rumor__title">سيل جدة</h1>'
                '<div class="rumor__meta"><span class="rumor__date">منذ أسابيع</span></div></section>')
    fields = extract_detail(html, "https://norumors.net/rumors/561/", norumors,
                            SiteUrls(norumors.canonical_base, norumors.canonical_base), fetched_at=CAPTURED)
    assert (fields.published_date, fields.field_layers["published"]) == ("2017-03-05", "claim_review")


@pytest.mark.parametrize("depth", [100_000, 900])
def test_json_ld_nested_too_deep_is_skipped_and_the_claim_review_after_it_read(depth: int) -> None:
    # it was: a RecursionError (from the parser at 100,000 levels, from the walk over what it parsed at
    # 900) left the claim parser, and the fact-check page left no record
    deep = f'<script type="application/ld+json">{"[" * depth + "]" * depth}</script>'
    fields = extract_detail(page(head=deep + ld(CLAIM_REVIEW), body="<h1>عنوان</h1>"), PAGE, MISBAR, URLS)
    assert fields.claim_text == "مياه البحر تعالج الزكام" and fields.field_layers["claim"] == "claim_review"
    assert fields.published_date == "2017-03-05"
