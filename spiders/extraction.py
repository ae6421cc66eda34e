"""Field extraction from listing and detail pages, driven by a :class:`SiteConfig`.

Plain functions of (HTML text, URL, configuration) so that the spiders and ``arastance
reparse`` (which re-runs extraction over stored raw HTML) share one implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, tzinfo
from itertools import chain

from parsel import Selector, SelectorList

from arastance.base.dates import parse_published, preferred_date
from arastance.base.sites import SiteConfig
from arastance.base.staging import DetailFields
from spiders.layers import claim_review_fields, generic_fields
from spiders.site_urls import SiteUrls


class ExtractionError(ValueError):
    """A detail page lacking a required field; the message names the field and its selectors."""


def parse_failure(exc: Exception) -> str:
    """The ``parse_error`` recorded for a page whose extraction raised ``exc``."""
    reason = str(exc) if isinstance(exc, ExtractionError) else f"{type(exc).__name__}: {exc}"
    return f"parse_failed: {reason}"


@dataclass(frozen=True)
class Listing:
    """What a listing page links to."""

    detail_urls: list[str]
    next_url: str | None


def _collapse(text: str) -> str:
    return " ".join(text.split())


#: Elements that cannot contain themselves in valid HTML; when broken markup nests one in
#: another (an unclosed ``<span>`` keeps the next ``<p>`` inside the previous one), each keeps
#: only its own text, so that no paragraph is counted twice.
_NON_NESTING = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6"}


def _own_text_xpath(element: Selector) -> str:
    tag = element.root.tag if isinstance(element.root.tag, str) else ""
    skip = "not(ancestor::script) and not(ancestor::style)"
    if tag in _NON_NESTING:
        depth = 1 + sum(1 for _ in element.root.iterancestors(tag))
        skip += f" and count(ancestor::{tag}) = {depth}"
    return f".//text()[{skip}]"


def _matches(sel: Selector, query: str) -> SelectorList[Selector]:
    return sel.xpath(query[len("xpath:"):]) if query.startswith("xpath:") else sel.css(query)


def select_texts(sel: Selector, query: str) -> list[str]:
    """Non-empty, whitespace-collapsed strings matched by one CSS or ``xpath:`` selector.

    An element match yields all of its descendant text (so ``<p>a <b>b</b></p>`` gives "a b");
    ``::text``/``::attr()`` and XPath string results yield themselves.
    """
    out: list[str] = []
    for m in _matches(sel, query):
        root = m.root
        if isinstance(root, str):
            text = root
        else:
            text = "".join(m.xpath(_own_text_xpath(m)).getall())
        text = _collapse(text)
        if text:
            out.append(text)
    return out


def first_matches(sel: Selector, queries: tuple[str, ...]) -> Iterator[str]:
    """The first match of each selector that matches anything, in the selectors' order."""
    for query in queries:
        yield from select_texts(sel, query)[:1]


def first_text(sel: Selector, queries: tuple[str, ...]) -> str | None:
    """The first match of the first selector that matches anything."""
    return next(first_matches(sel, queries), None)


def all_texts(sel: Selector, queries: tuple[str, ...]) -> list[str]:
    """Every match of the first selector that matches anything (e.g. a body's paragraphs)."""
    for query in queries:
        texts = select_texts(sel, query)
        if texts:
            return texts
    return []


def _followable(href: str, page_url: str, urls: SiteUrls) -> str | None:
    """Where to fetch the link ``href`` of ``page_url``: on the crawled base as it is spelled,
    whichever scheme or ``www.`` the link used (one page, one request); None when it is off-site."""
    url = urls.absolute(href.strip(), page_url)
    return urls.fetchable(url) if urls.on_site(url) else None


def extract_listing(html: str, page_url: str, config: SiteConfig, urls: SiteUrls) -> Listing:
    """Detail links (absolute, on the crawled site, first occurrence order) and the next page."""
    sel = Selector(text=html)
    seen: dict[str, None] = {}
    for href in sel.css(config.listing.detail_links).getall():
        url = _followable(href, page_url, urls)
        if url is not None:
            seen.setdefault(url, None)
    nxt = sel.css(config.listing.next_page).get()
    next_url = _followable(nxt, page_url, urls) if nxt and nxt.strip() else None
    if next_url == urls.fetchable(page_url):
        next_url = None
    return Listing(detail_urls=list(seen), next_url=next_url)


def _date_choice(
    candidates: Iterable[tuple[str, str]], now: datetime | None, tz: tzinfo | None
) -> tuple[str, str] | None:
    """``(raw, layer)`` of the page's date among its ``(raw, layer)`` candidates: the one
    :func:`arastance.base.dates.preferred_date` picks (the first exact date, else the first relative
    one), else the first (kept raw, unparsed). A visible date is often rough ("منذ سنتين": counted from
    an archive capture, months off) or unreadable ("منذ أسابيع") where a ``datetime`` attribute or
    ClaimReview states the day; a date is never guessed. ``tz`` is the site's time zone."""
    candidates = list(candidates)
    chosen = preferred_date([raw for raw, _ in candidates], now=now, tz=tz)
    if chosen is not None:
        return candidates[chosen[0]]
    return candidates[0] if candidates else None


def _claim_review(review: dict[str, str]) -> dict[str, str | None] | None:
    """``{"claim_reviewed", "rating", "author"}`` of the page's ClaimReview, as the warehouse keeps it."""
    if not review:
        return None
    return {"claim_reviewed": review.get("claim"), "rating": review.get("verdict"), "author": review.get("author")}


def extract_detail(
    html: str, page_url: str, config: SiteConfig, urls: SiteUrls, *, fetched_at: datetime | None = None
) -> DetailFields:
    """Every field of a detail page; raises :class:`ExtractionError` if a required one is missing.

    Each field comes from the site's CSS selectors when they match, else from the first generic
    layer that has it (:mod:`spiders.layers`); ``field_layers`` says which, per field. The date is
    the first of them (selectors in order, then layers) that is an exact date (:func:`_date_choice`),
    told on the site's calendar (``config.timezone``): a relative stamp counted from ``fetched_at`` and a
    UTC timestamp are the day they were where the site is.
    """
    sel = Selector(text=html)
    d = config.detail
    layers: dict[str, str] = {}
    generic: list[dict[str, list[tuple[str, str]]]] = []  # read once, and only when a selector misses
    review = claim_review_fields(sel)

    def generic_values(name: str) -> Iterator[tuple[str, str]]:
        if not generic:
            generic.append(generic_fields(sel, claim_review=review))
        yield from generic[0].get(name, [])

    def pick(name: str, css: str | None) -> str | None:
        if css:
            layers[name] = "css"
            return css
        for value, layer in generic_values(name):  # the first layer that has it
            layers[name] = layer
            return value
        return None

    title = pick("title", first_text(sel, d.title))
    claim = pick("claim", first_text(sel, d.claim))
    if claim is None and config.claim_fallback == "title" and title is not None:
        claim, layers["claim"] = title, f"title:{layers['title']}"
    css_paragraphs = all_texts(sel, d.body)
    body = pick("body", "\n".join(css_paragraphs) if css_paragraphs else None)
    published_raw: str | None = None
    published = _date_choice(chain(((raw, "css") for raw in first_matches(sel, d.published)),
                                   generic_values("published")), fetched_at, config.timezone)
    if published is not None:
        published_raw, layers["published"] = published
    category = pick("category", first_text(sel, d.category))
    if review.get("verdict"):
        layers["verdict"] = "claim_review"
    found = {"title": title, "claim": claim, "body": body, "published": published_raw, "category": category}
    missing = [name for name in config.required if not found[name]]
    if missing:
        detail = "; ".join(f"{name} (selectors {list(getattr(d, name))}, no generic layer)" for name in missing)
        raise ExtractionError(f"missing required field(s): {detail}")
    assert title is not None
    body_text = body or ""
    has_media = any(_matches(sel, q) for q in d.media)
    canonical_href = first_text(sel, d.canonical)
    canonical = urls.canonical(urls.absolute(canonical_href, page_url) if canonical_href else page_url)
    return DetailFields(
        url=canonical,
        title=title,
        claim_text=claim or "",
        body_text=body_text,
        published_raw=published_raw,
        published_date=parse_published(published_raw, now=fetched_at, tz=config.timezone).iso,
        category=category,
        is_multimedia=bool(has_media and len(body_text) <= config.multimedia_max_chars),
        claim_review=_claim_review(review),
        field_layers=dict(sorted(layers.items())),
    )
