"""A self-hosted SearXNG metasearch instance's JSON API as a search backend.

API: ``GET <instance>/search?q=..&format=json&language=ar&pageno=N`` (``format=json`` must be
enabled under ``search.formats`` in the instance's ``settings.yml``, else the answer is 403);
optional ``categories`` (e.g. ``news``), ``engines`` and ``time_range`` (``day``, ``week``,
``month``, ``year``: always counted back from today). Results are in ``results[]`` (``url``,
``title``, ``content``, ``publishedDate``, ``engine``), engines that failed in
``unresponsive_engines`` as ``[name, reason]`` pairs.

SearXNG cannot ask for a date range: a window is sent as the smallest ``time_range`` that still
covers it (none for the past years the method mostly queries), and the window is enforced
afterwards on each kept article's extracted publication date (:mod:`tasks.date_window`).
An instance needs no key; ``api_key`` is sent as a bearer token for instances put behind an
authenticating proxy. Its queries count against the daily budget like the paid APIs', because
the engines behind it (Google, Bing, ...) block an instance that sends too many.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
from pydantic import SecretStr

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, RankedResults, SearchError, SearchResult
from tasks.search.http import ApiLimits, JsonClient, clean_key

MAX_PAGES = 5
PAGE_SIZE_GUESS = 10
# time_range values and how many days back each reaches, smallest first
TIME_RANGES: tuple[tuple[str, int], ...] = (("day", 1), ("week", 7), ("month", 31), ("year", 366))


def describe_searxng_error(response: httpx.Response) -> str:
    """SearXNG answers errors in HTML or plain text; a 403 usually means JSON output is off."""
    if response.status_code == 403:
        return ("the instance refuses format=json: add 'json' to search.formats in its settings.yml "
                "(or it sits behind a proxy that wants search.searxng_api_key)")
    if response.status_code == 429:
        return "the instance's limiter refused the request (too many requests from this address)"
    return response.reason_phrase or "no reason given"


def time_range_for(window: DateWindow, today: date) -> str | None:
    """The smallest SearXNG ``time_range`` reaching back to ``window.start``; None when none does."""
    back = (today - window.start).days
    for name, days in TIME_RANGES:
        if back <= days:
            return name
    return None


class SearxngSearch:
    """One SearXNG instance (``endpoint`` is its ``/search`` URL)."""

    name = "searxng"
    metered = True

    def __init__(self, endpoint: str, *, language: str | None = "ar", categories: str | None = "general",
                 engines: str | None = None, api_key: str | SecretStr | None = None, today: date | None = None,
                 http: JsonClient | None = None, **client_options: Any) -> None:
        self.endpoint = endpoint
        self.language = language
        self.categories = categories
        self.engines = engines
        plain = clean_key(api_key, "search.searxng_api_key")
        self._key = SecretStr(plain) if plain else None
        self._today = today
        self.http = http or JsonClient(self.name, [self._key or ""], describe_searxng_error,
                                       limits=ApiLimits(key_setting="search.searxng_url and search.searxng_api_key"),
                                       endpoint_setting="search.searxng_url", **client_options)

    def __repr__(self) -> str:
        return f"SearxngSearch(endpoint={self.endpoint!r}, categories={self.categories!r})"

    def _params(self, query_text: str, window: DateWindow | None, page: int) -> dict[str, Any]:
        params: dict[str, Any] = {"q": query_text, "format": "json", "pageno": page}
        if self.language:
            params["language"] = self.language
        if self.categories:
            params["categories"] = self.categories
        if self.engines:
            params["engines"] = self.engines
        if window:
            coarse = time_range_for(window, self._today or date.today())
            if coarse:
                params["time_range"] = coarse
        return params

    def max_requests(self, num: int) -> int:
        """Pages of about :data:`PAGE_SIZE_GUESS`, at most :data:`MAX_PAGES` (an instance's page size
        depends on its engines: pages beyond the guess are counted once answered)."""
        return min(MAX_PAGES, max(1, -(-num // PAGE_SIZE_GUESS)))

    def requests_answered(self) -> int:
        return self.http.requests_answered()

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key.get_secret_value()}"
        found = RankedResults()
        for page in range(1, MAX_PAGES + 1):
            body = self.http.get(self.endpoint, self._params(query_text, window, page), headers)
            items = body.get("results")
            if not isinstance(items, list):
                raise SearchError(f"searxng search: the answer has no results list (got {type(items).__name__})")
            if not items:
                failed = [e for e in body.get("unresponsive_engines") or [] if isinstance(e, list) and e]
                if failed and page == 1:
                    # nothing found because every engine failed: not an empty result to cache
                    reasons = ", ".join(f"{e[0]} ({e[1]})" if len(e) > 1 else str(e[0]) for e in failed)
                    raise SearchError(f"searxng search: no results and engines failed: {reasons}")
                break
            for item in items:
                if not isinstance(item, dict):
                    continue
                day = item.get("publishedDate")
                found.add(item.get("url"), title=item.get("title") or None, snippet=item.get("content") or None,
                          published_date=parse_published(day).date if isinstance(day, str) and day else None)
                if len(found) >= num:
                    return found.results
        return found.results
