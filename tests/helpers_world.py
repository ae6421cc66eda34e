"""Helpers for the world tests: visible page text and one sample article per domain."""

from __future__ import annotations

import hashlib

from bs4 import BeautifulSoup

from snapshots.world import build_world
from snapshots.world.model import NewsArticle, World


def visible_text(soup: BeautifulSoup) -> str:
    """The text a reader sees: scripts and styles dropped, whitespace folded to single spaces."""
    for tag in soup(["script", "style"]):
        tag.decompose()
    return " ".join(soup.get_text(" ").split())


def one_article_per_domain() -> list[NewsArticle]:
    """The first article of every domain, in domain order."""
    first: dict[str, NewsArticle] = {}
    for article in build_world().articles:
        first.setdefault(article.domain, article)
    return [first[d] for d in sorted(first)]


def world_digest(world: World) -> str:
    """A fingerprint of every record of the world, to compare builds across processes."""
    records = (world.rumours, world.posts, world.headlines, world.articles)
    return hashlib.sha256(repr(records).encode("utf-8")).hexdigest()
