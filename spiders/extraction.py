"""Field extraction from listing and detail pages, driven by a :class:`SiteConfig`.

Plain functions of (HTML text, URL, configuration) so that the spiders and ``arastance
reparse`` (which re-runs extraction over stored raw HTML) share one implementation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from parsel import Selector, SelectorList

from arastance.base.dates import parse_published
from arastance.base.staging import DetailFields
from spiders.site_config import SiteConfig
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


def first_text(sel: Selector, queries: tuple[str, ...]) -> str | None:
    """The first match of the first selector that matches anything."""
    for query in queries:
        texts = select_texts(sel, query)
        if texts:
            return texts[0]
    return None


def all_texts(sel: Selector, queries: tuple[str, ...]) -> list[str]:
    """Every match of the first selector that matches anything (e.g. a body's paragraphs)."""
    for query in queries:
        texts = select_texts(sel, query)
        if texts:
            return texts
    return []


def extract_listing(html: str, page_url: str, config: SiteConfig, urls: SiteUrls) -> Listing:
    """Detail links (absolute, on the crawled site, first occurrence order) and the next page."""
    sel = Selector(text=html)
    seen: dict[str, None] = {}
    for href in sel.css(config.listing.detail_links).getall():
        url = urls.absolute(href.strip(), page_url)
        if urls.on_site(url):
            seen.setdefault(url, None)
    nxt = sel.css(config.listing.next_page).get()
    next_url = urls.absolute(nxt.strip(), page_url) if nxt and nxt.strip() else None
    if next_url is not None and (not urls.on_site(next_url) or next_url == page_url):
        next_url = None
    return Listing(detail_urls=list(seen), next_url=next_url)


def _find_claim_review(node: Any) -> dict[str, Any] | None:
    if isinstance(node, list):
        for item in node:
            found = _find_claim_review(item)
            if found:
                return found
        return None
    if not isinstance(node, dict):
        return None
    kind = node.get("@type")
    if kind == "ClaimReview" or (isinstance(kind, list) and "ClaimReview" in kind):
        return node
    return _find_claim_review(node.get("@graph", []))


def _name(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name")
    return _collapse(str(value)) if value else None


def parse_claim_review(json_ld_blocks: list[str]) -> dict[str, str | None] | None:
    """``{"claim_reviewed", "rating", "author"}`` from the first schema.org ClaimReview found.

    Blocks that are not valid JSON are skipped: a broken JSON-LD block is common and must not
    cost the rest of the page.
    """
    for block in json_ld_blocks:
        try:
            data = json.loads(block)
        except ValueError:
            continue
        review = _find_claim_review(data)
        if review is None:
            continue
        rating = review.get("reviewRating") or {}
        if isinstance(rating, dict):
            rating_text = rating.get("alternateName") or rating.get("ratingValue")
        else:
            rating_text = rating
        return {
            "claim_reviewed": _name(review.get("claimReviewed")),
            "rating": _collapse(str(rating_text)) if rating_text not in (None, "") else None,
            "author": _name(review.get("author")),
        }
    return None


def extract_detail(
    html: str, page_url: str, config: SiteConfig, urls: SiteUrls, *, fetched_at: datetime | None = None
) -> DetailFields:
    """Every field of a detail page; raises :class:`ExtractionError` if a required one is missing."""
    sel = Selector(text=html)
    d = config.detail
    title = first_text(sel, d.title)
    claim = first_text(sel, d.claim)
    if claim is None and config.claim_fallback == "title":
        claim = title
    paragraphs = all_texts(sel, d.body)
    published_raw = first_text(sel, d.published)
    category = first_text(sel, d.category)
    found = {"title": title, "claim": claim, "body": paragraphs, "published": published_raw, "category": category}
    missing = [name for name in config.required if not found[name]]
    if missing:
        detail = "; ".join(f"{name} (selectors {list(getattr(d, name))})" for name in missing)
        raise ExtractionError(f"missing required field(s): {detail}")
    assert title is not None
    body_text = "\n".join(paragraphs)
    has_media = any(_matches(sel, q) for q in d.media)
    canonical_href = first_text(sel, d.canonical)
    canonical = urls.canonical(urls.absolute(canonical_href, page_url) if canonical_href else page_url)
    return DetailFields(
        url=canonical,
        title=title,
        claim_text=claim or "",
        body_text=body_text,
        published_raw=published_raw,
        published_date=parse_published(published_raw, now=fetched_at).iso,
        category=category,
        is_multimedia=bool(has_media and len(body_text) <= config.multimedia_max_chars),
        claim_review=parse_claim_review(sel.css(d.json_ld).getall()),
    )
