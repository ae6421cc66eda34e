"""Google Programmable Search Engine (Custom Search JSON API) as a search backend.

API: ``GET https://www.googleapis.com/customsearch/v1?key=..&cx=..&q=..&start=..&num=..``;
at most 10 results a request (``num`` <= 10, ``start`` 1-based, ``start + num`` <= 101), a
date range as ``sort=date:r:YYYYMMDD:YYYYMMDD``, results in ``items[]`` (``link``, ``title``,
``snippet``, ``pagemap.metatags``), errors as ``{"error": {"code", "message", "errors": [..]}}``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from pydantic import SecretStr

from arastance.base.dates import parse_published
from tasks.search.base import DateWindow, RankedResults, SearchAuthError, SearchResult
from tasks.search.http import ApiLimits, JsonClient, LimitRule, api_error, require_key, result_items

PAGE_SIZE = 10
MAX_RESULTS = 100
# Meta tags that carry a publication date, most specific first.
DATE_METATAGS = ("article:published_time", "datepublished", "og:published_time", "pubdate", "date", "dc.date")


def describe_google_error(response: httpx.Response) -> str:
    """``message (reason, reason)`` from Google's error body, or the text :func:`api_error` finds."""
    error = api_error(response)
    if isinstance(error, str):
        return error
    reasons = [e.get("reason") for key in ("errors", "details") if isinstance(entries := error.get(key), list)
               for e in entries if isinstance(e, dict) and isinstance(e.get("reason"), str) and e.get("reason")]
    message = str(error.get("message") or response.reason_phrase)
    return f"{message} ({', '.join(reasons)})" if reasons else message


#: Google resets its daily quotas at midnight Pacific time.
PACIFIC = ZoneInfo("America/Los_Angeles")


def google_quota_resets(headers: httpx.Headers, now: datetime | None = None) -> str:
    """When Google's daily quota comes back: midnight Pacific time (its answer does not say).

    The wait is counted in UTC: two times of one zone subtract as wall-clock times, so on the days
    daylight saving starts or ends it would be an hour off."""
    now = (now or datetime.now(PACIFIC)).astimezone(PACIFIC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), PACIFIC)
    left = int((midnight.astimezone(timezone.utc) - now.astimezone(timezone.utc)).total_seconds()) // 60
    return f"Google resets the daily quota at midnight Pacific time (in {left // 60} h {left % 60:02d} min): run again then"


#: Google's answers under a limit. A daily quota is spent: 429 RESOURCE_EXHAUSTED "Queries per day"
#: (reason rateLimitExceeded), or the older 403 dailyLimitExceeded / quotaExceeded; a bad key: 400
#: API_KEY_INVALID. 403 userRateLimitExceeded and 429 "per minute" are passing rate limits.
GOOGLE_LIMITS = ApiLimits(
    key_setting="search.google_api_key (or google_api_key_block)",
    rules=(
        LimitRule("quota", 429, r"per day|dailyLimitExceeded|quotaExceeded"),
        LimitRule("quota", 403, r"per day|dailyLimitExceeded|quotaExceeded"),
        LimitRule("retry", 403, r"rateLimitExceeded"),  # userRateLimitExceeded, rateLimitExceeded: per minute/user
        LimitRule("auth", 400, r"API_KEY_INVALID|API key not valid"),
    ),
    resets=google_quota_resets,
)


def _published(item: dict[str, Any]):
    pagemap = item.get("pagemap")
    metatags = pagemap.get("metatags") if isinstance(pagemap, dict) else None
    for tags in metatags if isinstance(metatags, list) else []:
        if not isinstance(tags, dict):  # optional metadata: an odd shape just means no date
            continue
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

    def __init__(self, api_key: str | SecretStr, engine_id: str, *, endpoint: str, language: str | None = "ar",
                 http: JsonClient | None = None, **client_options: Any) -> None:
        self._key = require_key(api_key, "Google", "search.google_api_key")
        if not engine_id:
            raise SearchAuthError("Google search needs a search engine id (search.google_engine_id, the 'cx')")
        self.engine_id = engine_id
        self.endpoint = endpoint
        self.language = language
        self.http = http or JsonClient(self.name, [self._key], describe_google_error, limits=GOOGLE_LIMITS,
                                       endpoint_setting="search.google_endpoint", **client_options)

    def __repr__(self) -> str:  # the key must not show up in reprs (Prefect and tracebacks print them)
        return f"GoogleSearch(engine_id={self.engine_id!r}, endpoint={self.endpoint!r})"

    def max_requests(self, num: int) -> int:
        """Pages of :data:`PAGE_SIZE`: each a billed request."""
        return -(-min(num, MAX_RESULTS) // PAGE_SIZE)

    def requests_answered(self) -> int:
        return self.http.requests_answered()

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        num = min(num, MAX_RESULTS)
        found = RankedResults()  # one per URL: pages repeat links when the ranking moves between requests
        # The offset moves by the page asked for, not by the results kept: a page of items
        # without a link (or only repeats) asked for the same page again, for ever (each request a paid search).
        for offset in range(0, num, PAGE_SIZE):
            page = min(PAGE_SIZE, num - offset)
            params: dict[str, Any] = {"key": self._key.get_secret_value(), "cx": self.engine_id, "q": query_text,
                                      "start": offset + 1, "num": page}
            if window:
                params["sort"] = f"date:r:{window.start:%Y%m%d}:{window.end:%Y%m%d}"
            if self.language:
                params["lr"] = f"lang_{self.language}"
            items = result_items(self.http.get(self.endpoint, params), ("items",), self.name, "link")
            for item in items:
                found.add(item.get("link"), title=item.get("title"), snippet=item.get("snippet"),
                          published_date=_published(item))
            if len(items) < page:
                break
        return found.results[:num]
