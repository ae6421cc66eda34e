"""HTML renderer of the Reuters Arabic snapshot: a paginated news archive and article pages.

Modelled on the structure of a wire service's Arabic site (archive listing of headline
teasers, article pages with a headline, a dateline and body paragraphs); the text is the
world's. Headlines are listed newest first, 20 to a page.
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
LISTING_BASE = "/news/archive/topNews/"
HEADLINES_PER_PAGE = 20
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
        "<div class=\"StandardArticle_container\">\n<div class=\"ArticleHeader_container\">"
        f"<div class=\"ArticleHeader_channel\"><a href=\"{prefix}/news/{e(h.category)}\">{e(category_label(h.category))}</a></div>"
        f"<h1 class=\"ArticleHeader_headline\">{e(h.title)}</h1>"
        f"<div class=\"ArticleHeader_date\">{dateline(h.published)}</div></div>\n"
        "<div class=\"StandardArticleBody_body\">\n" + "".join(f"<p>{e(p)}</p>\n" for p in h.body) + "</div>\n</div>"
    )
    return html_page(h.title, head, body, site_name=SITE_NAME, home=f"{prefix}/")


def _page_path(n: int) -> str:
    return LISTING_BASE if n == 1 else f"{LISTING_BASE}page/{n}/"


def _listing(entries: Sequence[ListingEntry], page: int, pages: int, prefix: str) -> str:
    stories = []
    for en in entries:
        stamp = f"<span class=\"timestamp\">{gregorian_ar(en.published)}</span>" if en.published else ""
        stories.append(
            "<article class=\"story\"><div class=\"story-content\">"
            f"<a href=\"{prefix}{e(en.path)}\"><h3 class=\"story-title\">{e(en.title)}</h3></a>"
            f"<p>{e(en.summary)}</p>{stamp}</div></article>"
        )
    nav = []
    if page > 1:
        nav.append(f"<a class=\"control-nav-prev\" href=\"{prefix}{_page_path(page - 1)}\">&lt; السابق</a>")
    if page < pages:
        nav.append(f"<a class=\"control-nav-next\" href=\"{prefix}{_page_path(page + 1)}\">التالي &gt;</a>")
    body = ("<section class=\"module\"><h1 class=\"module-heading\">أهم الأخبار</h1>\n"
            "<div class=\"news-headline-list\">\n" + "\n".join(stories) + "\n</div>\n"
            f"<div class=\"control-nav\">{''.join(nav)}</div></section>")
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
    return SiteRender(listing_paths=tuple(listings), detail_paths=tuple(h.path for h in headlines))
