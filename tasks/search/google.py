"""Google Programmable Search Engine (Custom Search JSON API) as a search backend.

API: ``GET https://www.googleapis.com/customsearch/v1?key=..&cx=..&q=..&start=..&num=..``;
at most 10 results a request (``num`` <= 10, ``start`` 1-based, ``start + num`` <= 101), a
date range as ``sort=date:r:YYYYMMDD:YYYYMMDD``, results in ``items[]`` (``link``, ``title``,
``snippet``, ``pagemap.metatags``), errors as ``{"error": {"code", "message", "errors": [..]}}``.
"""

from __future__ import annotations

from typing import Any

import httpx

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, SearchAuthError, SearchResult
from tasks.search.http import JsonClient

PAGE_SIZE = 10
MAX_RESULTS = 100
# Meta tags that carry a publication date, most specific first.
DATE_METATAGS = ("article:published_time", "datepublished", "og:published_time", "pubdate", "date", "dc.date")


def describe_google_error(response: httpx.Response) -> str:
    """``message (reason, reason)`` from Google's error body, or the status text."""
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return response.reason_phrase or "no error body"
    reasons = [e.get("reason") for e in error.get("errors") or [] if isinstance(e, dict) and e.get("reason")]
    message = str(error.get("message") or response.reason_phrase)
    return f"{message} ({', '.join(reasons)})" if reasons else message


def _published(item: dict[str, Any]):
    for tags in (item.get("pagemap") or {}).get("metatags") or []:
        lowered = {str(k).lower(): v for k, v in tags.items()}
        for name in DATE_METATAGS:
            if isinstance(lowered.get(name), str):
                parsed = parse_published(lowered[name])
                if parsed.date:
                    return parsed.date
    return None


class GoogleSearch:
    """One Programmable Search Engine (``engine_id`` is its ``cx``), queried with ``api_key``."""

    name = "google"
    metered = True

    def __init__(self, api_key: str, engine_id: str, *, endpoint: str, language: str | None = "ar",
                 http: JsonClient | None = None, **client_options: Any) -> None:
        if not api_key:
            raise SearchAuthError("Google search needs an API key (search.google_api_key or google_api_key_block)")
        if not engine_id:
            raise SearchAuthError("Google search needs a search engine id (search.google_engine_id, the 'cx')")
        self._key = api_key
        self.engine_id = engine_id
        self.endpoint = endpoint
        self.language = language
        self.http = http or JsonClient(self.name, [api_key], describe_google_error, **client_options)

    def __repr__(self) -> str:  # the key must not show up in reprs (Prefect and tracebacks print them)
        return f"GoogleSearch(engine_id={self.engine_id!r}, endpoint={self.endpoint!r})"

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        num = min(num, MAX_RESULTS)
        results: list[SearchResult] = []
        while len(results) < num:
            page = min(PAGE_SIZE, num - len(results))
            params: dict[str, Any] = {"key": self._key, "cx": self.engine_id, "q": query_text,
                                      "start": len(results) + 1, "num": page}
            if window:
                params["sort"] = f"date:r:{window.start:%Y%m%d}:{window.end:%Y%m%d}"
            if self.language:
                params["lr"] = f"lang_{self.language}"
            items = self.http.get(self.endpoint, params).get("items") or []
            for item in items:
                if not item.get("link"):
                    continue
                results.append(SearchResult(url=item["link"], title=item.get("title"), snippet=item.get("snippet"),
                                            published_date=_published(item), rank=len(results) + 1))
            if len(items) < page:
                break
        return results[:num]
