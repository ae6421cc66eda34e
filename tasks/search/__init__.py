"""Search backends behind one interface (local BM25, Google Programmable Search, Brave), the
warehouse-backed result cache and the daily query budget."""

from tasks.search.base import (
    DateWindow,
    SearchAuthError,
    SearchBackend,
    SearchBudgetExceeded,
    SearchError,
    SearchQuotaSpent,
    SearchResult,
    SearchStopsRun,
)

__all__ = [
    "DateWindow",
    "SearchAuthError",
    "SearchBackend",
    "SearchBudgetExceeded",
    "SearchError",
    "SearchQuotaSpent",
    "SearchResult",
    "SearchStopsRun",
]
