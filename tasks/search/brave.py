"""Brave Search API (web search) as a search backend.

API: ``GET https://api.search.brave.com/res/v1/web/search`` with header
``X-Subscription-Token``; ``q``, ``count`` (<= 20), ``offset`` (page number, <= 9) and
``freshness=YYYY-MM-DDtoYYYY-MM-DD``; results in ``web.results[]`` (``url``, ``title``,
``description``, ``page_age``); 429 answers carry ``X-RateLimit-*`` headers.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, SearchAuthError, SearchResult
from tasks.search.http import JsonClient

PAGE_SIZE = 20
MAX_OFFSET = 9
_TAGS = re.compile(r"</?strong>")


def describe_brave_error(response: httpx.Response) -> str:
    """``detail (code)`` from Brave's error body, or the status text."""
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return response.reason_phrase or "no error body"
    detail = str(error.get("detail") or response.reason_phrase)
    return f"{detail} ({error['code']})" if error.get("code") else detail


def _clean(text: Any) -> str | None:
    """Brave marks the query terms with ``<strong>``; the snippet is kept as plain text."""
    return _TAGS.sub("", text) if isinstance(text, str) else None


class BraveSearch:
    """Brave web search with a subscription token."""

    name = "brave"
    metered = True

    def __init__(self, api_key: str, *, endpoint: str, language: str | None = "ar",
                 http: JsonClient | None = None, **client_options: Any) -> None:
        if not api_key:
            raise SearchAuthError("Brave search needs an API key (search.brave_api_key or brave_api_key_block)")
        self._key = api_key
        self.endpoint = endpoint
        self.language = language
        self.http = http or JsonClient(self.name, [api_key], describe_brave_error, **client_options)

    def __repr__(self) -> str:
        return f"BraveSearch(endpoint={self.endpoint!r})"

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        results: list[SearchResult] = []
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        offset = 0
        while len(results) < num and offset <= MAX_OFFSET:
            page = min(PAGE_SIZE, num - len(results))
            params: dict[str, Any] = {"q": query_text, "count": page, "offset": offset}
            if window:
                params["freshness"] = f"{window.start.isoformat()}to{window.end.isoformat()}"
            if self.language:
                params["search_lang"] = self.language
            body = self.http.get(self.endpoint, params, headers)
            items = (body.get("web") or {}).get("results") or []
            for item in items:
                if not item.get("url"):
                    continue
                age = item.get("page_age")
                results.append(SearchResult(
                    url=item["url"], title=_clean(item.get("title")), snippet=_clean(item.get("description")),
                    published_date=parse_published(age).date if isinstance(age, str) else None,
                    rank=len(results) + 1,
                ))
            more = (body.get("query") or {}).get("more_results_available")
            if len(items) < page or more is False:
                break
            offset += 1
        return results[:num]
