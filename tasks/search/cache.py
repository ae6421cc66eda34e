"""Search results cached in the warehouse, and the daily query budget of metered backends.

A query is identified by (backend, query text, date window, number of results); a re-run finds
its results in ``search_cache`` and sends nothing, so resuming a failed run spends no quota. The
local index is identified by its build too (:func:`cache_name`): a rebuilt index is searched
afresh, and the earlier build's answers stay stored.
Metered backends (the web APIs) count the requests they bill per UTC day in ``search_usage``
(column ``queries``; a request is one page of results, so a query of ``results_per_query`` 30 on
Google is 3; rows written before this counted queries, the same under the default 10 results):
a query's most requests are reserved before it is sent (so parallel workers stay within the
budget) and those not billed are refunded; when the day's budget is spent,
:class:`SearchBudgetExceeded` says so before anything is sent.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

from arastance.base.ids import stable_id
from arastance.logging import get_logger
from tasks.search.base import BilledBackend, DateWindow, SearchBackend, SearchBudgetExceeded, SearchResult
from warehouse import Warehouse
from warehouse.retrieval import add_queries_used, cached_results, queries_used, release_queries_used, store_results

log = get_logger(__name__)


def utc_today() -> date:
    return datetime.now(timezone.utc).date()


def cache_key(backend: str, query_text: str, window: DateWindow | None, num: int) -> str:
    """The cache key of one query (whitespace differences do not make a new query)."""
    return stable_id(backend, " ".join(query_text.split()), window and window.start, window and window.end, num)


def cache_name(backend: SearchBackend) -> str:
    """The name a backend's answers are cached under: its ``cache_name`` when it has one (the local
    index's names its build, :attr:`tasks.search.local.LocalIndex.cache_name`), else its name. A
    web engine's answers are its own whatever the day; an index's are those of one build."""
    return getattr(backend, "cache_name", backend.name)


def requests_per_query(backend: SearchBackend, num: int) -> int:
    """Requests one query of ``num`` results reserves: its pages (1 for a backend that does not say)."""
    return backend.max_requests(num) if isinstance(backend, BilledBackend) else 1


def requests_answered(backend: SearchBackend) -> int | None:
    """Requests ``backend`` had answered in this thread so far; None for a backend that does not count them."""
    return backend.requests_answered() if isinstance(backend, BilledBackend) else None


def reserve_queries(wh: Warehouse, backend: SearchBackend, n: int, daily_budget: int, day: date | None = None,
                    *, per_query: int = 1) -> None:
    """Count ``n`` billed requests against today's budget before sending them, or refuse all of them;
    ``per_query`` (a query's requests, :func:`requests_per_query`) only explains a refusal.

    The day's count is read and the reservation added in one transaction: on a DuckLake, two hosts'
    reservations would otherwise read the same count and both reserve past the budget."""
    if not backend.metered or n <= 0:
        return
    day = day or utc_today()
    with wh.transaction():
        used = queries_used(wh, backend.name, day)
        if used + n > daily_budget:
            pages = f", each query up to {per_query} pages" if per_query > 1 else ""
            raise SearchBudgetExceeded(
                f"daily query budget of {daily_budget} (counted in billed requests: pages of results) for backend "
                f"{backend.name!r} is spent on "
                f"{day} (UTC; {used} sent, {n} more needed{pages}); raise search.daily_query_budget "
                "(ARASTANCE_SEARCH__DAILY_QUERY_BUDGET) or run again tomorrow (UTC; the API's own quota may "
                "reset at another hour: Google's at midnight Pacific time)"
            )
        add_queries_used(wh, backend.name, day, n)


def refund_queries(wh: Warehouse, backend: str, n: int, day: date | None = None) -> None:
    """Give back ``n`` reserved requests that were not billed (failed, or never sent after a
    failure); a negative ``n`` counts the requests billed beyond the reservation.

    Reserving a claim's requests before sending them keeps parallel workers within the budget;
    settling them after makes the day's count what was actually billed.
    """
    if n < 0:
        add_queries_used(wh, backend, day or utc_today(), -n)
    else:
        release_queries_used(wh, backend, day or utc_today(), n)


def cached_search(wh: Warehouse, backend: SearchBackend, query_text: str, window: DateWindow | None, num: int,
                  *, daily_budget: int) -> tuple[list[SearchResult], bool]:
    """Results of one query and whether they came from the cache (single-process use)."""
    key = cache_key(cache_name(backend), query_text, window, num)
    found = cached_results(wh, [key])
    if key in found:
        return [SearchResult.from_json(r) for r in found[key]], True
    reserved = requests_per_query(backend, num) if backend.metered else 0
    reserve_queries(wh, backend, reserved, daily_budget, per_query=reserved)
    before = requests_answered(backend)
    try:
        results = backend.search(query_text, window, num)
    except Exception:
        refund_queries(wh, backend.name, reserved - _billed(backend, before, 0))
        raise
    if backend.metered:
        refund_queries(wh, backend.name, reserved - _billed(backend, before, 1))
    remember(wh, backend.name, query_text, window, num, results, key=key)
    return results, False


def _billed(backend: SearchBackend, before: int | None, answered: int) -> int:
    """Requests billed since ``before`` (:func:`requests_answered`); ``answered`` queries for a
    backend that does not count its requests."""
    after = requests_answered(backend)
    return answered if before is None or after is None else after - before


def remember(wh: Warehouse, backend: str, query_text: str, window: DateWindow | None, num: int,
             results: list[SearchResult], *, key: str | None = None) -> str:
    """Store one query's results in the cache under ``key`` (the one it was looked up under, from
    the backend's :func:`cache_name`; by default its name's); returns the key. The row names the
    backend by its name, whatever the key."""
    key = key or cache_key(backend, query_text, window, num)
    store_results(wh, cache_key=key, backend=backend, query_text=query_text,
                  window_start=window and window.start, window_end=window and window.end, num=num,
                  results=[r.to_json() for r in results])
    return key
