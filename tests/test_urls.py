"""URL canonicalisation: every spelling of one page meets on one key; different pages stay apart."""

import pytest

from arastance.base.sites import load_site_config
from arastance.base.urls import UrlError, canonicalize_url, domain_of


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # tracking parameters removed, the rest sorted
        ("https://example.com/a?utm_source=fb&utm_medium=social&id=3", "https://example.com/a?id=3"),
        ("https://example.com/a?fbclid=IwAR0&gclid=xyz&msclkid=1", "https://example.com/a"),
        ("https://example.com/a?b=2&a=1&_ga=123", "https://example.com/a?a=1&b=2"),
        ("https://example.com/news?outputType=amp&p=1", "https://example.com/news?p=1"),
        ("http://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512?feedType=RSS&feedName=topNews",
         "http://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512"),
        # mobile, AMP and www hosts folded
        ("https://m.example.com/2016/05/x/", "https://example.com/2016/05/x"),
        ("https://mobile.example.com/x", "https://example.com/x"),
        ("https://amp.example.com/x", "https://example.com/x"),
        ("https://www.example.com/x", "https://example.com/x"),
        # /amp suffix and AMP cache addresses
        ("https://example.com/2016/05/x/amp/", "https://example.com/2016/05/x"),
        ("https://example.com/2016/05/x/amp", "https://example.com/2016/05/x"),
        ("https://www-example-com.cdn.ampproject.org/c/s/www.example.com/2016/x/", "https://example.com/2016/x"),
        ("https://www.google.com/amp/s/example.com/2016/x", "https://example.com/2016/x"),
        # trailing slashes, default documents, doubled slashes
        ("https://example.com/a/b/", "https://example.com/a/b"),
        ("https://example.com/a//b/index.html", "https://example.com/a/b"),
        ("https://example.com", "https://example.com/"),
        # default ports dropped, others kept
        ("HTTPS://Example.COM:443/x", "https://example.com/x"),
        ("http://example.com:80/x", "http://example.com/x"),
        ("http://127.0.0.1:8123/araanews/2016/05/x/", "http://127.0.0.1:8123/araanews/2016/05/x"),
        # fragments dropped
        ("https://example.com/x#comments", "https://example.com/x"),
        # Arabic slugs: raw and percent-encoded spellings agree; encoded slashes stay encoded
        ("https://example.com/حقيقة-الخبر", "https://example.com/%D8%AD%D9%82%D9%8A%D9%82%D8%A9-%D8%A7%D9%84%D8%AE%D8%A8%D8%B1"),
        ("https://example.com/a%2Fb", "https://example.com/a%2Fb"),
    ],
)
def test_canonicalize_url(url: str, expected: str) -> None:
    assert canonicalize_url(url) == expected


def test_spellings_of_one_page_share_a_key() -> None:
    spellings = [
        "https://www.example.com/2016/05/%D8%AD%D9%82%D9%8A%D9%82%D8%A9/?utm_campaign=x#top",
        "https://m.example.com/2016/05/حقيقة",
        "https://example.com/2016/05/حقيقة/amp/",
        "https://example.com:443/2016/05/%d8%ad%d9%82%d9%8a%d9%82%d8%a9",
    ]
    assert len({canonicalize_url(u) for u in spellings}) == 1


def test_distinct_pages_stay_distinct() -> None:
    assert canonicalize_url("https://example.com/a?id=1") != canonicalize_url("https://example.com/a?id=2")
    assert canonicalize_url("http://example.com:8080/a") != canonicalize_url("http://example.com/a")
    assert canonicalize_url("https://news.example.com/a") != canonicalize_url("https://example.com/a")


def test_slugs_that_are_not_utf8_keep_their_bytes_and_stay_distinct() -> None:
    # it was: every windows-1256 byte decoded to U+FFFD, so two slugs of one length were one URL (one claim id)
    first = canonicalize_url("http://ara.example.com/news/%C7%E1%CE%C8%D1-1")
    second = canonicalize_url("http://ara.example.com/news/%D4%C7%C6%DA%C9-1")
    assert first == "http://ara.example.com/news/%C7%E1%CE%C8%D1-1"
    assert second == "http://ara.example.com/news/%D4%C7%C6%DA%C9-1"
    # only the escapes' case is made uniform; a stray % and raw characters are escaped as in a UTF-8 slug
    assert canonicalize_url("http://ara.example.com/news/%c7%e1%ce%c8%d1-1/") == first
    assert canonicalize_url("http://ara.example.com/%C7 خبر%zz") == "http://ara.example.com/%C7%20%D8%AE%D8%A8%D8%B1%25zz"


def test_query_values_that_are_not_utf8_keep_their_bytes_and_stay_distinct() -> None:
    # it was: as slugs, each windows-1256 byte became U+FFFD (%EF%BF%BD): two values of one length, one URL
    first = canonicalize_url("http://ara.example.com/news.php?id=%C7%E1%CE%C8%D1&utm_source=fb")
    assert first == "http://ara.example.com/news.php?id=%C7%E1%CE%C8%D1"
    assert canonicalize_url("http://ara.example.com/news.php?id=%d4%c7%c6%da%c9") == "http://ara.example.com/news.php?id=%D4%C7%C6%DA%C9"
    # beside raw Arabic, each kept as it came (it was U+FFFD there too)
    assert canonicalize_url("http://ara.example.com/p?q=صحة%cc") == "http://ara.example.com/p?q=%D8%B5%D8%AD%D8%A9%CC"
    # UTF-8 values, escaped or not, give what they gave before
    assert canonicalize_url("https://example.com/s?b=2&q=الصحة&a=1") == \
        "https://example.com/s?a=1&b=2&q=%D8%A7%D9%84%D8%B5%D8%AD%D8%A9"


def test_utf8_slugs_keep_the_canonical_urls_already_stored() -> None:
    # claim ids derive from these: a UTF-8 slug, however spelled, must give what it gave before
    stored = "https://example.com/%D8%B4%D8%A7%D8%A6%D8%B9%D8%A9/100%25-%D8%B5%D8%AD%D9%8A%D8%AD"
    for spelling in ("https://example.com/شائعة/100%-صحيح/", "https://example.com/%d8%b4%d8%a7%d8%a6%d8%b9%d8%a9/100%25-صحيح"):
        assert canonicalize_url(spelling) == stored


@pytest.mark.parametrize("url", ["/relative/path", "ftp://example.com/x", "https://", "not a url", "http://[::1/x",
                                 "https://a.example/ok?x=1\nhttps://b.example/other", "https://a.example/\x00x"])
def test_bad_urls_name_the_input(url: str) -> None:
    with pytest.raises(UrlError, match="URL"):
        canonicalize_url(url)


@pytest.mark.parametrize("url", ["https://news.example/a\u2028https://other.example/b",
                                 "https://news.example/خبر\u0085تفاصيل", "https://news.example/a\u2029b",
                                 "https://news.example/a\x0bb", "https://news.example/a\x1cb"])
def test_a_url_holding_a_line_separator_is_refused_naming_it(url: str) -> None:
    # it was: U+2028, U+0085 and U+2029 passed, and a reader of lines (str.splitlines) cut the URL in two
    with pytest.raises(UrlError, match="line separator") as refused:
        canonicalize_url(url)
    assert repr(url) in str(refused.value)


@pytest.mark.parametrize("url", ["https://www.google.com/amp/s/", "https://example-com.cdn.ampproject.org/c/s/",
                                 "http://www.google.com/amp//"])
def test_an_amp_address_wrapping_no_page_is_refused_naming_it(url: str) -> None:
    # it was: "https:///", which is no URL, as the canonical key
    with pytest.raises(UrlError, match="AMP address without") as refused:
        canonicalize_url(url)
    assert repr(url) in str(refused.value)


@pytest.mark.parametrize(("url", "expected"), [
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ("https://[2001:DB8::1]:443/news/1/", "https://[2001:db8::1]/news/1"),
    ("https://www.google.com/amp/s/example.com:8443/x", "https://example.com:8443/x"),  # a port is no IPv6 address
])
def test_an_ipv6_host_keeps_its_brackets(url: str, expected: str) -> None:
    # it was: "http://::1:8080/x", which no URL parser reads back
    assert canonicalize_url(url) == expected
    assert canonicalize_url(expected) == expected


def test_idn_hosts_keep_their_stored_keys() -> None:
    # stored claim ids derive from these: an IDN host and its punycode stay as they were keyed
    assert canonicalize_url("https://مثال.com/خبر") == "https://مثال.com/%D8%AE%D8%A8%D8%B1"
    assert canonicalize_url("https://xn--mgbh0fb.com/خبر") == "https://xn--mgbh0fb.com/%D8%AE%D8%A8%D8%B1"


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://www.Aljazeera.net/news/x", "aljazeera.net"),
        ("https://m.youm7.com/story/1", "youm7.com"),
        ("https://arabic.cnn.com/x", "arabic.cnn.com"),
        ("http://127.0.0.1:8000/mirror/x", "127.0.0.1"),
    ],
)
def test_domain_of(url: str, domain: str) -> None:
    assert domain_of(url) == domain


def test_a_reuters_rss_link_is_a_claim_url_of_the_page_it_names() -> None:
    # it was: the feed's tracking parameters stayed in the key, so the Reuters pattern (a bare article
    # path) refused every link of its RSS feed and every archive capture of one
    reuters = load_site_config("reuters")
    link = "https://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512?feedType=RSS&feedName=topNews"
    assert reuters.is_claim_url(canonicalize_url(link))
    assert canonicalize_url(link) == canonicalize_url("https://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512")
