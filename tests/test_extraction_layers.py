"""Layered extraction: ClaimReview, Article JSON-LD, OpenGraph, <time datetime>, then the site's
selectors as overrides; each claim records which layer gave each field."""

from __future__ import annotations

import json

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
