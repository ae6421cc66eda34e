"""``build_world()``: the whole synthetic world, built once per process from fixed seeds."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import lru_cache

from .articles import build_articles
from .headlines import CloseHeadline, close_headlines, generic_headlines
from .model import World
from .posts import build_posts
from .rumours import build_rumours

SEED = "arastance-world-v1"


@lru_cache(maxsize=4)
def build_world(seed: str = SEED) -> World:
    """The deterministic world (same seed, same world; cached, so calling again is free)."""
    drafts = build_rumours(seed)
    posts = build_posts(drafts, seed)
    rng = random.Random(f"{seed}:headlines")
    taken_paths: set[str] = set()
    titles: set[str] = set()
    close = close_headlines(drafts, rng, taken_paths, titles)
    generic = generic_headlines(rng, taken_paths, titles)
    ordered = sorted([c.headline for c in close] + generic, key=lambda h: (h.published, h.path))
    ids = {h.path: f"reu-{n:04d}" for n, h in enumerate(ordered, start=1)}
    headlines = tuple(replace(h, headline_id=ids[h.path]) for h in ordered)
    close = [CloseHeadline(replace(c.headline, headline_id=ids[c.headline.path]), c.draft) for c in close]
    articles = build_articles(drafts, close, seed)
    return World(
        rumours=tuple(d.rumour for d in drafts),
        posts=tuple(posts),
        headlines=headlines,
        articles=tuple(articles),
    )
