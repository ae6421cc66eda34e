"""The generic extraction layers: what a page says about itself in standard markup.

Tried in order, after the site's own CSS selectors (which override them when they match; for the
date, only when theirs is exact: :mod:`spiders.extraction`):
schema.org ClaimReview JSON-LD, schema.org Article JSON-LD, OpenGraph and ``article:*`` meta
tags, then ``<time datetime>``. None depends on a site's theme, so a site whose markup is
unknown (Araanews, Misbar) or has changed still yields its fields. Every value comes back with
the name of the layer that gave it, stored per claim (``field_layers``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from parsel import Selector

#: The layers, in the order they are tried; "css" (the site's selectors) overrides them all.
LAYERS = ("css", "claim_review", "article_json_ld", "open_graph", "time")
ARTICLE_TYPES = {"Article", "NewsArticle", "BlogPosting", "ReportageNewsArticle", "AnalysisNewsArticle", "WebPage"}
JSON_LD = "script[type='application/ld+json']::text"
#: What CMSs wrap a script's JSON in for old XHTML parsers: ``/*<![CDATA[*/ … /*]]>*/``, ``<!-- … -->``.
_WRAPPERS = re.compile(r"^\s*(?:/\*|//)?\s*(?:<!\[CDATA\[|<!--)\s*(?:\*/)?|(?:/\*|//)?\s*(?:\]\]>|-->)\s*(?:\*/)?\s*$")
#: A UTF-16 surrogate left alone in a decoded string: JSON's ``\ud83d`` escape of half an emoji,
#: which no UTF-8 file can hold (the claim's line could not be written).
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SCHEMA_ORG = re.compile(r"^https?://schema\.org/")


def _collapse(text: object) -> str:
    return " ".join(str(text).split())


def _types(node: dict[str, Any]) -> set[str]:
    """The node's ``@type``s, a full ``http://schema.org/ClaimReview`` read as ``ClaimReview``."""
    kind = node.get("@type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    return {_SCHEMA_ORG.sub("", str(k)) for k in kinds}


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_lone_surrogates(item) for key, item in value.items()}
    return value


def _parse_block(block: str) -> Any:
    """One JSON-LD block as browsers and Google read it: inside its CDATA or comment wrapper, with
    raw line breaks and tabs allowed in strings (CMSs write a multi-line post's text as it is)."""
    return _without_lone_surrogates(json.loads(_WRAPPERS.sub("", block), strict=False))


def json_ld_nodes(sel: Selector) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object on the page (``@graph``, lists and a node's ``review`` flattened: an
    Article may carry its ClaimReview there), in document order. A block that is broken, or nested
    deeper than Python's recursion limit lets it be read (``RecursionError``: a hostile page's
    100,000 ``[``), is skipped; the walk keeps its own stack for the same reason."""
    for block in sel.css(JSON_LD).getall():
        try:
            stack = [_parse_block(block)]
        except (ValueError, RecursionError):
            continue
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(reversed(node))
            elif isinstance(node, dict):
                yield node
                stack.extend((node.get("review", []), node.get("@graph", [])))


def _name(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name")
    return _collapse(value) if value else None


def claim_review_fields(sel: Selector) -> dict[str, str]:
    """claim, verdict, published and reviewer from the first ClaimReview."""
    for node in json_ld_nodes(sel):
        if "ClaimReview" not in _types(node):
            continue
        rating = node.get("reviewRating") or {}
        if isinstance(rating, list):  # several ratings: the first is the review's own
            rating = rating[0] if rating else {}
        verdict = (rating.get("alternateName") or rating.get("ratingValue")) if isinstance(rating, dict) else rating
        item = node.get("itemReviewed") if isinstance(node.get("itemReviewed"), dict) else {}
        found = {"claim": _name(node.get("claimReviewed")), "verdict": _collapse(verdict) if verdict not in (None, "") else None,
                 "published": node.get("datePublished") or item.get("datePublished"), "author": _name(node.get("author"))}
        return {k: str(v) for k, v in found.items() if v}
    return {}


def article_fields(sel: Selector) -> dict[str, str]:
    """title, body, published and category from the first schema.org Article (or WebPage)."""
    for node in json_ld_nodes(sel):
        if not _types(node) & ARTICLE_TYPES:
            continue
        section = node.get("articleSection")
        found = {"title": node.get("headline") or node.get("name"), "body": node.get("articleBody"),
                 "published": node.get("datePublished"),
                 "category": section[0] if isinstance(section, list) and section else section}
        out = {k: (str(v).strip() if k == "body" else _collapse(v)) for k, v in found.items() if v}
        if out:
            return out
    return {}


def open_graph_fields(sel: Selector) -> dict[str, str]:
    """title, published and category from OpenGraph / ``article:*`` meta tags."""
    def meta(*names: str) -> str | None:
        for name in names:
            value = sel.css(f"meta[property='{name}']::attr(content), meta[name='{name}']::attr(content)").get()
            if value and value.strip():
                return _collapse(value)
        return None

    found = {"title": meta("og:title", "twitter:title"),
             "published": meta("article:published_time", "og:article:published_time", "datePublished"),
             "category": meta("article:section")}
    return {k: v for k, v in found.items() if v}


def time_fields(sel: Selector) -> dict[str, str]:
    """published from the first ``<time datetime>`` inside the main content (else anywhere)."""
    value = (sel.css("article time::attr(datetime), main time::attr(datetime)").get()
             or sel.css("time::attr(datetime)").get())
    return {"published": value.strip()} if value and value.strip() else {}


def generic_fields(sel: Selector, claim_review: dict[str, str] | None = None) -> dict[str, list[tuple[str, str]]]:
    """``{field: [(value, layer), ...]}``: each generic layer's value of a field, in the order the
    layers are tried. The first wins, but a date a layer gives only roughly may be exact in the next.

    ``claim_review``: the page's ClaimReview fields when the caller has already read them.
    """
    out: dict[str, list[tuple[str, str]]] = {}
    review = claim_review_fields(sel) if claim_review is None else claim_review
    for layer, fields in (("claim_review", review), ("article_json_ld", article_fields(sel)),
                          ("open_graph", open_graph_fields(sel)), ("time", time_fields(sel))):
        for name, value in fields.items():
            out.setdefault(name, []).append((value, layer))
    return out
