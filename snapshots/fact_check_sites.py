"""HTML renderers of the three fact-checking sites' posts, each in its own site's structure.

Modelled on how such sites are built, not on their text: Araanews (UAE) and Dabegad (Egypt) are
WordPress sites with different themes and ``/page/N/`` pagination, Norumors (Saudi Arabia) a
custom site that prints Hijri dates. Posts are listed newest first. The quirks crawlers meet on
the real web are here on purpose: Arabic-Indic digits, Levantine month names, Hijri dates,
missing dates and categories, unclosed tags, a broken JSON-LD block, video-only posts.

Every page is written under ``<out>/<site>/<path>`` (``index.html`` for paths ending in ``/``)
with root-relative links under ``/<site>/``, the prefix the snapshot server serves it at; the
``<link rel=canonical>`` names the real site, as a saved copy of a real page would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape
from pathlib import Path

from hijridate import Gregorian

from snapshots.paths import page_file
from snapshots.world.model import FactCheckPost, World

#: The real sites' addresses, used for canonical links (also in arastance/base/site_configs/*.toml).
CANONICAL_BASE = {
    "araanews": "https://araanews.ae/",
    "dabegad": "https://dabegad.com/",
    "norumors": "https://norumors.net/",
    "reuters": "https://ara.reuters.com/",
}
SITE_NAMES = {"araanews": "عراء نيوز", "dabegad": "دا بجد", "norumors": "لا للشائعات"}
POSTS_PER_PAGE = 10
#: What the sites print for the world's categories (the slug stays in category URLs).
CATEGORY_LABELS = {
    "economy": "اقتصاد", "education": "تعليم", "health": "صحة", "politics": "سياسة", "science": "علوم",
    "society": "مجتمع", "sports": "رياضة", "technology": "تكنولوجيا", "world": "العالم",
}

_EG_MONTHS = ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر")
_LEVANT_MONTHS = ("كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول",
                  "تشرين الأول", "تشرين الثاني", "كانون الأول")
_HIJRI_MONTHS = ("محرم", "صفر", "ربيع الأول", "ربيع الآخر", "جمادى الأولى", "جمادى الآخرة", "رجب", "شعبان",
                 "رمضان", "شوال", "ذو القعدة", "ذو الحجة")
_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def category_label(category: str) -> str:
    """The Arabic label a site prints for a world category (unknown ones as they are)."""
    return CATEGORY_LABELS.get(category, category)


def indic(value: object) -> str:
    """Arabic-Indic digits, as many Gulf sites print them."""
    return str(value).translate(_INDIC)


def gregorian_ar(day: date, *, levantine: bool = False, indic_digits: bool = False) -> str:
    """``3 مايو 2016`` (or ``٣ أيار ٢٠١٦``)."""
    month = (_LEVANT_MONTHS if levantine else _EG_MONTHS)[day.month - 1]
    text = f"{day.day} {month} {day.year}"
    return indic(text) if indic_digits else text


def hijri_ar(day: date) -> str:
    """The Umm al-Qura date as Saudi sites print it: ``١٥ رجب ١٤٣٧هـ``."""
    h = Gregorian(day.year, day.month, day.day).to_hijri()
    return indic(f"{h.day} {_HIJRI_MONTHS[h.month - 1]} {h.year}") + "هـ"


def e(text: str) -> str:
    return escape(text, quote=True)


def html_page(title: str, head_extra: str, body: str, *, site_name: str, home: str) -> str:
    """A complete right-to-left Arabic document."""
    return (
        "<!DOCTYPE html>\n<html lang=\"ar\" dir=\"rtl\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{e(title)} - {e(site_name)}</title>\n{head_extra}</head>\n<body>\n"
        f"<header class=\"site-header\"><a class=\"site-title\" href=\"{home}\">{e(site_name)}</a></header>\n"
        f"{body}\n<footer class=\"site-footer\"><small>{e(site_name)}</small></footer>\n</body>\n</html>\n"
    )


def write_page(out_dir: Path, path: str, html: str) -> Path:
    """Write ``html`` for URL ``path`` (see :func:`snapshots.paths.page_file`)."""
    target = out_dir / page_file(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    return target


def claim_review_json(post: FactCheckPost, author: str, *, broken: bool = False) -> str:
    """A schema.org ClaimReview block; ``broken`` leaves a trailing comma, as some plugins do."""
    data = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": CANONICAL_BASE[post.site] + post.path.lstrip("/"),
        "claimReviewed": post.claim_text,
        "author": {"@type": "Organization", "name": author},
        "reviewRating": {"@type": "Rating", "ratingValue": 1, "bestRating": 5, "worstRating": 1,
                         "alternateName": "شائعة"},
    }
    if post.published:
        data["datePublished"] = post.published.isoformat()
    text = json.dumps(data, ensure_ascii=False)
    if broken:
        text = text[:-1] + ",}"
    return f"<script type=\"application/ld+json\">{text}</script>\n"


def paragraphs(body: Sequence[str], *, unclosed: bool) -> str:
    """Body paragraphs; ``unclosed`` drops every ``</p>`` and leaves a ``<b>`` open inside one."""
    if not unclosed:
        return "".join(f"<p>{e(p)}</p>\n" for p in body)
    out = []
    for i, p in enumerate(body):
        if i == 0 and " " in p:
            head, tail = p.split(" ", 1)
            out.append(f"<p><b>{e(head)}</b> <span>{e(tail)}\n")  # the <span> is never closed
        else:
            out.append(f"<p>{e(p)}\n")
    return "".join(out)


@dataclass(frozen=True)
class ListingEntry:
    """One teaser on a listing page: where it links and what it shows."""

    path: str
    title: str
    summary: str
    published: date | None


@dataclass(frozen=True)
class SiteRender:
    """What a renderer wrote: the listing pages and the detail pages, as URL paths (no prefix)."""

    listing_paths: tuple[str, ...]
    detail_paths: tuple[str, ...]


def _pick(post: FactCheckPost, every: int, offset: int = 0) -> bool:
    """A deterministic choice of some posts for a quirk, spread over the site."""
    return (int.from_bytes(post.post_id.encode()[-4:], "big") + offset) % every == 0


# The quirks, public so that tests can find the pages that carry each one and know what a
# correct extraction gives there.
def uses_levantine_months(post: FactCheckPost) -> bool:
    """Araanews prints some dates with Levantine month names (أيار, not مايو)."""
    return post.site == "araanews" and _pick(post, 3)


def hides_category(post: FactCheckPost) -> bool:
    """Some Araanews and Dabegad pages show no category."""
    return (post.site == "araanews" and _pick(post, 6, 1)) or (post.site == "dabegad" and _pick(post, 7, 2))


def has_unclosed_markup(post: FactCheckPost) -> bool:
    """Pages whose body paragraphs are never closed and keep a ``<span>`` open."""
    return {"araanews": _pick(post, 4, 3), "dabegad": _pick(post, 5, 1), "norumors": _pick(post, 4)}[post.site]


def has_claim_review(post: FactCheckPost) -> bool:
    """Araanews marks up every text post that states a claim with ClaimReview, Norumors most; Dabegad none."""
    if post.multimedia or not post.claim_text:
        return False
    return post.site == "araanews" or (post.site == "norumors" and not _pick(post, 3, 1))


def has_broken_json_ld(post: FactCheckPost) -> bool:
    """Some Araanews ClaimReview blocks are invalid JSON (a trailing comma)."""
    return post.site == "araanews" and has_claim_review(post) and _pick(post, 9, 2)


# -- Araanews (UAE): WordPress, Arabic-Indic digits, some Levantine month names, ClaimReview ----

def _araanews_date(post: FactCheckPost) -> str:
    assert post.published is not None
    return gregorian_ar(post.published, levantine=uses_levantine_months(post), indic_digits=True)


def _araanews_detail(post: FactCheckPost, prefix: str) -> str:
    meta = []
    if post.published:
        meta.append(f"<span class=\"posted-on\"><time class=\"entry-date published\">{_araanews_date(post)}</time></span>")
    if not hides_category(post):
        meta.append(f"<span class=\"cat-links\"><a href=\"{prefix}/category/{e(post.category)}/\" rel=\"category tag\">"
                    f"{e(category_label(post.category))}</a></span>")
    claim = (f"<div class=\"rumor-box\"><span class=\"rumor-label\">الشائعة:</span>"
             f"<p class=\"rumor-text\">{e(post.claim_text)}</p></div>\n")
    media = (f"<figure class=\"wp-block-video\"><video controls src=\"{prefix}/wp-content/uploads/{e(post.post_id)}.mp4\">"
             "</video></figure>\n") if post.multimedia else ""
    head = (f"<link rel=\"canonical\" href=\"{CANONICAL_BASE['araanews']}{e(post.path.lstrip('/'))}\">\n"
            f"<meta property=\"og:title\" content=\"{e(post.title)}\">\n")
    if has_claim_review(post):
        head += claim_review_json(post, SITE_NAMES["araanews"], broken=has_broken_json_ld(post))
    body = (
        "<main id=\"main\" class=\"site-main\">\n<article class=\"post type-post status-publish\">\n"
        f"<header class=\"entry-header\"><h1 class=\"entry-title\">{e(post.title)}</h1>\n"
        f"<div class=\"entry-meta\">{' '.join(meta)}</div></header>\n"
        f"<div class=\"entry-content\">\n{claim}{media}{paragraphs(post.body, unclosed=has_unclosed_markup(post))}</div>\n"
        "</article>\n</main>"
    )
    return html_page(post.title, head, body, site_name=SITE_NAMES["araanews"], home=f"{prefix}/")


def _araanews_listing(entries: Sequence[ListingEntry], page: int, pages: int, prefix: str) -> str:
    items = []
    for en in entries:
        date_html = (f"<time class=\"entry-date\">{indic(gregorian_ar(en.published))}</time>" if en.published else "")
        items.append(
            "<article class=\"post type-post\">"
            f"<h2 class=\"entry-title\"><a href=\"{prefix}{e(en.path)}\" rel=\"bookmark\">{e(en.title)}</a></h2>"
            f"<div class=\"entry-meta\">{date_html}</div>"
            f"<div class=\"entry-summary\"><p>{e(en.summary)}</p></div></article>"
        )
    numbers = [
        f"<span aria-current=\"page\" class=\"page-numbers current\">{indic(n)}</span>" if n == page
        else f"<a class=\"page-numbers\" href=\"{prefix}{_wp_page_path('/', n)}\">{indic(n)}</a>"
        for n in range(1, pages + 1)
    ]
    if page < pages:
        numbers.append(f"<a class=\"next page-numbers\" href=\"{prefix}{_wp_page_path('/', page + 1)}\">التالي</a>")
    body = ("<main id=\"main\" class=\"site-main\">\n" + "\n".join(items) +
            "\n<nav class=\"navigation pagination\"><div class=\"nav-links\">" + "".join(numbers) + "</div></nav>\n</main>")
    return html_page("الرئيسية", "", body, site_name=SITE_NAMES["araanews"], home=f"{prefix}/")


# -- Dabegad (Egypt): WordPress, Arabic category slugs, <article> teasers, post text in div.entry ----
# Evidence (../shared/real-sites.md): wp-content uploads, percent-encoded Arabic category slugs
# paginated as <category>/page/N/, about 10 <article> per listing page, text read from div.entry.
# The theme's other classes (entry-title, next page-numbers, blockquote claim) are WordPress
# defaults we assume, not evidence.

#: The rumours category, as WordPress writes an Arabic slug (شائعات).
DABEGAD_CATEGORY = "/category/%d8%b4%d8%a7%d8%a6%d8%b9%d8%a7%d8%aa/"


def _dabegad_detail(post: FactCheckPost, prefix: str) -> str:
    date_html = ""
    if post.published:
        date_html = (f"<time class=\"entry-date published\" datetime=\"{post.published.isoformat()}T09:00:00+02:00\">"
                     f"{gregorian_ar(post.published)}</time>")
    cat = "" if hides_category(post) else (
        f"<span class=\"cat-links\"><a href=\"{prefix}/category/{e(post.category)}/\" rel=\"category tag\">"
        f"{e(category_label(post.category))}</a></span>")
    claim = f"<blockquote><p>{e(post.claim_text)}</p></blockquote>\n"
    media = (f"<p><iframe width=\"640\" height=\"360\" src=\"https://www.youtube.com/embed/"
             f"{e(post.post_id)}\" allowfullscreen></iframe></p>\n") if post.multimedia else ""
    head = f"<link rel=\"canonical\" href=\"{CANONICAL_BASE['dabegad']}{e(post.path.lstrip('/'))}\">\n"
    body = (
        f"<div id=\"content\"><article class=\"post type-post\"><h1 class=\"entry-title\">{e(post.title)}</h1>"
        f"<div class=\"post-meta\">{date_html} {cat}</div>\n"
        f"<div class=\"entry\">\n{media}{claim}{paragraphs(post.body, unclosed=has_unclosed_markup(post))}"
        "</div>\n</article></div>"
    )
    return html_page(post.title, head, body, site_name=SITE_NAMES["dabegad"], home=f"{prefix}/")


def _dabegad_listing(entries: Sequence[ListingEntry], page: int, pages: int, prefix: str) -> str:
    items = []
    for en in entries:
        date_html = f"<time class=\"entry-date\">{gregorian_ar(en.published)}</time>" if en.published else ""
        items.append(
            "<article class=\"post type-post\">"
            f"<h2 class=\"entry-title\"><a href=\"{prefix}{e(en.path)}\" rel=\"bookmark\">{e(en.title)}</a></h2>"
            f"<div class=\"post-meta\">{date_html}</div><div class=\"entry\"><p>{e(en.summary)}</p></div></article>"
        )
    nav = [f"<span class=\"page-numbers current\">{page}</span>"]
    if page < pages:
        nxt = f"{prefix}{_wp_page_path(DABEGAD_CATEGORY, page + 1)}"
        nav.append(f"<a class=\"page-numbers\" href=\"{nxt}\">{page + 1}</a>"
                   f"<a class=\"next page-numbers\" href=\"{nxt}\">&laquo;</a>")
    body = ("<div id=\"content\"><h1 class=\"page-title\">شائعات</h1>\n" + "\n".join(items) +
            f"\n<div class=\"pagination\">{''.join(nav)}</div></div>")
    return html_page("شائعات", "", body, site_name=SITE_NAMES["dabegad"], home=f"{prefix}/")


# -- Norumors (Saudi Arabia): BEM classes, rumours on the home page, Hijri dates ------------------
# Evidence: the home page lists div.rumor__meta with the title in an h2 and categories as li of a
# ul. Everything else (the link inside the h2, ?page=N pagination, the claim page's markup and
# URL scheme) is ours, in the same BEM style, and unverified.

def _norumors_detail(post: FactCheckPost, prefix: str) -> str:
    meta = []
    if post.published:
        meta.append(f"<span class=\"rumor__date\">{hijri_ar(post.published)}</span>")
    meta.append(f"<ul class=\"rumor__categories\"><li>{e(category_label(post.category))}</li></ul>")
    statement = f"<div class=\"rumor__text\"><h2>الشائعة</h2><p>{e(post.claim_text)}</p></div>\n"
    media = (f"<div class=\"rumor__media\"><img src=\"{prefix}/uploads/{e(post.post_id)}.jpg\" alt=\"{e(post.title)}\"></div>\n"
             if post.multimedia else "")
    head = f"<link rel=\"canonical\" href=\"{CANONICAL_BASE['norumors']}{e(post.path.lstrip('/'))}\">\n"
    if has_claim_review(post):
        head += claim_review_json(post, "هيئة مكافحة الشائعات")
    body = (
        "<section class=\"rumor rumor--single\">\n"
        f"<h1 class=\"rumor__title\">{e(post.title)}</h1>\n<div class=\"rumor__meta\">{''.join(meta)}</div>\n"
        f"{media}{statement}<div class=\"rumor__truth\"><h2>الحقيقة</h2>\n{paragraphs(post.body, unclosed=has_unclosed_markup(post))}</div>\n"
        "</section>"
    )
    return html_page(post.title, head, body, site_name=SITE_NAMES["norumors"], home=f"{prefix}/")


def _norumors_listing(entries: Sequence[ListingEntry], page: int, pages: int, prefix: str) -> str:
    cards = []
    for en in entries:
        date_html = f"<span class=\"rumor__date\">{hijri_ar(en.published)}</span>" if en.published else ""
        cards.append(f"<div class=\"rumor\"><div class=\"rumor__meta\"><h2><a href=\"{prefix}{e(en.path)}\">"
                     f"{e(en.title)}</a></h2>{date_html}<ul><li>شائعة</li></ul></div></div>")
    links = []
    if page > 1:
        links.append(f"<a class=\"pagination__prev\" href=\"{prefix}{_query_page_path('/', page - 1)}\">السابق</a>")
    if page < pages:
        links.append(f"<a class=\"pagination__next\" href=\"{prefix}{_query_page_path('/', page + 1)}\">التالي</a>")
    body = ("<section class=\"rumors\">\n" + "\n".join(cards) +
            f"\n<nav class=\"pagination\">{''.join(links)}</nav></section>")
    return html_page("الشائعات", "", body, site_name=SITE_NAMES["norumors"], home=f"{prefix}/")


def _query_page_path(base: str, page: int) -> str:
    """``base`` for page 1, ``base?page=N`` after (Norumors; unverified)."""
    return base if page == 1 else f"{base}?page={page}"


def _wp_page_path(base: str, page: int) -> str:
    """``base`` for page 1, ``base + 'page/N/'`` after (WordPress pagination)."""
    return base if page == 1 else f"{base}page/{page}/"


@dataclass(frozen=True)
class _Theme:
    listing_base: str
    detail: Callable[[FactCheckPost, str], str]
    listing: Callable[[Sequence[ListingEntry], int, int, str], str]
    page_path: Callable[[str, int], str]


THEMES: dict[str, _Theme] = {
    "araanews": _Theme("/", _araanews_detail, _araanews_listing, _wp_page_path),
    "dabegad": _Theme(DABEGAD_CATEGORY, _dabegad_detail, _dabegad_listing, _wp_page_path),
    "norumors": _Theme("/", _norumors_detail, _norumors_listing, _query_page_path),
}


def listing_entry(post: FactCheckPost) -> ListingEntry:
    summary = post.body[0] if post.body else post.title
    return ListingEntry(post.path, post.title, summary[:160], post.published)


def render_listings(
    site: str, entries: Sequence[ListingEntry], out_dir: Path, *, prefix: str, per_page: int = POSTS_PER_PAGE
) -> tuple[str, ...]:
    """Write the paginated listing of ``entries`` (newest first); return the listing paths."""
    theme = THEMES[site]
    pages = max(1, -(-len(entries) // per_page))
    paths = []
    for n in range(1, pages + 1):
        path = theme.page_path(theme.listing_base, n)
        write_page(out_dir, path, theme.listing(entries[(n - 1) * per_page: n * per_page], n, pages, prefix))
        paths.append(path)
    return tuple(paths)


def newest_first(posts: Sequence[FactCheckPost]) -> list[FactCheckPost]:
    """Listing order: newest first; undated posts where the world placed them (by id)."""
    return sorted(posts, key=lambda p: (p.published or date.min, p.post_id), reverse=True)


def render_fact_check_site(
    world: World, site: str, out_dir: Path, *, extra_entries: Sequence[ListingEntry] = (), per_page: int = POSTS_PER_PAGE
) -> SiteRender:
    """Write one site's detail pages and listings into ``out_dir`` (the site's own directory).

    ``extra_entries`` (links to pages that are not posts: removed, failing, disallowed) are
    appended to the oldest listing page, where a full crawl meets them and an incremental one,
    which stops at the first all-known page, does not.
    """
    if site not in THEMES:
        raise ValueError(f"unknown fact-checking site {site!r}; expected one of {sorted(THEMES)}")
    prefix = f"/{site}"
    posts = newest_first(world.posts_of(site))
    for post in posts:
        write_page(out_dir, post.path, THEMES[site].detail(post, prefix))
    entries = [listing_entry(p) for p in posts] + list(extra_entries)
    listings = render_listings(site, entries, out_dir, prefix=prefix, per_page=per_page)
    return SiteRender(listing_paths=listings, detail_paths=tuple(p.path for p in posts))
