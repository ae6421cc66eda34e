"""The news domains articles are published on, and the URL path style of each.

Outlets are real Arabic news domains (the text on them is ours); the forum, blog and social
page are invented. Agreeing articles (rumour repeated as true) go mostly to the non-news
domains, denials to the outlets of the rumour's country or pan-Arab ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

DomainKind = Literal["news", "forum", "blog", "social"]


@dataclass(frozen=True)
class Domain:
    """One website: its host, Arabic name, country (None = pan-Arab) and kind."""

    host: str
    name: str
    country: str | None
    kind: DomainKind
    section: str  # the path segment of its news section

    def path(self, number: int, slug: str, day: date) -> str:
        """The URL path of article ``number`` in this domain's style (ends in '/' or '.html')."""
        y, m, d = day.year, day.month, day.day
        match self.host:
            case "youm7.com":
                return f"/story/{y}/{m}/{d}/{slug}/{2_000_000 + number}/"
            case "almasryalyoum.com":
                return f"/news/details/{900_000 + number}/"
            case "okaz.com.sa":
                return f"/{self.section}/na/{1_500_000 + number}/"
            case "sabq.org":
                return f"/{self.section}/{slug}-{number}.html"
            case "emaratalyoum.com":
                return f"/{self.section}/{y}-{m:02d}-{d:02d}-1.{800_000 + number}.html"
            case "alkhaleej.ae":
                return f"/{y}-{m:02d}-{d:02d}/{slug}-{number}/{self.section}/"
            case "alarabiya.net":
                return f"/ar/{self.section}/{y}/{m:02d}/{d:02d}/{slug}-{number}.html"
            case "skynewsarabia.com":
                return f"/{self.section}/{700_000 + number}-{slug}/"
            case "bbc.com":
                return f"/arabic/{self.section}-{30_000_000 + number}/"
            case "aljazeera.net":
                return f"/{self.section}/{y}/{m}/{d}/{slug}-{number}/"
            case _:
                return self._community_path(number, slug, day)

    def _community_path(self, number: int, slug: str, day: date) -> str:
        if self.kind == "forum":
            return f"/threads/{40_000 + number}/"
        if self.kind == "blog":
            return f"/{day.year}/{day.month:02d}/{slug}-{number}.html"
        return f"/{self.section}/posts/{10_000_000_000 + number}/"


DOMAINS: tuple[Domain, ...] = (
    Domain("youm7.com", "اليوم السابع", "EG", "news", "story"),
    Domain("almasryalyoum.com", "المصري اليوم", "EG", "news", "news"),
    Domain("okaz.com.sa", "صحيفة عكاظ", "SA", "news", "news"),
    Domain("sabq.org", "صحيفة سبق الإلكترونية", "SA", "news", "saudia"),
    Domain("emaratalyoum.com", "الإمارات اليوم", "AE", "news", "local-section"),
    Domain("alkhaleej.ae", "صحيفة الخليج", "AE", "news", "article"),
    Domain("alarabiya.net", "العربية.نت", None, "news", "arab-and-world"),
    Domain("skynewsarabia.com", "سكاي نيوز عربية", None, "news", "middle-east"),
    Domain("bbc.com", "بي بي سي عربي", None, "news", "middleeast"),
    Domain("aljazeera.net", "الجزيرة نت", None, "news", "news"),
    Domain("montada.alwaha-alarabiya.net", "منتديات الواحة العربية", None, "forum", "threads"),
    Domain("akhbar-sarea.blogspot.com", "مدونة أخبار سريعة", None, "blog", "blog"),
    Domain("facebook.com", "صفحة أخبار الساعة", None, "social", "AkhbarAlSaaPage"),
)

BY_HOST: dict[str, Domain] = {d.host: d for d in DOMAINS}


def domains_for(country: str, kinds: tuple[DomainKind, ...]) -> list[Domain]:
    """Domains of these kinds that publish about ``country`` (its own outlets and pan-Arab ones)."""
    return [d for d in DOMAINS if d.kind in kinds and d.country in (country, None)]
