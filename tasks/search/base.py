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


class SearchAuthError(SearchError):
    """The backend refused the credentials (never retried: waiting does not fix a bad key)."""


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


@runtime_checkable
class SearchBackend(Protocol):
    """``name`` keys the cache; ``metered`` backends count against the daily query budget."""

    name: str
    metered: bool

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        """The top ``num`` results for ``query_text`` published inside ``window`` (when given)."""
        ...
