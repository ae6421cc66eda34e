"""Fact-check posts: how Araanews, Dabegad and Norumors frame the rumours they debunk.

Each site has its own habits of framing (a prefix such as "لا صحة لما يتم تداوله حول", a
question "ما حقيقة ...؟", a label "الشائعة:" or a suffix ".. خبر كاذب") for the title and the
claim block. ``expected_claim`` is the claim block with the framing taken off, which is what
claim preprocessing must recover. Besides one post per rumour on the site of its country, the
world has the cases preprocessing and deduplication must handle: the same rumour on a second
site (reworded), reposts on the same site, multimedia-only posts, posts with an empty claim
block and pages that show no date.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from .model import SITE_COUNTRY, SITES, FactCheckPost
from .rumours import RumourDraft
from .slots import introduce_spokesman
from .stance_text import DEBUNK_PARAS, MEDIA_PARAS, SITE_OPENERS

LAST_DAY = date(2018, 12, 31)


@dataclass(frozen=True)
class Framing:
    """A way to wrap a claim: ``template`` holds {claim}; ``form`` says which form it takes."""

    template: str
    form: str  # "np" (noun phrase) or "statement" (a sentence that can follow "أن")


F_NO_TRUTH = Framing("لا صحة لما يتم تداوله حول {claim}", "np")
F_TRUTH = Framing("حقيقة {claim}", "np")
F_RUMOUR = Framing("شائعة: {claim}", "statement")
F_WHAT = Framing("ما حقيقة {claim}؟", "np")
F_NOT_TRUE = Framing("غير صحيح أن {claim}", "statement")
F_DENIAL = Framing("نفي {claim}", "np")
F_WHOLE = Framing("الحقيقة الكاملة وراء {claim}", "np")
F_FALSE_SUFFIX = Framing("{claim}.. خبر كاذب", "np")
F_LABEL = Framing("الشائعة: {claim}", "statement")
F_CIRCULATED = Framing("ما يتم تداوله عن {claim} غير صحيح", "np")

# (title framings, claim-block framings) per site
SITE_FRAMINGS: dict[str, tuple[tuple[Framing, ...], tuple[Framing, ...]]] = {
    "araanews": ((F_NO_TRUTH, F_NOT_TRUE, F_DENIAL, F_FALSE_SUFFIX), (F_NO_TRUTH, F_NOT_TRUE, F_RUMOUR, F_CIRCULATED)),
    "dabegad": ((F_TRUTH, F_WHAT, F_WHOLE), (F_TRUTH, F_WHAT, F_WHOLE, F_RUMOUR)),
    "norumors": ((F_RUMOUR, F_TRUTH, F_NOT_TRUE), (F_LABEL, F_RUMOUR, F_NOT_TRUE)),
}
MEDIA_TITLES = ("فيديو | حقيقة {np}", "بالصور: {np}.. مقطع مضلل", "حقيقة {media} عن {np}")
MEDIA_CLAIM_BLOCKS = ("[فيديو]", "شاهد المقطع", "(صورة متداولة)")

CATEGORY_SLUGS = {
    "society": "society", "health": "health", "education": "education", "politics": "politics",
    "economy": "economy", "technology": "tech", "sports": "sports", "science": "science",
}


def frame(framing: Framing, draft: RumourDraft, *, reworded: bool) -> tuple[str, str]:
    """The framed text and the claim inside it (reworded claims use the alternative NP)."""
    if framing.form == "statement":
        claim = draft.rumour.statement
    else:
        claim = draft.np_alt if reworded else draft.np
    return framing.template.format(claim=claim), claim


def _path(site: str, number: int, draft: RumourDraft, day: date) -> str:
    slug = draft.kind.key
    if site == "araanews":
        return f"/{day.year}/{day.month:02d}/{slug}-{number}/"
    if site == "dabegad":
        return f"/{CATEGORY_SLUGS.get(draft.rumour.category, 'news')}/{number}-{slug}/"
    return f"/rumors/{number}/"


def _body(draft: RumourDraft, rng: random.Random, site: str, claim: str, media: bool) -> tuple[str, ...]:
    """The debunk text: what circulated (``claim`` as a noun phrase), what the check found, the advice."""
    values = {"spokesman": rng.choice(draft.values_pool("person")), "np": claim, "media": draft.kind.media}
    if media:
        return tuple(draft.text(p, **values) for p in MEDIA_PARAS)
    extra = rng.sample(DEBUNK_PARAS[4:], rng.randint(0, 2))
    opener = rng.choice((DEBUNK_PARAS[0], *SITE_OPENERS[site]))
    # Norumors states the truth under its own "الحقيقة:" label instead of the usual check paragraph
    check = "الحقيقة: {truth}." if site == "norumors" else DEBUNK_PARAS[1]
    paras = [opener, check, *extra, DEBUNK_PARAS[2], DEBUNK_PARAS[3]]
    return tuple(draft.text(p, **values) for p in introduce_spokesman(paras))


@dataclass
class _SiteCounter:
    """Post numbers per site (the page ids in the site's URLs)."""

    next_number: dict[str, int]

    def take(self, site: str) -> int:
        self.next_number[site] += 1
        return self.next_number[site]


def build_posts(drafts: list[RumourDraft], seed: str) -> list[FactCheckPost]:
    """All posts: one per rumour on its country's site plus the special cases (see module doc)."""
    rng = random.Random(f"{seed}:posts")
    counter = _SiteCounter({"araanews": 1200, "dabegad": 3400, "norumors": 560})
    site_of = {country: site for site, country in SITE_COUNTRY.items()}
    posts: list[FactCheckPost] = []
    per_site_index: dict[str, int] = {s: 0 for s in SITES}

    def add(draft: RumourDraft, site: str, day: date, *, reworded: bool = False, repost_of: str | None = None,
            media: bool = False, empty: bool = False, dated: bool = True) -> FactCheckPost:
        title_framings, claim_framings = SITE_FRAMINGS[site]
        if reworded:  # the reworded claim is a noun phrase: only NP framings fit it
            title_framings = tuple(f for f in title_framings if f.form == "np") or (F_TRUTH,)
            claim_framings = tuple(f for f in claim_framings if f.form == "np") or (F_TRUTH,)
        title, _ = frame(rng.choice(title_framings), draft, reworded=reworded)
        claim_block, claim = frame(rng.choice(claim_framings), draft, reworded=reworded)
        expected: str | None = claim
        if media:
            title = rng.choice(MEDIA_TITLES).format(np=draft.np, media=draft.kind.media)
            claim_block, expected = rng.choice(MEDIA_CLAIM_BLOCKS), None
        elif empty:
            claim_block, expected = "", None
        number = counter.take(site)
        post = FactCheckPost(
            post_id=f"{site}-{number}",
            site=site,  # type: ignore[arg-type]
            rumour_id=draft.rumour.rumour_id,
            path=_path(site, number, draft, day),
            title=title,
            claim_text=claim_block,
            body=_body(draft, rng, site, draft.np_alt if reworded else draft.np, media),
            published=day if dated else None,
            category=draft.rumour.category,
            multimedia=media,
            expected_claim=expected,
            repost_of=repost_of,
        )
        posts.append(post)
        return post

    for draft in drafts:
        site = site_of[draft.country]
        i = per_site_index[site]
        per_site_index[site] += 1
        day = min(draft.rumour.date + timedelta(days=rng.randint(0, 6)), LAST_DAY)
        # every 13th post of a site is video-only, every 17th has an empty claim block, every 11th no date
        original = add(draft, site, day, media=i % 13 == 5, empty=i % 17 == 9, dated=i % 11 != 3)
        if i % 9 == 2:  # the same rumour debunked by a second site, lightly reworded
            other = SITES[(SITES.index(site) + 1 + i % 2) % len(SITES)]
            add(draft, other, min(day + timedelta(days=rng.randint(1, 12)), LAST_DAY), reworded=True)
        if i % 15 == 7 and original.expected_claim is not None:  # republished on the same site
            add(draft, site, min(day + timedelta(days=rng.randint(60, 400)), LAST_DAY), repost_of=original.post_id)
    return posts
