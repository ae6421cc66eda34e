"""Field extraction from every rendered page of the world, compared with the world's own data."""

from __future__ import annotations

import pytest
from parsel import Selector

from helpers_spiders import canonical_post_url, collapse, world
from snapshots.build import BROKEN_HTML
from snapshots.fact_check_sites import (
    CANONICAL_BASE,
    SITE_NAMES,
    THEMES,
    category_label,
    has_broken_json_ld,
    has_claim_review,
    has_unclosed_markup,
    hides_category,
    listing_entry,
    newest_first,
    uses_levantine_months,
)
from snapshots.reuters_site import _detail as reuters_detail
from spiders.extraction import ExtractionError, extract_detail, extract_listing
from spiders.layers import claim_review_fields
from spiders.site_config import SiteConfigError, load_site_config, parse_site_config
from spiders.site_urls import SiteUrls
from arastance.base.captures import to_site_url
from arastance.base.urls import canonicalize_url

FACT_CHECK_SITES = ("araanews", "dabegad", "norumors")
AUTHORS = {"araanews": SITE_NAMES["araanews"], "norumors": "هيئة مكافحة الشائعات"}


def site_urls(site: str) -> SiteUrls:
    return SiteUrls(f"http://127.0.0.1:9/{site}/", load_site_config(site).canonical_base)


def expected_fields(post) -> dict:
    review = None
    if has_claim_review(post) and not has_broken_json_ld(post):
        review = {"claim_reviewed": collapse(post.claim_text), "rating": "شائعة", "author": AUTHORS[post.site]}
    return {
        "url": canonical_post_url(post),
        "title": collapse(post.title),
        "claim_text": collapse(post.claim_text),
        "body_text": "\n".join(collapse(p) for p in post.body if p.strip()),
        "published_date": post.published.isoformat() if post.published else None,
        "category": None if hides_category(post) else category_label(post.category),
        "is_multimedia": post.multimedia,
        "claim_review": review,
    }


@pytest.mark.parametrize("site", FACT_CHECK_SITES)
def test_every_post_page_gives_the_worlds_fields(site: str) -> None:
    config, urls = load_site_config(site), site_urls(site)
    posts = world().posts_of(site)
    assert len(posts) >= 40
    for post in posts:
        html = THEMES[site].detail(post, f"/{site}")
        fields = extract_detail(html, urls.absolute(post.path.lstrip("/")), config, urls)
        got = {k: getattr(fields, k) for k in expected_fields(post)}
        assert got == expected_fields(post), post.post_id
        assert (fields.published_raw is None) == (post.published is None)


def test_the_quirks_are_present_in_the_world() -> None:
    posts = [p for site in FACT_CHECK_SITES for p in world().posts_of(site)]
    assert any(p.multimedia for p in posts)
    assert any(p.published is None for p in posts)
    assert any(p.claim_text == "" for p in posts)
    assert any(p.repost_of for p in posts)
    for quirk in (has_unclosed_markup, uses_levantine_months, hides_category, has_broken_json_ld):
        assert any(quirk(p) for p in posts), quirk.__name__
    rumour_sites: dict[str, set[str]] = {}
    for p in posts:
        rumour_sites.setdefault(p.rumour_id, set()).add(p.site)
    assert any(len(s) > 1 for s in rumour_sites.values()), "some rumour is debunked on two sites"


def test_dates_are_printed_the_way_each_site_prints_them() -> None:
    config = load_site_config("norumors")
    post = next(p for p in world().posts_of("norumors") if p.published)
    fields = extract_detail(THEMES["norumors"].detail(post, "/norumors"), "http://127.0.0.1:9/norumors/x/",
                            config, site_urls("norumors"))
    assert fields.published_raw.endswith("هـ") and any("٠" <= c <= "٩" for c in fields.published_raw)
    post = next(p for p in world().posts_of("araanews") if p.published and uses_levantine_months(p))
    fields = extract_detail(THEMES["araanews"].detail(post, "/araanews"), "http://127.0.0.1:9/araanews/x/",
                            load_site_config("araanews"), site_urls("araanews"))
    assert any("٠" <= c <= "٩" for c in fields.published_raw)
    assert fields.published_date == post.published.isoformat()


def test_every_reuters_page_gives_the_headline() -> None:
    config, urls = load_site_config("reuters"), site_urls("reuters")
    headlines = world().headlines
    assert len(headlines) >= 200
    assert {h.published.year for h in headlines} >= set(range(2012, 2019))
    for h in headlines:
        fields = extract_detail(reuters_detail(h, "/reuters"), urls.absolute(h.path.lstrip("/")), config, urls)
        assert fields.url == canonicalize_url(CANONICAL_BASE["reuters"] + h.path.lstrip("/"))
        assert fields.title == fields.claim_text == collapse(h.title)
        assert fields.body_text == "\n".join(collapse(p) for p in h.body)
        assert fields.published_date == h.published.date().isoformat()
        assert fields.category == category_label(h.category)
        assert fields.is_multimedia is False and fields.claim_review is None


@pytest.mark.parametrize("site", [*FACT_CHECK_SITES, "reuters"])
def test_a_broken_error_page_fails_naming_the_missing_field(site: str) -> None:
    with pytest.raises(ExtractionError, match="title"):
        extract_detail(BROKEN_HTML, f"http://127.0.0.1:9/{site}/x/", load_site_config(site), site_urls(site))


@pytest.mark.parametrize("site", FACT_CHECK_SITES)
def test_listing_pages_give_the_newest_posts_and_the_next_page(site: str) -> None:
    config, urls = load_site_config(site), site_urls(site)
    posts = newest_first(world().posts_of(site))
    theme = THEMES[site]
    html = theme.listing([listing_entry(p) for p in posts[:10]], 1, 3, f"/{site}")
    listing = extract_listing(html, urls.absolute(theme.listing_base.lstrip("/")), config, urls)
    assert [urls.canonical(u) for u in listing.detail_urls] == [canonical_post_url(p) for p in posts[:10]]
    assert listing.next_url == urls.absolute(theme.page_path(theme.listing_base, 2).lstrip("/"))
    last = theme.listing([listing_entry(p) for p in posts[20:25]], 3, 3, f"/{site}")
    assert extract_listing(last, urls.absolute("x/"), config, urls).next_url is None


def _json_ld(*blocks: str) -> Selector:
    return Selector(text="<html><head>" + "".join(f'<script type="application/ld+json">{b}</script>' for b in blocks)
                    + "</head><body></body></html>")


def test_claim_review_is_found_in_lists_and_graphs_and_bad_json_is_skipped() -> None:
    review = '{"@type": "ClaimReview", "claimReviewed": " ادعاء  ما ", "reviewRating": {"ratingValue": 1}, "author": "فريق"}'
    assert claim_review_fields(_json_ld("{not json", f'{{"@graph": [{{"@type": "WebPage"}}, {review}]}}')) == {
        "claim": "ادعاء ما", "verdict": "1", "author": "فريق"}
    assert claim_review_fields(_json_ld(f"[{review}]"))["author"] == "فريق"
    assert claim_review_fields(_json_ld('{"@type": "NewsArticle"}')) == {}


def test_site_urls_key_snapshot_pages_by_the_real_site() -> None:
    urls = SiteUrls("http://127.0.0.1:8800/dabegad/", "https://dabegad.com/")
    assert urls.canonical("http://127.0.0.1:8800/dabegad/health/3401-x/?utm_source=fb") == "https://dabegad.com/health/3401-x"
    assert urls.canonical("https://www.dabegad.com/health/3401-x/") == "https://dabegad.com/health/3401-x"
    assert urls.canonical("http://www.dabegad.com/health/3401-x/") == "https://dabegad.com/health/3401-x"
    assert urls.canonical("http://www.elsewhere.example/health/3401-x/") == "http://elsewhere.example/health/3401-x"
    assert not urls.on_site("http://127.0.0.1:8800/norumors/rumors/1/")
    with pytest.raises(ValueError, match="base_url"):
        SiteUrls("http://127.0.0.1:8800/dabegad", "https://dabegad.com/")


def test_the_sites_own_links_in_any_scheme_or_www_spelling_are_on_site_and_fetched_one_way() -> None:
    # it was: on_site was a prefix test, so http://norumors.net/... and https://www.norumors.net/... links
    # (and every link of a page redirected to www.) were dropped as off-site
    urls = SiteUrls("https://norumors.net/", "https://norumors.net/")
    for spelling in ("http://norumors.net/rumors/561/", "https://www.norumors.net/rumors/561/",
                     "http://WWW.norumors.net/rumors/561/#comments"):
        assert urls.on_site(spelling) and urls.fetchable(spelling) == "https://norumors.net/rumors/561/", spelling
    assert urls.fetchable("http://norumors.net/?page=2") == "https://norumors.net/?page=2"
    for elsewhere in ("https://other.example/rumors/561/", "https://norumors.net.example/x", "ftp://norumors.net/x",
                      "https://norumors.net:8443/x", "mailto:a@norumors.net", "http://[::1/"):
        assert not urls.on_site(elsewhere) and urls.fetchable(elsewhere) == elsewhere, elsewhere
    snapshot = SiteUrls("http://127.0.0.1:8800/norumors/", "https://norumors.net/")
    assert snapshot.on_site("http://127.0.0.1:8800/norumors/rumors/1/")
    assert not snapshot.on_site("http://127.0.0.1:8800/dabegad/rumors/1/")
    assert not snapshot.on_site("http://127.0.0.1:8801/norumors/rumors/1/"), "another port is another server"
    assert snapshot.fetchable("http://www.norumors.net/rumors/1/") == "http://127.0.0.1:8800/norumors/rumors/1/"
    assert snapshot.canonical("http://127.0.0.1:8800/norumors/rumors/1/?utm_source=x") == "https://norumors.net/rumors/1"


def test_a_listing_gives_its_sites_links_whatever_their_spelling_and_wherever_it_was_fetched() -> None:
    config = load_site_config("norumors")
    urls = SiteUrls(config.canonical_base, config.canonical_base)
    home = ('<div class="rumor__meta"><h2><a href="http://norumors.net/rumors/561/">أ</a></h2></div>'
            '<div class="rumor__meta"><h2><a href="https://www.norumors.net/rumors/562/">ب</a></h2></div>'
            '<div class="rumor__meta"><h2><a href="/rumors/563/">ج</a></h2></div>'
            '<div class="rumor__meta"><h2><a href="https://other.example/rumors/564/">د</a></h2></div>'
            '<a class="pagination__next" href="http://www.norumors.net/?page=2">التالي</a>')
    expected = [f"https://norumors.net/rumors/{n}/" for n in (561, 562, 563)]
    for fetched_at in ("https://norumors.net/", "https://www.norumors.net/"):  # the second: after a redirect to www.
        listing = extract_listing(home, fetched_at, config, urls)
        assert (listing.detail_urls, listing.next_url) == (expected, "https://norumors.net/?page=2"), fetched_at
    assert extract_listing(home, "http://norumors.net/?page=2", config, urls).next_url is None, "itself, spelled otherwise"


def test_a_norumors_claim_page_never_takes_a_related_rumours_title_category_or_date() -> None:
    # it was: the home page's card markup (div.rumor__meta h2 / ul li) was a [detail] selector, so a claim
    # page without h1.rumor__title took the title and category of the first related rumour
    config = load_site_config("norumors")
    urls = SiteUrls(config.canonical_base, config.canonical_base)
    related = ('<aside class="related"><div class="rumor"><div class="rumor__meta"><h2><a href="/rumors/9/">توزيع جوائز'
               '</a></h2><span class="rumor__date">12 رمضان 1437 هـ</span><ul><li>اقتصاد</li></ul></div></div></aside>')
    html = ('<html><head><meta property="og:title" content="حقيقة صورة السيل في جدة"></head><body>'
            '<section class="rumor"><h1 class="rumor-single__title">حقيقة صورة السيل في جدة</h1>'
            f'<div class="rumor__text"><p>صورة لسيل في جدة اليوم</p></div></section>{related}</body></html>')
    fields = extract_detail(html, "https://norumors.net/rumors/561/", config, urls)
    assert (fields.title, fields.field_layers["title"]) == ("حقيقة صورة السيل في جدة", "open_graph")
    assert (fields.category, fields.published_raw) == (None, None)
    own_meta = ('<div class="rumor__meta"><span class="rumor__date">1 شعبان 1437</span>'
                '<ul class="rumor__categories"><li>صحة</li></ul></div>')
    with_meta = html.replace('<div class="rumor__text">', own_meta + '<div class="rumor__text">')
    fields = extract_detail(with_meta, "https://norumors.net/rumors/561/", config, urls)
    assert (fields.category, fields.published_date) == ("صحة", "2016-05-08"), "the page's own meta block still counts"


def _rumour_page(canonical_href: str) -> str:
    return f"""<html><head><link rel="canonical" href="{canonical_href}"></head><body>
<h1 class="rumor__title">انقطاع الكهرباء عن حي النخيل ثلاثة أيام</h1>
<div class="rumor__text"><p>الكهرباء ستنقطع عن حي النخيل ثلاثة أيام متتالية</p></div>
<div class="rumor__truth"><p>نفت الشركة الخبر وقالت إن الصيانة تستغرق ساعتين فقط.</p></div></body></html>"""


def test_a_post_read_live_and_from_an_old_capture_naming_its_http_address_is_one_claim() -> None:
    # it was: the capture's own <link rel=canonical> kept http://, so one post gave two claim ids
    config = load_site_config("norumors")
    urls = SiteUrls(config.canonical_base, config.canonical_base)  # the archive crawl's
    live = extract_detail(_rumour_page("https://norumors.net/rumors/742/"), "https://norumors.net/rumors/742/",
                          config, urls)
    original = "http://www.norumors.net/rumors/742/"
    archived = extract_detail(_rumour_page(original), to_site_url(original, config.canonical_base), config, urls)
    assert live.url == archived.url == "https://norumors.net/rumors/742"
    # a canonical link naming another site is that site's address, left as it is
    elsewhere = extract_detail(_rumour_page("http://www.other-news.example/a/742/"),
                               "https://norumors.net/rumors/742/", config, urls)
    assert elsewhere.url == "http://other-news.example/a/742"


def test_a_bad_site_configuration_names_the_file_and_key() -> None:
    with pytest.raises(SiteConfigError, match=r"x\.toml: missing key 'listing'"):
        parse_site_config({"site": {}, "detail": {}}, "x.toml")
    good = {"site": {"source_id": "s", "name": "S", "country": "EG", "veracity": "maybe", "canonical_base": "https://s/",
                     "start_paths": [""]},
            "listing": {"detail_links": "a::attr(href)", "next_page": "a.next::attr(href)"},
            "detail": {"title": "h1", "claim": "p", "body": "p"}}
    with pytest.raises(SiteConfigError, match="veracity"):
        parse_site_config(good, "s.toml")
    with pytest.raises(SiteConfigError, match="known sites"):
        load_site_config("no_such_site")
