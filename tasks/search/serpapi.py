"""SerpApi's Google Search engine as a search backend (Google results for those who cannot get a
Custom Search key, which Google no longer issues).

API: ``GET https://serpapi.com/search.json?engine=google&q=..&api_key=..``; ``hl`` (interface
language) and ``gl`` (country) localise the results, ``lr=lang_ar`` restricts them to Arabic
pages, ``start`` is the 0-based result offset (pages of 10; Google stopped honouring ``num`` in
2025), a date range is ``tbs=cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY``. Results are in
``organic_results[]`` (``position``, ``link``, ``title``, ``snippet``, ``date`` when Google shows
one), the next page in ``serpapi_pagination.next``. Errors are ``{"error": "..."}``: 401 for a bad
key, 429 for the hourly throughput limit *or* an account out of searches, 5xx for SerpApi's own
failures; a search that found nothing is a 200 with ``search_information.organic_results_state``
``"Fully empty"`` and an ``error`` text, which is an empty result, not a failure.
Every page answered is one search of the SerpApi plan, but for a search that failed (a 200 whose
``search_metadata.status`` is ``Error``, or whose ``error`` says the plan is spent or the key
refused): SerpApi counts no errored or failed search against the plan; and for one it answered
from its own cache (``search_metadata.status`` ``Cached``, as SerpApi's client libraries read it:
an identical search within the hour; "cached searches are free, and are not counted towards your
searches per month", its ``no_cache`` parameter says).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from pydantic import SecretStr

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, RankedResults, SearchAuthError, SearchError, SearchQuotaSpent, SearchResult
from tasks.search.http import ApiLimits, JsonClient, LimitRule, api_error, require_key

PAGE_SIZE = 10
MAX_RESULTS = 100
#: ``search_metadata.status`` of a search SerpApi answered from its cache, which it does not bill.
CACHED_STATUS = "Cached"

#: SerpApi's answers under a limit: 429 is both "slow down" (the hourly throughput limit, waited
#: out) and "the plan is used up" (not); 401 a bad key. A 200 that tells a failure, or that SerpApi
#: answered from its cache, is not billed (:func:`_billed`).
SERPAPI_LIMITS = ApiLimits(
    key_setting="search.serpapi_api_key (or serpapi_api_key_block)",
    rules=(LimitRule("quota", 429, r"run out of searches|no searches left"),),
    resets=lambda headers: "SerpApi does not say when: the plan's searches come back with its next month, "
                           "or a larger plan",
    billed=lambda body: _billed(body),
)


def describe_serpapi_error(response: httpx.Response) -> str:
    """SerpApi's ``error`` text, or the status text."""
    return str(api_error(response))


def date_range_tbs(window: DateWindow) -> str:
    """Google's custom date range as SerpApi's ``tbs`` value (US month/day/year, no zero padding)."""
    start, end = window.start, window.end
    return f"cdr:1,cd_min:{start.month}/{start.day}/{start.year},cd_max:{end.month}/{end.day}/{end.year}"


def _refused_in_200(error: str) -> SearchError | None:
    """The run-stopping error that a 200 answer's ``error`` text tells (a spent plan, a bad key), as
    the same text under 429 / 401 would; None for any other text ("Google hasn't returned any results
    for this query." is how SerpApi says a search found nothing). Cached as an empty answer, a spent
    plan made every claim after it a claim with no documents."""
    kind = SERPAPI_LIMITS.kind(429, error, httpx.Headers())
    if kind == "quota":
        return SearchQuotaSpent(f"serpapi search: HTTP 200, the API's own quota is spent: {error}; "
                                f"{SERPAPI_LIMITS.resets(httpx.Headers())}")
    if re.search(r"invalid api key", error, re.IGNORECASE):
        return SearchAuthError(f"serpapi search: HTTP 200, the API refused the request: {error}; "
                               f"check {SERPAPI_LIMITS.key_setting}")
    return None


def _failure(body: dict[str, Any]) -> SearchError | None:
    """The error a 200 answer tells instead of results, or None (results, or none found): a failed
    search (status Error) is a SearchError, one whose error says the plan is spent or the key
    refused a :class:`SearchStopsRun`. SerpApi bills none of them."""
    metadata = body.get("search_metadata")
    status = metadata.get("status") if isinstance(metadata, dict) else None
    refused = _refused_in_200(str(body.get("error") or "")) if body.get("organic_results") is None else None
    if refused is not None:
        return refused
    if status == "Error":
        return SearchError(f"serpapi search: the search failed: {body.get('error') or 'no reason given'}")
    return None


def _billed(body: dict[str, Any]) -> bool:
    """Whether SerpApi bills a 200 answer: neither a failure (:func:`_failure`) nor a search it
    answered from its cache. A run taken up again within the hour asks again the pages of the
    queries it did not finish (a redo, all of them): counted, their free answers took the day's
    budget and deferred claims."""
    metadata = body.get("search_metadata")
    cached = isinstance(metadata, dict) and metadata.get("status") == CACHED_STATUS
    return not cached and _failure(body) is None


def _results_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The organic results of a 200 answer; raises the failure it tells (:func:`_failure`)."""
    failure = _failure(body)
    if failure is not None:
        raise failure
    organic = body.get("organic_results")
    if organic is None:
        return []  # "Fully empty": Google found nothing; SerpApi says so in "error", with status Success
    if not isinstance(organic, list):
        raise SearchError(f"serpapi search: organic_results is a {type(organic).__name__}, not a list")
    return [item for item in organic if isinstance(item, dict)]


class SerpApiSearch:
    """Google through SerpApi, with an account key; ``country`` is Google's ``gl`` (None: any)."""

    name = "serpapi"
    metered = True

    def __init__(self, api_key: str | SecretStr, *, endpoint: str, language: str | None = "ar",
                 country: str | None = None, http: JsonClient | None = None, **client_options: Any) -> None:
        self._key = require_key(api_key, "SerpApi", "search.serpapi_api_key")
        self.endpoint = endpoint
        self.language = language
        self.country = country
        self.http = http or JsonClient(self.name, [self._key], describe_serpapi_error, limits=SERPAPI_LIMITS,
                                       endpoint_setting="search.serpapi_endpoint", **client_options)

    def __repr__(self) -> str:  # the key must not show up in reprs (Prefect and tracebacks print them)
        return f"SerpApiSearch(endpoint={self.endpoint!r}, country={self.country!r})"

    def _params(self, query_text: str, window: DateWindow | None, start: int) -> dict[str, Any]:
        params: dict[str, Any] = {"engine": "google", "q": query_text, "api_key": self._key.get_secret_value(), "start": start,
                                  "num": PAGE_SIZE}
        if self.language:
            params["hl"] = self.language
            params["lr"] = f"lang_{self.language}"
        if self.country:
            params["gl"] = self.country
        if window:
            params["tbs"] = date_range_tbs(window)
        return params

    def max_requests(self, num: int) -> int:
        """Pages of :data:`PAGE_SIZE`: each a search of the plan."""
        return -(-min(num, MAX_RESULTS) // PAGE_SIZE)

    def requests_answered(self) -> int:
        return self.http.requests_answered()

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        num = min(num, MAX_RESULTS)
        found = RankedResults()
        start = 0
        # Each page is a paid search: never more pages than ``num`` needs, and none after a page
        # that added nothing new (a server repeating its links and its "next" paged for ever).
        for _ in range(-(-num // PAGE_SIZE)):
            body = self.http.get(self.endpoint, self._params(query_text, window, start))
            items = _results_of(body)
            before = len(found)
            for item in items:
                shown = item.get("date")
                found.add(item.get("link"), title=item.get("title"), snippet=item.get("snippet"),
                          published_date=parse_published(shown).date if isinstance(shown, str) else None)
            pagination = body.get("serpapi_pagination")
            if len(found) == before or len(found) >= num or not (isinstance(pagination, dict) and pagination.get("next")):
                break
            start += len(items)
        return found.results[:num]
