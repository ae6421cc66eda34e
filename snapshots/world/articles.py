"""News articles about the rumours and the close headlines, with their gold stance.

For each rumour: pages that repeat it as true (agree; mostly forums, blogs and social pages),
pages where officials deny it (disagree), neutral reports (discuss), and a page on a different
event with the same entities (unrelated, or, when that event made a Reuters headline, an
'agree' page about the headline). A few filler pages (weather) are about no topic at all.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, timedelta

from .arabic_dates import long_date
from .domains import Domain, domains_for
from .headlines import CloseHeadline
from .model import NewsArticle, Stance
from .pools import COUNTRIES, FIXED, POOLS
from .rumours import RumourDraft
from .slots import introduce_spokesman
from .stance_text import (
    AGREE_DECISION_PARAS, AGREE_PARAS, AGREE_TITLES, DENY_DECISION_PARAS, DENY_PARAS, DENY_TITLES, DISCUSS_PARAS,
    DISCUSS_TITLES,
)

FIRST_DAY = date(2012, 1, 1)
LAST_DAY = date(2018, 12, 31)
MAX_PARAS = 8  # an article has 3-8 paragraphs

WEATHER_TITLES = ("طقس {city} اليوم: {sky_nom} ودرجات الحرارة العظمى {high}", "الأرصاد: طقس {sky_nom} على {city} وارتفاع في نسبة الرطوبة")
WEATHER_PARAS = (
    "بحسب توقعات {met_office}، يكون الطقس اليوم {sky} على {city} والمناطق المحيطة، مع رياح {wind} السرعة.",
    "وتتراوح درجات الحرارة العظمى بين {low} و{high} درجة مئوية، فيما تنخفض ليلا بنحو سبع درجات.",
    "ونصحت الأرصاد قائدي المركبات بتوخي الحذر في الصباح الباكر بسبب الشبورة المائية على بعض الطرق.",
    "ويستمر هذا الطقس حتى نهاية الأسبوع، على أن تتحسن الأحوال تدريجيا بداية الأسبوع المقبل.",
)
# (after "يكون": accusative, in a title: nominative)
SKIES = (("مائلا للحرارة", "مائل للحرارة"), ("غائما جزئيا", "غائم جزئيا"), ("معتدلا", "معتدل"), ("حارا ورطبا", "حار ورطب"), ("مغبرا", "مغبر"))
WINDS = ("متوسطة", "خفيفة", "نشطة")


# How community pages wrap what they pass on (forum posts greet and credit, social posts tag).
FORUM_OPENERS = (
    "السلام عليكم ورحمة الله وبركاته، وصلني هذا الخبر اليوم وحبيت أنقله لكم:",
    "مساء الخير يا أعضاء، شوفوا هذا الخبر المنتشر:",
)
FORUM_CLOSERS = ("منقول للفائدة، والله أعلم.", "ننتظر آراءكم، وشكرا لكل من يمر على الموضوع.")
SOCIAL_TAGS = ("#عاجل #{country} #شارك_الخبر", "#{country} #أخبار_الساعة")


def _community_wrap(domain: Domain, paras: list[str], rng: random.Random, country: str) -> list[str]:
    """Forum posts get a greeting and a credit line, social posts a line of hashtags."""
    if domain.kind == "forum":
        return [rng.choice(FORUM_OPENERS), *paras[: MAX_PARAS - 2], rng.choice(FORUM_CLOSERS)]
    if domain.kind == "social":
        tags = rng.choice(SOCIAL_TAGS).format(country=FIXED[country]["country"].replace(" ", "_"))
        return [*paras[: MAX_PARAS - 1], tags]
    return paras


def _clip(day: date) -> date:
    return min(max(day, FIRST_DAY), LAST_DAY)


class _Urls:
    """Article numbers per domain, so every URL is unique."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = defaultdict(int)

    def url(self, domain: Domain, slug: str, day: date) -> str:
        self.counts[domain.host] += 1
        return f"https://{domain.host}{domain.path(self.counts[domain.host], slug, day)}"


def _domain(rng: random.Random, country: str, stance: str) -> Domain:
    community = domains_for(country, ("forum", "blog", "social"))
    news = domains_for(country, ("news",))
    local = [d for d in news if d.country == country]
    if stance == "agree":
        return rng.choice(community if rng.random() < 0.7 else local)
    if stance == "discuss" and rng.random() < 0.15:
        return rng.choice(community)
    return rng.choice(news)


def _rumour_paras(draft: RumourDraft, stance: Stance, rng: random.Random, spokesman: str) -> tuple[str, list[str]]:
    """Title and paragraphs of one article about the rumour itself."""
    kind = draft.kind
    extra = {"spokesman": spokesman, "date_ar": long_date(draft.rumour.date)}
    if stance == "agree":
        titles, own, pool, count = AGREE_TITLES, kind.agree, AGREE_PARAS + (AGREE_DECISION_PARAS if kind.decision else ()), (1, 3)
    elif stance == "disagree":
        titles, own, pool, count = DENY_TITLES, kind.deny, DENY_PARAS + (DENY_DECISION_PARAS if kind.decision else ()), (2, 3)
    else:
        titles, own, pool, count = DISCUSS_TITLES, kind.discuss, DISCUSS_PARAS, (2, 3)
    picked = sorted(rng.sample(range(len(pool)), rng.randint(*count)))  # pool order reads best
    paras = [*own, *(pool[i] for i in picked)]
    if rng.random() < 0.6:
        paras.append(kind.background[0])
    return draft.text(rng.choice(titles), **extra), [draft.text(p, **extra) for p in introduce_spokesman(paras)]


def _event_paras(draft: RumourDraft, rng: random.Random, person: str) -> tuple[str, list[str]]:
    event = draft.kind.event
    paras = list(event.paras) + ([draft.kind.background[0]] if rng.random() < 0.5 else [])
    return draft.text(event.title, person=person), [draft.text(p, person=person) for p in paras]


def build_articles(drafts: list[RumourDraft], close: list[CloseHeadline], seed: str) -> list[NewsArticle]:
    """Every article, ordered by date then URL; ids art-0001... in that order."""
    rng = random.Random(f"{seed}:articles")
    urls = _Urls()
    close_of = {c.draft.rumour.rumour_id: c.headline for c in close}
    drafted: list[tuple[date, str, str, str, tuple[str, ...], str | None, Stance]] = []

    def add(domain: Domain, slug: str, day: date, title: str, paras: list[str], topic: str | None, stance: Stance) -> None:
        day = _clip(day)
        drafted.append((day, urls.url(domain, slug, day), domain.host, title, tuple(paras), topic, stance))

    for draft in drafts:
        rumour, country, slug = draft.rumour, draft.country, draft.kind.key
        plan: list[tuple[Stance, int, int]] = [("agree", -2, 10), ("disagree", 0, 14), ("discuss", -1, 10)]
        plan += [("agree", 0, 12)] if rng.random() < 0.5 else []
        plan += [("disagree", 1, 21)] if rng.random() < 0.5 else []
        for stance, low, high in plan:
            spokesman = rng.choice(draft.values_pool("person"))
            title, paras = _rumour_paras(draft, stance, rng, spokesman)
            day = rumour.date + timedelta(days=rng.randint(low, high))
            domain = _domain(rng, country, stance)
            add(domain, slug, day, title, _community_wrap(domain, paras, rng, country), rumour.rumour_id, stance)
        person = rng.choice(draft.values_pool("person"))
        title, paras = _event_paras(draft, rng, person)
        headline = close_of.get(rumour.rumour_id)
        if headline is not None:  # the event is a Reuters story: this page agrees with that headline
            day = headline.published.date() + timedelta(days=rng.randint(0, 2))
            add(_domain(rng, country, "unrelated"), slug + "-news", day, headline.title, paras, headline.headline_id, "agree")
        else:
            day = rumour.date + timedelta(days=rng.choice((-1, 1)) * rng.randint(7, 40))
            add(_domain(rng, country, "unrelated"), slug + "-news", day, title, paras, rumour.rumour_id, "unrelated")

    for i in range(24):  # filler pages about no tracked topic
        country = COUNTRIES[i % len(COUNTRIES)]
        values = {
            "city": rng.choice(POOLS[country]["city"]), "wind": rng.choice(WINDS),
            "low": str(rng.randint(18, 30)), "high": str(rng.randint(31, 46)),
            "met_office": FIXED[country]["met_office"],
        }
        values["sky"], values["sky_nom"] = rng.choice(SKIES)
        day = FIRST_DAY + timedelta(days=rng.randrange((LAST_DAY - FIRST_DAY).days))
        title = rng.choice(WEATHER_TITLES).format_map(values)
        local = [d for d in domains_for(country, ("news",)) if d.country == country]
        add(rng.choice(local), "weather", day, title, [p.format_map(values) for p in WEATHER_PARAS], None, "unrelated")

    drafted.sort(key=lambda a: (a[0], a[1]))
    return [
        NewsArticle(f"art-{n:04d}", host, url, title, paras, day, topic, stance)
        for n, (day, url, host, title, paras, topic, stance) in enumerate(drafted, start=1)
    ]
