"""Discovery without markup: sitemaps (index and urlset), RSS/Atom feeds, the WordPress REST API, and
the per-site order with the listing pages as the fallback. Parsers on documents we write; spiders
over real HTTP against the snapshot's WordPress endpoints."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from arastance.base.staging import DISK_FULL_LOG
from helpers_spiders import canonical_post_url, claims_of, crawl, server, snapshot_root, start_server, world  # noqa: F401 - server: a fixture
from snapshots.fact_check_sites import newest_first
from snapshots.server import SnapshotServer
from spiders.discovery import (DiscoveryError, parse_feed, parse_sitemap, parse_wp_rest, wp_rest_page_url,
                               wp_rest_total_pages)
from spiders.site_config import SiteConfigError, parse_site_config

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def test_a_sitemap_index_names_sitemaps_and_a_urlset_names_pages() -> None:
    index = parse_sitemap(f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc> https://a.com/s1.xml </loc>'
                          f'</sitemap></sitemapindex>'.encode())
    assert (index.sitemaps, index.pages) == (["https://a.com/s1.xml"], [])
    urlset = parse_sitemap(f'<urlset {NS}><url><loc>https://a.com/%d8%a8/</loc><lastmod>2014-01-02</lastmod></url>'
                           f'<url><loc>https://a.com/2/</loc></url></urlset>'.encode())
    assert urlset.pages == ["https://a.com/%d8%a8/", "https://a.com/2/"]
    with pytest.raises(DiscoveryError, match="not a sitemap"):
        parse_sitemap(b"<html><body>404</body></html>")



def _araanews_spider() -> Any:
    """The araanews spider of a crawl (its stats open), with no engine: its callbacks are called by hand."""
    from scrapy.utils.test import get_crawler

    from spiders.crawlers.sites import SPIDERS

    crawler = get_crawler(SPIDERS["araanews"], {"ARASTANCE_SITE_URLS": {"araanews": "https://araanews.ae/"}})
    spider = SPIDERS["araanews"].from_crawler(crawler)
    crawler.stats.open_spider()
    return spider


def _sitemap_index(*locs: str, host: str = "araanews.ae") -> bytes:
    return (f'<?xml version="1.0"?><sitemapindex {NS}>'
            + "".join(f"<sitemap><loc>https://{host}/{loc}</loc></sitemap>" for loc in locs)
            + "</sitemapindex>").encode()


def test_a_sitemap_that_an_index_lists_and_that_gives_nothing_does_not_move_discovery_on() -> None:
    # it was: the child inherited the index's discovery meta, so an empty or non-XML child started the next
    # discovery address and method (then the feed, the REST API, every listing page) although the index worked
    from scrapy.http import Request, XmlResponse

    spider = _araanews_spider()
    crawler = spider.crawler

    def answer(request: Request, body: bytes) -> list[Any]:
        return list(spider.parse_sitemap(XmlResponse(request.url, request=request, body=body)))

    index_url = "https://araanews.ae/wp-sitemap.xml"
    top = Request(index_url, meta={"discovery": 0, "candidate": 0})
    children = answer(top, _sitemap_index(*(f"wp-sitemap-posts-post-{n}.xml" for n in (1, 2, 3))))
    assert len(children) == 3
    post = b"<url><loc>https://araanews.ae/2015/03/post-a/</loc></url>"
    posts = answer(children[0], f"<urlset {NS}>".encode() + post + b"</urlset>")
    assert [r.url for r in posts] == ["https://araanews.ae/2015/03/post-a/"]
    assert answer(children[1], f'<?xml version="1.0"?><urlset {NS}></urlset>'.encode()) == []
    assert answer(children[2], b"<html><body>a cache's error page</body></html>") == []
    stats = crawler.stats.get_stats()
    assert stats["arastance/discovery/sitemap_child_failed"] == 2
    assert "arastance/discovery/sitemap_failed" not in stats
    # the top-level address that gives nothing still moves discovery on, to the next sitemap address
    assert [r.url for r in answer(top, b"<html></html>")] == ["https://araanews.ae/sitemap.xml"]
    assert crawler.stats.get_value("arastance/discovery/sitemap_failed") == 1


def test_a_sitemap_index_whose_every_sitemap_gives_nothing_moves_discovery_on_even_across_a_resume() -> None:
    # it was (4d5b5a4): a sitemap an index listed that gave nothing never moved discovery on, so an index whose
    # every sitemap was gzip'd (.xml.gz), a bot challenge page or an HTTP error left the crawl with no claim
    import pickle

    from scrapy.http import HtmlResponse, Request, XmlResponse
    from scrapy.spidermiddlewares.httperror import HttpError
    from twisted.python.failure import Failure

    def answer(spider: Any, request: Request, body: bytes) -> list[Any]:
        return list(spider.parse_sitemap(XmlResponse(request.url, request=request, body=body)))

    spider = _araanews_spider()
    top = Request("https://araanews.ae/wp-sitemap.xml", meta={"discovery": 0, "candidate": 0})
    gzipped, failing, nested = answer(spider, top, _sitemap_index("posts-1.xml.gz", "posts-2.xml", "more.xml"))
    assert answer(spider, gzipped, b"\x1f\x8b\x08\x00 not XML") == []
    # the crawl stops and resumes from its JOBDIR: Scrapy's SpiderState pickles the spider's state
    resumed = _araanews_spider()
    resumed.state = pickle.loads(pickle.dumps(spider.state))
    challenge, empty = answer(resumed, nested, _sitemap_index("posts-3.xml", "posts-4.xml"))
    failure = Failure(HttpError(HtmlResponse(failing.url, status=503, request=failing), "Ignoring non-200 response"))
    failure.request = failing  # as Scrapy hands it to an errback
    assert list(resumed.on_sitemap_child_error(failure)) == []
    assert answer(resumed, challenge, b"<html><body>Checking your browser</body></html>") == []
    moved_on = answer(resumed, empty, f'<?xml version="1.0"?><urlset {NS}></urlset>'.encode())
    assert [r.url for r in moved_on] == ["https://araanews.ae/sitemap.xml"], "the next sitemap address, then on"
    assert resumed.crawler.stats.get_value("arastance/discovery/sitemap_child_failed") == 3
    assert resumed.crawler.stats.get_value("arastance/discovery/sitemap_failed") == 1
    assert resumed.crawler.stats.get_value("arastance/failed/http_503") == 1, "the sitemap's HTTP error is a failed page"


def test_a_feed_naming_the_sites_posts_by_their_http_address_gives_them_all() -> None:
    # it was: the Reuters feed's http://ara.reuters.com/article/... links were off-site for the https base:
    # 0 posts from the feed
    from scrapy.http import Request, XmlResponse
    from scrapy.utils.test import get_crawler

    from spiders.crawlers.sites import SPIDERS

    crawler = get_crawler(SPIDERS["reuters"], {"ARASTANCE_SITE_URLS": {"reuters": "https://ara.reuters.com/"}})
    spider = SPIDERS["reuters"].from_crawler(crawler)
    crawler.stats.open_spider()
    links = ["http://ara.reuters.com/article/businessNews/idARAKBN0FE2AL20140709",
             "http://www.ara.reuters.com/article/sportsNews/idARAKBN0FE27O20140709",
             "http://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512?feedType=RSS&feedName=topNews",
             "http://other.example/article/x"]
    rss = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Reuters</title>'
           + "".join(f"<item><link>{escape(link)}</link></item>" for link in links) + "</channel></rss>")
    request = Request("https://ara.reuters.com/rss/topNews", meta={"discovery": 0, "candidate": 0})
    out = list(spider.parse_feed(XmlResponse(request.url, request=request, body=rss.encode())))
    assert [(r.url, r.callback.__name__) for r in out[:3]] == [
        ("https://ara.reuters.com/article/businessNews/idARAKBN0FE2AL20140709", "parse_detail"),
        ("https://ara.reuters.com/article/sportsNews/idARAKBN0FE27O20140709", "parse_detail"),
        # the feed's own tracking parameters (the real feed's links carry them) are no other page
        ("https://ara.reuters.com/article/topNews/idARAKCN0Y30Q620160512?feedType=RSS&feedName=topNews", "parse_detail")]
    assert [r.callback.__name__ for r in out[3:]] == ["parse_listing"], "then the listing, as after any feed"
    assert crawler.stats.get_value("arastance/discovery/feed") == 3


def test_rss_and_atom_feeds_give_their_post_links_in_order() -> None:
    rss = ('<?xml version="1.0"?><rss version="2.0"><channel><title>ت</title><item><title>أ</title>'
           '<link>https://a.com/1/</link></item><item><link> https://a.com/2/ </link></item></channel></rss>')
    assert parse_feed(rss.encode()) == ["https://a.com/1/", "https://a.com/2/"]
    atom = ('<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="https://a.com/x"/>'
            '<link rel="replies" href="https://a.com/x#c"/></entry><entry><link href="https://a.com/y"/></entry></feed>')
    assert parse_feed(atom.encode()) == ["https://a.com/x", "https://a.com/y"]
    with pytest.raises(DiscoveryError):
        parse_feed(b"<html><body>not a feed</body></html>")


def test_the_wordpress_rest_api_gives_each_posts_link() -> None:
    body = json.dumps([{"id": 1, "link": "https://a.com/p/1-x/"}, {"id": 2, "link": "https://a.com/p/2-y/"}])
    assert parse_wp_rest(body.encode()) == ["https://a.com/p/1-x/", "https://a.com/p/2-y/"]
    for bad in (b"<html></html>", b'{"code": "rest_no_route"}'):
        with pytest.raises(DiscoveryError):
            parse_wp_rest(bad)


#: The smallest site file, without a ``[discovery]`` table.
SITE = {"site": {"source_id": "x", "name": "X", "country": "", "veracity": "false", "canonical_base": "https://x/",
                 "start_paths": [""]}, "listing": {"detail_links": "a", "next_page": "a"},
        "detail": {"title": "h1", "claim": "p", "body": "p"}}


def test_a_discovery_order_naming_an_unknown_method_is_refused() -> None:
    data = {**SITE, "discovery": {"order": ["sitemap", "telepathy"]}}
    with pytest.raises(SiteConfigError, match=r"x.toml: discovery.order .*telepathy"):
        parse_site_config(data, "x.toml")


def test_the_rest_page_size_is_read_from_the_site_file_and_checked() -> None:
    assert parse_site_config(SITE, "x.toml").wp_rest_per_page == 100, "the largest page WordPress allows"
    assert parse_site_config({**SITE, "discovery": {"wp_rest_per_page": 20}}, "x.toml").wp_rest_per_page == 20
    for bad in (0, 101, "many", True, 2.5):
        with pytest.raises(SiteConfigError, match=r"x.toml: discovery.wp_rest_per_page must be .* 1 to 100"):
            parse_site_config({**SITE, "discovery": {"wp_rest_per_page": bad}}, "x.toml")


def test_the_next_rest_page_is_set_by_name_keeping_other_parameters() -> None:
    assert wp_rest_page_url("https://a.com/wp-json/wp/v2/posts", 1, 100) == "https://a.com/wp-json/wp/v2/posts?per_page=100&page=1"
    assert wp_rest_page_url("https://a.com/p?categories=5&per_page=3&page=3", 4) == "https://a.com/p?categories=5&per_page=3&page=4"


def test_the_rest_page_count_is_read_from_either_header_and_a_garbled_one_is_no_count() -> None:
    assert wp_rest_total_pages(b"3", b"41", 20) == 3, "X-WP-TotalPages first"
    assert wp_rest_total_pages(None, b"41", 20) == 3 and wp_rest_total_pages(b"", b" 40 ", 20) == 2
    assert wp_rest_total_pages(b"No space left on device", b"41", 20) == 3
    for garbled in (None, b"", b"-1", b"2.5", b"3 pages", "\u0663".encode(), b"\xff"):
        assert wp_rest_total_pages(garbled, garbled, 20) is None, garbled


@pytest.mark.slow
@pytest.mark.parametrize("method", ["sitemap", "wp_rest", "sitemap,feed,wp_rest,listing"])
def test_each_complete_method_finds_every_post_without_the_listing(method: str, server: SnapshotServer,
                                                                   tmp_path: Path) -> None:
    result = crawl("dabegad", tmp_path / "data", server, spider_args={"discovery": method})
    posts = world().posts_of("dabegad")
    assert sorted(c["url"] for c in claims_of(result)) == sorted(canonical_post_url(p) for p in posts)
    stats = result.summary["stats"]
    first = method.split(",")[0]
    assert stats[f"arastance/discovery/{first}"] == len(posts)
    assert "arastance/listing_pages" not in stats, "a complete method ends discovery"


@pytest.mark.slow
def test_a_crawl_whose_sitemap_index_lists_only_sitemaps_that_give_nothing_finds_the_posts_another_way(
        tmp_path: Path) -> None:
    # it was (4d5b5a4): the index's sitemaps served gzip'd (.xml.gz), a 404 and one listed twice (Scrapy drops
    # the second request) kept discovery with the index: "failed: no claims found"
    web = tmp_path / "web"
    shutil.copytree(snapshot_root(), web)
    site = web / "dabegad"
    child = site / "wp-sitemap-posts-post-1.xml"
    (site / "wp-sitemap-posts-post-1.xml.gz").write_bytes(gzip.compress(child.read_bytes()))
    child.unlink()
    (site / "wp-sitemap.xml").write_bytes(_sitemap_index("wp-sitemap-posts-post-1.xml.gz", "nested.xml", host="dabegad.com"))
    (site / "nested.xml").write_bytes(_sitemap_index("wp-sitemap-posts-post-1.xml.gz", "gone.xml", host="dabegad.com"))
    with SnapshotServer(web) as srv:
        result = crawl("dabegad", tmp_path / "data", srv, spider_args={"discovery": "sitemap,listing"})
    assert sorted(c["url"] for c in claims_of(result)) == sorted(canonical_post_url(p) for p in world().posts_of("dabegad"))
    stats = result.summary["stats"]
    assert stats["arastance/discovery/sitemap_child_failed"] == 2, "the .xml.gz once (dropped the second time), the 404"
    assert stats["arastance/discovery/sitemap_failed"] == 2 and stats["arastance/listing_pages"] > 0


@pytest.mark.slow
def test_the_rest_api_is_read_page_by_page_up_to_its_last_page(server: SnapshotServer, tmp_path: Path) -> None:
    """With 20 posts a page the REST API needs several pages: each is asked for once, in order, and
    the crawl stops at ``X-WP-TotalPages`` (a page past it would be WordPress' HTTP 400)."""
    posts = world().posts_of("dabegad")
    pages = -(-len(posts) // 20)
    assert pages >= 3, "the snapshot must hold enough posts to need several REST pages"
    seen = len(server.requests)
    result = crawl("dabegad", tmp_path / "data", server, spider_args={"discovery": "wp_rest", "wp_rest_per_page": "20"})
    assert sorted(c["url"] for c in claims_of(result)) == sorted(canonical_post_url(p) for p in posts)
    rest = [r for r in server.requests[seen:] if r.path.endswith("/wp-json/wp/v2/posts")]
    assert [(r.query, r.status) for r in rest] == [(f"per_page=20&page={n}", 200) for n in range(1, pages + 1)]
    stats = result.summary["stats"]
    assert stats["arastance/discovery/wp_rest"] == len(posts) and result.summary["errors"] == 0
    assert "arastance/listing_pages" not in stats


#: Hostile or broken REST answers: (X-WP-TotalPages, X-WP-Total, server ignores ``page``, full last page).
REST_ANSWERS = {
    "not a number": ("No space left on device", "many", False, False),
    "quoting the spider's disk-full line, last page full": (DISK_FULL_LOG, "", False, True),
    "zero pages on a page of posts": ("0", "", False, False),
    "no count, page ignored": ("", "", True, False),
    "a huge count, page ignored": ("1000000", "", True, False),
}


@pytest.mark.slow
@pytest.mark.parametrize("answer", REST_ANSWERS)
def test_a_rest_api_without_a_believable_page_count_is_read_while_its_pages_are_full_and_new(
        answer: str, tmp_path: Path) -> None:
    # it was: int() of the header raised in the callback, so the crawl lost every page after the first, and a
    # header quoting a full disk's words stopped the crawl as if its disk were full, removing its staging run;
    # then (review) a server ignoring `page` was read until the time-out, a full last page gave a failed page
    # (WordPress' 400 past the end), and a count of 0 on a page of posts ended the paging at once.
    # The warning quotes the header in the log, which must not make the run look abandoned (test_unloaded_runs)
    total_pages, total, pages_ignored, full_last_page = REST_ANSWERS[answer]
    posts = world().posts_of("dabegad")
    per_page = next(n for n in range(20, 1, -1) if len(posts) % n == 0) if full_last_page else 20
    assert (len(posts) % per_page == 0) == full_last_page
    pages = -(-len(posts) // per_page)
    srv = start_server()
    srv.faults["/dabegad/wp-json/wp/v2/posts"] = {"headers": {"X-WP-TotalPages": total_pages, "X-WP-Total": total},
                                                  "pages_ignored": pages_ignored}
    try:
        result = crawl("dabegad", tmp_path / "data", srv,
                       spider_args={"discovery": "wp_rest", "wp_rest_per_page": str(per_page)})
    finally:
        srv.stop()
    asked = [r.query for r in srv.requests if r.path.endswith("/wp-json/wp/v2/posts")]
    stats = result.summary["stats"]
    claims = sorted(c["url"] for c in claims_of(result))
    if pages_ignored:  # page 2 repeats page 1: the paging ends there
        assert asked == [f"per_page={per_page}&page={n}" for n in (1, 2)] and len(claims) == per_page
        assert stats["arastance/discovery/wp_rest_repeated_page"] == 1
    else:
        assert claims == sorted(canonical_post_url(p) for p in posts)
        assert asked == [f"per_page={per_page}&page={n}" for n in range(1, pages + 1 + full_last_page)]
        assert stats.get("arastance/discovery/wp_rest_past_the_end", 0) == full_last_page, "the end, not a failure"
    assert result.summary["errors"] == 0 and stats["arastance/discovery/wp_rest"] == len(claims)
    believable = total_pages.isdigit() and int(total_pages) > 0
    assert ("WordPress REST page count missing or not believable" in result.log_file.read_text(encoding="utf-8")) \
        == (not believable)


def test_a_crawl_resumed_from_its_jobdir_still_knows_the_rest_links_of_the_pages_before_its_stop(tmp_path: Path) -> None:
    # it was: the links lived in the spider object only, so a crawl stopped with page 2 in its queue and resumed took
    # page 2's repeats (a server that ignores `page`) for new posts and asked for page 3. Scrapy's own SpiderState
    # extension saves and restores the state, as it does in a crawl with a JOBDIR.
    from scrapy.extensions.spiderstate import SpiderState
    from scrapy.http import Request, TextResponse
    from scrapy.utils.test import get_crawler

    from spiders.crawlers.sites import SPIDERS

    posts = [canonical_post_url(post) for post in world().posts_of("dabegad")[:3]]
    api = "http://127.0.0.1:9/dabegad/wp-json/wp/v2/posts"

    def session() -> tuple[Any, SpiderState]:
        crawler = get_crawler(SPIDERS["dabegad"], {"JOBDIR": str(tmp_path / "job")})
        crawler._apply_settings()
        spider = SPIDERS["dabegad"].from_crawler(crawler, base_url="http://127.0.0.1:9/dabegad/",
                                                 discovery="wp_rest", wp_rest_per_page="3")
        crawler.spider = spider
        state = SpiderState.from_crawler(crawler)
        state.spider_opened(spider)
        return spider, state

    def page(spider: Any, number: int) -> list[Any]:
        url = f"{api}?per_page=3&page={number}"
        response = TextResponse(url, body=json.dumps([{"link": link} for link in posts]).encode(),
                                headers={"X-WP-TotalPages": "5"}, request=Request(url, meta={"rest_page": number}))
        return list(spider.parse_wp_rest(response))

    first, state = session()
    asked = page(first, 1)
    assert [r.url for r in asked if r.callback == first.parse_wp_rest] == [f"{api}?per_page=3&page=2"]
    assert len([r for r in asked if r.callback == first.parse_detail]) == len(posts) == 3
    state.spider_closed(first)  # the graceful stop, with page 2 still queued in the JOBDIR
    resumed, _ = session()
    assert page(resumed, 2) == [], "page 2 repeats page 1: no post is new and no page 3 is asked for"
    assert resumed.crawler.stats.get_value("arastance/discovery/wp_rest_repeated_page") == 1


@pytest.mark.slow
def test_a_feed_gives_the_newest_posts_and_missing_endpoints_fall_through_to_the_listing(
    server: SnapshotServer, tmp_path: Path
) -> None:
    feed_only = crawl("dabegad", tmp_path / "feed", server, spider_args={"discovery": "feed"})
    newest = newest_first(world().posts_of("dabegad"))[:10]
    assert sorted(c["url"] for c in claims_of(feed_only)) == sorted(canonical_post_url(p) for p in newest)
    # Araanews' configured order: no sitemap (404), the feed (10 newest), no REST API (404), the listing.
    result = crawl("araanews", tmp_path / "araanews", server, spider_args={})
    stats = result.summary["stats"]
    assert stats["arastance/discovery/sitemap_failed"] == 2 and stats["arastance/discovery/wp_rest_failed"] == 1
    assert stats["arastance/discovery/feed"] == 10 and stats["arastance/listing_pages"] >= 6
    assert len(claims_of(result)) == len(world().posts_of("araanews")), "feed and listing links are fetched once"
    assert result.summary["errors"] == 3, "a missing discovery address is not a failed page"
