"""News pages of the offline mirror: one parseable Arabic page per article, per-domain markup."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from snapshots.news_sites import LAYOUTS, SYNTHETIC_NOTE, page_file, render_article, render_news_sites
from snapshots.world import build_world
from snapshots.world.domains import DOMAINS
from snapshots.world.model import NewsArticle

from helpers_world import one_article_per_domain, visible_text


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    out = tmp_path_factory.mktemp("mirror-root")
    return out, render_news_sites(build_world(), out)


def test_every_article_is_written_where_the_mirror_maps_its_url(mirror: tuple[Path, int]) -> None:
    out, written = mirror
    world = build_world()
    assert written == len(world.articles)
    files = list((out / "mirror").rglob("*.html"))
    assert len(files) == written
    article = world.articles[0]
    expected = out / "mirror" / article.domain / article.path.lstrip("/")
    if article.path.endswith("/"):
        expected = expected / "index.html"
    assert page_file(out, article) == expected and expected.is_file()


def test_pages_parse_and_hold_the_story_and_the_synthetic_note(mirror: tuple[Path, int]) -> None:
    out, _ = mirror
    for article in build_world().articles[::7]:
        soup = BeautifulSoup(page_file(out, article).read_text(encoding="utf-8"), "lxml")
        assert soup.html["lang"] == "ar" and soup.html["dir"] == "rtl"
        text = visible_text(soup)
        assert article.title in text
        for paragraph in article.body:
            assert paragraph in text
        assert SYNTHETIC_NOTE in text
        assert soup.find("link", rel="canonical")["href"] == article.url


@pytest.mark.parametrize("article", one_article_per_domain(), ids=lambda a: a.domain)
def test_the_story_is_only_part_of_the_page(article: NewsArticle) -> None:
    soup = BeautifulSoup(render_article(article, build_world().articles[:3]), "lxml")
    story = sum(len(p) for p in article.body)
    page = len(visible_text(soup))
    assert page > story + 150  # navigation, related links, footer... around the story
    assert soup.find("nav") or soup.find("ul")


def test_each_domain_has_its_own_markup() -> None:
    signatures = {}
    for article in one_article_per_domain():
        soup = BeautifulSoup(render_article(article), "lxml")
        signatures[article.domain] = frozenset(c for tag in soup.find_all(class_=True) for c in tag["class"])
    assert set(signatures) == {d.host for d in DOMAINS} == set(LAYOUTS)
    for a, sig_a in signatures.items():
        for b, sig_b in signatures.items():
            if a < b:
                assert sig_a != sig_b, (a, b)


def test_dates_appear_as_metadata_on_some_domains_and_as_arabic_text_on_others() -> None:
    ways = Counter()
    for article in one_article_per_domain():
        soup = BeautifulSoup(render_article(article), "lxml")
        if soup.find("meta", property="article:published_time"):
            assert soup.find("meta", property="article:published_time")["content"].startswith(article.published.isoformat())
            ways["meta"] += 1
        elif soup.find("script", type="application/ld+json"):
            ways["json-ld"] += 1
        else:
            ways["text"] += 1
    assert ways["meta"] >= 3 and ways["text"] >= 3 and ways["json-ld"] >= 1


def test_rendering_is_deterministic() -> None:
    article = build_world().articles[42]
    assert render_article(article) == render_article(article)


def test_unknown_domain_is_named_in_the_error() -> None:
    article = build_world().articles[0]
    stranger = NewsArticle("art-x", "unknown.example", "https://unknown.example/a/", "t", ("p",), article.published, None, "unrelated")
    with pytest.raises(KeyError, match="unknown.example"):
        render_article(stranger)
