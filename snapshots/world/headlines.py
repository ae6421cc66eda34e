"""Reuters Arabic headlines: a few close to rumours, most about everyday news.

A close headline reports the true event of a rumour's kind (same entities) within about
three months of the rumour, so TF-IDF selection inside the ±3-month window should find it.
Every story opens with the Reuters dateline "CITY (رويترز) -".
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from .arabic_dates import MONTHS, WEEKDAYS
from .model import Headline
from .reuters_templates import (
    FIELDS, GRAIN_REGIONS, MARKETS, OIL_REASONS, PLACES, REGIONS, TECH_COMPANIES, TEMPLATES, TOURNAMENTS, WORLD_PLACES,
    StoryTemplate,
)
from .pools import COUNTRIES, FIXED, POOLS, SHARED_POOLS
from .rumours import RumourDraft

FIRST_DAY = date(2012, 1, 1)
LAST_DAY = date(2018, 12, 31)
GENERIC_COUNT = 190
ORDINALS = ("الثانية", "الثالثة", "الرابعة", "الخامسة", "السادسة", "السابعة", "العاشرة", "الثانية عشرة")
CLOSE_EVERY = 2  # one rumour in two gets a close headline


@dataclass(frozen=True)
class CloseHeadline:
    """A headline written from a rumour's true event, with the rumour it is close to."""

    headline: Headline
    draft: RumourDraft


def _path(rng: random.Random, section: str, day: date, taken: set[str]) -> str:
    while True:
        code = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(6))
        path = f"/article/{section}/idARAKBN{code}{day:%Y%m%d}"
        if path not in taken:
            taken.add(path)
            return path


def _moment(rng: random.Random, day: date) -> datetime:
    return datetime.combine(day, time(rng.randint(5, 22), rng.choice((0, 5, 12, 18, 24, 33, 41, 47, 52, 58))))


def _summary(first_para: str) -> str:
    """The first sentence, without the dateline."""
    text = first_para.split(" - ", 1)[-1]
    return text.split("،")[0].rstrip(".") + "."


def close_headlines(drafts: list[RumourDraft], rng: random.Random, taken: set[str], titles: set[str]) -> list[CloseHeadline]:
    """Headlines for every CLOSE_EVERY-th rumour whose event title is not used yet."""
    out = []
    for i, draft in enumerate(drafts):
        if i % CLOSE_EVERY:
            continue
        person = rng.choice(draft.values_pool("person"))
        title = draft.text(draft.kind.event.title, person=person)
        if title in titles:
            continue
        titles.add(title)
        offset = rng.choice((-1, 1)) * rng.randint(5, 80)
        day = min(max(draft.rumour.date + timedelta(days=offset), FIRST_DAY), LAST_DAY)
        city = draft.values.get("city", draft.values["capital"])
        paras = [draft.text(p, person=person) for p in draft.kind.event.paras]
        paras[0] = f"{city} (رويترز) - {paras[0]}"
        out.append(CloseHeadline(
            Headline(
                headline_id="",
                path=_path(rng, draft.kind.event.section, day, taken),
                title=title,
                summary=_summary(paras[0]),
                body=tuple(paras),
                published=_moment(rng, day),
                category=draft.rumour.category,
            ),
            draft,
        ))
    return out


def _generic_values(rng: random.Random, day: date) -> dict[str, str]:
    place, place2 = rng.sample(PLACES, 2)
    up = rng.random() < 0.5
    football = rng.choice(COUNTRIES)
    club, club2 = rng.sample(POOLS[football]["club"], 2)
    return {
        "club": club, "club2": club2, "league": FIXED[football]["league"], "nth": rng.choice(ORDINALS),
        "tech_company": rng.choice(TECH_COMPANIES), "grain_region": rng.choice(GRAIN_REGIONS),
        "place": place[0], "capital": place[1], "adj": place[2], "currency": place[3], "place2": place2[0],
        "updown": "ترتفع" if up else "تنخفض", "updown_past": "ارتفعت" if up else "انخفضت",
        "gainloss": "ارتفاع" if up else "انخفاض",
        "oil_reason": rng.choice(OIL_REASONS), "oil_price": f"{rng.randint(28, 115)}.{rng.randint(10, 99)}",
        "market": rng.choice(MARKETS), "field": rng.choice(FIELDS), "tournament": rng.choice(TOURNAMENTS[place[4]]),
        "region": rng.choice(REGIONS), "world_place": rng.choice(WORLD_PLACES),
        "disease": rng.choice(SHARED_POOLS["disease"]),
        "pct": f"{rng.randint(2, 9)}.{rng.randint(1, 9)}", "pct_small": f"{rng.randint(0, 4)}.{rng.randint(1, 9)}",
        "bp": str(rng.choice((25, 50, 75, 100, 150, 200))), "n": str(rng.randint(8, 45)),
        "n_small": str(rng.randint(3, 9)), "n_large": str(rng.randrange(150, 950, 50)),
        "magnitude": f"{rng.randint(5, 7)}.{rng.randint(0, 9)}",
        "year": str(day.year), "month": MONTHS[(day.month - 2) % 12], "weekday": WEEKDAYS[day.weekday()],
    }


def generic_headlines(rng: random.Random, taken: set[str], titles: set[str], count: int = GENERIC_COUNT) -> list[Headline]:
    """``count`` everyday stories spread evenly over 2012-2018, each title used once."""
    span = (LAST_DAY - FIRST_DAY).days
    out: list[Headline] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 20:
            raise RuntimeError(f"could not write {count} distinct Reuters titles (got {len(out)})")
        template: StoryTemplate = TEMPLATES[attempts % len(TEMPLATES)]
        day = FIRST_DAY + timedelta(days=(len(out) * span) // count + rng.randint(0, 5))
        values = _generic_values(rng, day)
        title = template.title.format_map(values)
        if title in titles:
            continue
        titles.add(title)
        paras = tuple(p.format_map(values) for p in template.paras)
        out.append(Headline(
            headline_id="",
            path=_path(rng, template.section, day, taken),
            title=title,
            summary=_summary(paras[0]),
            body=paras,
            published=_moment(rng, day),
            category=template.category,
        ))
    return out
