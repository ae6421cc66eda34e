"""The records of the synthetic world and the ``World`` that answers questions about them.

Every record is a frozen dataclass with tuple fields, so the cached world shared by all tests
cannot be changed by one of them. The ``World`` also holds the ground truth (which rumour a
post debunks, which topic an article is about and its stance), which the pipeline never sees
but the tests and the demo's evaluation compare against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal
from urllib.parse import urlsplit

Site = Literal["araanews", "dabegad", "norumors"]
Stance = Literal["agree", "disagree", "discuss", "unrelated"]

SITES: tuple[Site, ...] = ("araanews", "dabegad", "norumors")
STANCES: tuple[Stance, ...] = ("agree", "disagree", "discuss", "unrelated")
# The country whose rumours each fact-checking site debunks.
SITE_COUNTRY: dict[str, str] = {"araanews": "AE", "dabegad": "EG", "norumors": "SA"}


@dataclass(frozen=True)
class Rumour:
    """A false claim that spread at ``date``; ``statement`` states it as a claim (no framing)."""

    rumour_id: str
    statement: str
    date: date
    category: str
    entities: tuple[str, ...]
    country: str = "EG"
    kind: str = ""


@dataclass(frozen=True)
class FactCheckPost:
    """One debunk page on a fact-checking site.

    ``expected_claim`` is what claim preprocessing should produce from the page (the debunked
    assertion with the site's framing stripped); ``None`` means the page must be dropped
    (multimedia-only or empty claim). ``published`` is ``None`` when the page shows no date.
    """

    post_id: str
    site: Site
    rumour_id: str
    path: str
    title: str
    claim_text: str
    body: tuple[str, ...]
    published: date | None
    category: str
    multimedia: bool
    expected_claim: str | None
    repost_of: str | None = None


@dataclass(frozen=True)
class Headline:
    """A Reuters Arabic news story: the true-claim candidates are their titles."""

    headline_id: str
    path: str
    title: str
    summary: str
    body: tuple[str, ...]
    published: datetime
    category: str


@dataclass(frozen=True)
class NewsArticle:
    """A page on a news site, forum, blog or social page, with its stance towards ``topic_id``.

    ``topic_id`` is a rumour_id or a headline_id (or ``None`` for filler pages about nothing the
    dataset tracks); ``stance`` is relative to that topic's claim.
    """

    article_id: str
    domain: str
    url: str
    title: str
    body: tuple[str, ...]
    published: date
    topic_id: str | None
    stance: Stance

    @property
    def path(self) -> str:
        """The URL path on the article's own domain (starts with '/')."""
        return urlsplit(self.url).path


def _url_key(url: str) -> str:
    """Fold the spellings of one article URL (scheme, www., trailing slash, mirror prefix)."""
    parts = urlsplit(url.strip())
    host, path = parts.netloc.lower(), parts.path or "/"
    marker = "/mirror/"
    if marker in path:  # http://127.0.0.1:PORT/mirror/<domain>/<path> -> <domain>/<path>
        rest = path.split(marker, 1)[1]
        host, _, tail = rest.partition("/")
        path = "/" + tail
    host = host.removeprefix("www.").removeprefix("m.").removeprefix("amp.")
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return host + path.rstrip("/")


def _post_key(site: str, path: str) -> str:
    path = urlsplit(path).path if "://" in path else path
    path = "/" + path.strip("/") + "/"
    prefix = f"/{site}/"
    if path.startswith(prefix):
        path = path[len(prefix) - 1 :]
    return f"{site}:{path}"


@dataclass(frozen=True)
class World:
    """The whole synthetic world, with lookups built once."""

    rumours: tuple[Rumour, ...]
    posts: tuple[FactCheckPost, ...]
    headlines: tuple[Headline, ...]
    articles: tuple[NewsArticle, ...]
    _rumour_by_id: dict[str, Rumour] = field(init=False, repr=False, compare=False)
    _post_topic: dict[str, str] = field(init=False, repr=False, compare=False)
    _headline_by_path: dict[str, str] = field(init=False, repr=False, compare=False)
    _article_by_url: dict[str, NewsArticle] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_rumour_by_id", {r.rumour_id: r for r in self.rumours})
        object.__setattr__(self, "_post_topic", {_post_key(p.site, p.path): p.rumour_id for p in self.posts})
        object.__setattr__(self, "_headline_by_path", {"/" + h.path.strip("/"): h.headline_id for h in self.headlines})
        object.__setattr__(self, "_article_by_url", {_url_key(a.url): a for a in self.articles})

    def rumour(self, rumour_id: str) -> Rumour:
        """The rumour with this id (KeyError names the id when it is unknown)."""
        try:
            return self._rumour_by_id[rumour_id]
        except KeyError:
            raise KeyError(f"unknown rumour_id {rumour_id!r}") from None

    def article(self, url: str) -> NewsArticle | None:
        """The article at ``url`` (original or offline-mirror URL), or None."""
        return self._article_by_url.get(_url_key(url))

    def gold_stance(self, topic_id: str, article_url: str) -> Stance:
        """The true stance of the article at ``article_url`` towards the topic's claim.

        An article that is not about the topic (or not in the world at all) is 'unrelated'.
        """
        found = self.article(article_url)
        if found is None or found.topic_id != topic_id:
            return "unrelated"
        return found.stance

    def topic_of_post(self, site: str, path: str) -> str | None:
        """The rumour a fact-check page debunks, from its site and URL path (or full URL)."""
        return self._post_topic.get(_post_key(site, path))

    def topic_of_headline(self, path: str) -> str | None:
        """The headline_id of the Reuters story at ``path`` (a '/reuters' prefix is allowed)."""
        path = urlsplit(path).path if "://" in path else path
        path = "/" + path.strip("/")
        if path.startswith("/reuters/"):
            path = path[len("/reuters") :]
        return self._headline_by_path.get(path)

    def articles_about(self, topic_id: str) -> tuple[NewsArticle, ...]:
        """The articles written about a rumour or headline (any stance, including 'unrelated')."""
        return tuple(a for a in self.articles if a.topic_id == topic_id)

    def posts_of(self, site: str) -> tuple[FactCheckPost, ...]:
        """The posts of one fact-checking site, in publication order of the world."""
        return tuple(p for p in self.posts if p.site == site)

    def corpus_records(self) -> list[dict[str, str]]:
        """The "web" the local search index holds: one record per article page."""
        return [
            {
                "url": a.url,
                "title": a.title,
                "text": "\n\n".join(a.body),
                "published_date": a.published.isoformat(),
                "domain": a.domain,
            }
            for a in self.articles
        ]
