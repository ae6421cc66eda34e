"""HTML renderer of the Reuters Arabic snapshot: a paginated news archive and article pages.

Modelled on the evidence about ara.reuters.com in 2012–2018 (../shared/real-sites.md): archive
listings at ``/news/archive/<section>`` with headlines in ``div.NONE > div.module >
div.headlineMed`` (the link text from its ``a``, the time in ``span.timestamp``), paginated by
query string ``?view=page&page=N&pageSize=10``; article pages with ``div.contentBand >
div.article.primaryContent``, the title in its ``h1`` and paragraphs ``p``. The pagination
links' markup and the article's date element are ours (unverified). Text is the world's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from snapshots.fact_check_sites import (
    CANONICAL_BASE,
    ListingEntry,
    SiteRender,
    category_label,
    e,
    gregorian_ar,
    html_page,
    write_page,
)
from snapshots.world.model import Headline, World

SITE_NAME = "رويترز"
LISTING_BASE = "/news/archive/topNews"
HEADLINES_PER_PAGE = 10
_WEEKDAYS = ("الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد")


def dateline(published: datetime) -> str:
    """``الثلاثاء 3 مايو 2016 | 10:25 ص بتوقيت جرينتش``."""
    hour = published.hour % 12 or 12
    half = "ص" if published.hour < 12 else "م"
    return (f"{_WEEKDAYS[published.weekday()]} {gregorian_ar(published.date())} | "
            f"{hour}:{published.minute:02d} {half} بتوقيت جرينتش")


def _detail(h: Headline, prefix: str) -> str:
    head = (f"<link rel=\"canonical\" href=\"{CANONICAL_BASE['reuters']}{e(h.path.lstrip('/'))}\">\n"
            f"<meta property=\"og:title\" content=\"{e(h.title)}\">\n"
            f"<meta property=\"og:article:published_time\" content=\"{h.published.isoformat()}\">\n")
    body = (
        "<div class=\"contentBand\">\n<div class=\"article primaryContent\">"
        f"<div class=\"sectionName\"><a href=\"{prefix}/news/{e(h.category)}\">{e(category_label(h.category))}</a></div>"
        f"<h1>{e(h.title)}</h1>"
        f"<span class=\"timestamp\">{dateline(h.published)}</span>\n"
        + "".join(f"<p>{e(p)}</p>\n" for p in h.body) + "</div>\n</div>"
    )
    return html_page(h.title, head, body, site_name=SITE_NAME, home=f"{prefix}/")


def _page_path(n: int) -> str:
    return f"{LISTING_BASE}?view=page&page={n}&pageSize={HEADLINES_PER_PAGE}"


def _listing(entries: Sequence[ListingEntry], page: int, pages: int, prefix: str) -> str:
    stories = []
    for en in entries:
        stamp = f"<span class=\"timestamp\">{gregorian_ar(en.published)}</span>" if en.published else ""
        stories.append(
            f"<div class=\"headlineMed\"><a href=\"{prefix}{e(en.path)}\">{e(en.title)}</a>{stamp}</div>"
        )
    nav = []
    if page > 1:
        nav.append(f"<a class=\"prev\" href=\"{prefix}{e(_page_path(page - 1))}\">&lt; السابق</a>")
    if page < pages:
        nav.append(f"<a class=\"next\" href=\"{prefix}{e(_page_path(page + 1))}\">التالي &gt;</a>")
    body = ("<div class=\"NONE\"><div class=\"module\"><h1 class=\"moduleHeader\">أهم الأخبار</h1>\n"
            + "\n".join(stories) + "\n"
            f"<div class=\"pageNavigation\">{''.join(nav)}</div></div></div>")
    return html_page("أرشيف الأخبار", "", body, site_name=SITE_NAME, home=f"{prefix}/")


def render_reuters_site(
    world: World, out_dir: Path, *, extra_entries: Sequence[ListingEntry] = (), per_page: int = HEADLINES_PER_PAGE
) -> SiteRender:
    """Write every headline's article page and the archive listing into ``out_dir``."""
    prefix = "/reuters"
    headlines = sorted(world.headlines, key=lambda h: (h.published, h.headline_id), reverse=True)
    for h in headlines:
        write_page(out_dir, h.path, _detail(h, prefix))
    entries = [ListingEntry(h.path, h.title, h.summary, h.published.date()) for h in headlines] + list(extra_entries)
    pages = max(1, -(-len(entries) // per_page))
    listings = []
    for n in range(1, pages + 1):
        write_page(out_dir, _page_path(n), _listing(entries[(n - 1) * per_page: n * per_page], n, pages, prefix))
        listings.append(_page_path(n))
    # The bare archive address shows the first page, as the site did.
    write_page(out_dir, LISTING_BASE + "/", _listing(entries[:per_page], 1, pages, prefix))
    return SiteRender(listing_paths=tuple(listings), detail_paths=tuple(h.path for h in headlines))
