"""Brave Search API (web search) as a search backend.

API: ``GET https://api.search.brave.com/res/v1/web/search`` with header
``X-Subscription-Token``; ``q``, ``count`` (<= 20), ``offset`` (page number, <= 9) and
``freshness=YYYY-MM-DDtoYYYY-MM-DD``; results in ``web.results[]`` (``url``, ``title``,
``description``, ``page_age``); 429 answers carry ``X-RateLimit-*`` headers.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
from pydantic import SecretStr

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, RankedResults, SearchResult
from tasks.search.http import ApiLimits, JsonClient, LimitRule, api_error, require_key, result_items

PAGE_SIZE = 20
MAX_OFFSET = 9
_TAGS = re.compile(r"</?strong>")


def describe_brave_error(response: httpx.Response) -> str:
    """``detail (code)`` from Brave's error body, or the text :func:`api_error` finds."""
    error = api_error(response)
    if isinstance(error, str):
        return error
    detail = str(error.get("detail") or response.reason_phrase)
    return f"{detail} ({error['code']})" if error.get("code") else detail


def _header_numbers(headers: httpx.Headers, name: str) -> list[float]:
    """A Brave ``X-RateLimit-*`` header's values, one per window, shortest window first
    (``"1, 15000"``: per second, per month); [] when absent or unreadable."""
    try:
        return [float(v) for v in headers.get(name, "").split(",") if v.strip()]
    except ValueError:
        return []


def brave_month_spent(headers: httpx.Headers) -> bool:
    """The last (monthly) ``X-RateLimit-Remaining`` is 0: the plan's queries are used up."""
    remaining = _header_numbers(headers, "x-ratelimit-remaining")
    return len(remaining) > 1 and remaining[-1] <= 0


def brave_quota_resets(headers: httpx.Headers, now: datetime | None = None) -> str:
    """When Brave's monthly quota comes back: the last ``X-RateLimit-Reset`` value, in seconds."""
    reset = _header_numbers(headers, "x-ratelimit-reset")
    if len(reset) < 2:
        return "Brave does not say when the plan's quota resets"
    when = (now or datetime.now(timezone.utc)) + timedelta(seconds=reset[-1])
    return f"Brave resets the monthly quota in {reset[-1] / 86400:.1f} day(s), at {when:%Y-%m-%d %H:%M} UTC: run again then"


def brave_pace(headers: httpx.Headers) -> float | None:
    """Seconds between requests that the per-second window allows (``X-RateLimit-Limit`` ``"1, 15000"``:
    one a second), with a tenth to spare for the clocks' drift; None when the answer does not say."""
    limit = _header_numbers(headers, "x-ratelimit-limit")
    return 1.1 / limit[0] if limit and limit[0] > 0 else None


#: Brave's answers under a limit: 429 RATE_LIMITED is the per-second window (waited out, paced),
#: 429 QUOTA_LIMITED or a monthly X-RateLimit-Remaining of 0 the month's plan spent, 401/422
#: SUBSCRIPTION_TOKEN_INVALID a bad token.
BRAVE_LIMITS = ApiLimits(
    key_setting="search.brave_api_key (or brave_api_key_block)",
    rules=(
        LimitRule("quota", 429, r"QUOTA_LIMITED"),
        LimitRule("quota", 429, headers=brave_month_spent),
        LimitRule("auth", 422, r"SUBSCRIPTION_TOKEN_INVALID"),
    ),
    resets=brave_quota_resets,
    pace=brave_pace,
)


def _clean(text: Any) -> str | None:
    """Brave marks the query terms with ``<strong>``; the snippet is kept as plain text."""
    return _TAGS.sub("", text) if isinstance(text, str) else None


class BraveSearch:
    """Brave web search with a subscription token."""

    name = "brave"
    metered = True

    def __init__(self, api_key: str | SecretStr, *, endpoint: str, language: str | None = "ar",
                 http: JsonClient | None = None, **client_options: Any) -> None:
        self._key = require_key(api_key, "Brave", "search.brave_api_key")
        self.endpoint = endpoint
        self.language = language
        self.http = http or JsonClient(self.name, [self._key], describe_brave_error, limits=BRAVE_LIMITS,
                                       endpoint_setting="search.brave_endpoint", **client_options)

    def __repr__(self) -> str:
        return f"BraveSearch(endpoint={self.endpoint!r})"

    def max_requests(self, num: int) -> int:
        """Pages of :data:`PAGE_SIZE`, at most ``MAX_OFFSET + 1``: each a billed request."""
        return min(MAX_OFFSET + 1, max(1, -(-num // PAGE_SIZE)))

    def requests_answered(self) -> int:
        return self.http.requests_answered()

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        """Pages of one fixed ``count``: Brave's ``offset`` is a page number (it skips
        offset × count results), so a last page asked with a smaller count would skip fewer and
        answer results already read. The last page is cut to ``num`` here instead."""
        found = RankedResults()
        if num < 1:
            return found.results
        headers = {"X-Subscription-Token": self._key.get_secret_value(), "Accept": "application/json"}
        count = min(PAGE_SIZE, num)
        for offset in range(MAX_OFFSET + 1):
            params: dict[str, Any] = {"q": query_text, "count": count, "offset": offset}
            if window:
                params["freshness"] = f"{window.start.isoformat()}to{window.end.isoformat()}"
            if self.language:
                params["search_lang"] = self.language
            body = self.http.get(self.endpoint, params, headers)
            items = result_items(body, ("web", "results"), self.name, "url")
            before = len(found)
            for item in items:
                age = item.get("page_age")
                found.add(item.get("url"), title=_clean(item.get("title")), snippet=_clean(item.get("description")),
                          published_date=parse_published(age).date if isinstance(age, str) else None)
            query = body.get("query")
            more = query.get("more_results_available") if isinstance(query, dict) else None
            # each page is a paid request: none after a short page, the last one, or one with nothing new
            if len(found) >= num or len(items) < count or more is False or len(found) == before:
                break
        return found.results[:num]
