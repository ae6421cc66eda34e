"""The one interface every search backend offers, and the records it returns.

A backend answers ``search(query_text, window, num)`` with ranked :class:`SearchResult` s. The
retrieval flow, the cache and the document filter only see this interface, so the offline BM25
index and the two web APIs are interchangeable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Protocol, runtime_checkable


class SearchError(RuntimeError):
    """A backend could not answer a query; the message names the backend and the reason."""


class SearchStopsRun(SearchError):
    """An answer that every later request of the run would get too (a refused key, a spent quota):
    the run stops at the first, instead of sending one more request per claim to be refused."""


class SearchAuthError(SearchStopsRun):
    """The backend refused the credentials (never retried: waiting does not fix a bad key)."""


class SearchQuotaSpent(SearchStopsRun):
    """The API's own quota (daily, monthly, the plan's searches) is spent: never retried, since
    nothing comes back before the reset the message names."""


class SearchBudgetExceeded(SearchError):
    """Today's query budget for a metered backend is spent; nothing more is sent until tomorrow."""


@dataclass(frozen=True, slots=True)
class DateWindow:
    """Inclusive publication-date range a query is restricted to."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.start > self.end:
            raise ValueError(f"date window starts {self.start} after it ends {self.end}")

    def contains(self, day: date | None) -> bool:
        return day is not None and self.start <= day <= self.end

    @classmethod
    def of(cls, start: date | None, end: date | None) -> "DateWindow | None":
        """A window from optional bounds (as stored on a query); None when either is missing."""
        return None if start is None or end is None else cls(start, end)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit: where it is, what the engine showed, and its position (1-based)."""

    url: str
    title: str | None
    snippet: str | None
    published_date: date | None
    rank: int

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["published_date"] = self.published_date.isoformat() if self.published_date else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SearchResult":
        day = data.get("published_date")
        return cls(
            url=data["url"],
            title=data.get("title"),
            snippet=data.get("snippet"),
            published_date=date.fromisoformat(day) if day else None,
            rank=int(data["rank"]),
        )


class RankedResults:
    """One query's results across its pages, in the order found, one per URL, ranked 1, 2, ...

    A web engine repeats links across pages (its ranking moved between two requests, or a paging
    parameter was off); a repeat kept would take a rank, and a place in the top ``num``, from a
    result not seen yet. The paged web clients collect their hits here.
    """

    def __init__(self) -> None:
        self.results: list[SearchResult] = []
        self._seen: set[str] = set()

    def __len__(self) -> int:
        return len(self.results)

    def add(self, url: object, *, title: str | None, snippet: str | None, published_date: date | None) -> bool:
        """Keep a hit unless its URL is missing, not a string, or kept already; whether it was kept."""
        if not isinstance(url, str) or not url or url in self._seen:
            return False
        self._seen.add(url)
        self.results.append(SearchResult(url=url, title=title, snippet=snippet, published_date=published_date,
                                         rank=len(self.results) + 1))
        return True


@runtime_checkable
class SearchBackend(Protocol):
    """``name`` keys the cache; ``metered`` backends count against the daily query budget."""

    name: str
    metered: bool

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        """The top ``num`` results for ``query_text`` published inside ``window`` (when given)."""
        ...


@runtime_checkable
class BilledBackend(Protocol):
    """A metered web backend, billed per request (page), not per query: one query of
    ``results_per_query`` results is several requests where a page holds fewer."""

    def max_requests(self, num: int) -> int:
        """The most requests one query of ``num`` results sends (what the budget reserves)."""
        ...

    def requests_answered(self) -> int:
        """Requests answered so far by this backend in the calling thread (what the API bills)."""
        ...
