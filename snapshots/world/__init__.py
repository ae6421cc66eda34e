"""The offline demo world: rumours, fact-check posts, Reuters headlines and news articles.

``build_world()`` returns the same ``World`` on every call and every machine (fixed seeds, no
clock, no network). All text is Arabic written for AraStance Pipeline; organisations, cities
and clubs are real, every person is invented, and every story is made up.
"""

from .builder import SEED, build_world
from .model import SITE_COUNTRY, SITES, STANCES, FactCheckPost, Headline, NewsArticle, Rumour, World

__all__ = [
    "SEED", "SITES", "SITE_COUNTRY", "STANCES",
    "FactCheckPost", "Headline", "NewsArticle", "Rumour", "World", "build_world",
]
