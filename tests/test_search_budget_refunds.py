"""The daily query budget counts what was answered: failed and unsent queries are refunded."""

from __future__ import annotations

from datetime import date

import pytest

from tasks.search.base import SearchError, SearchResult
from tasks.search.batch import QuerySpec, run_claim_queries
from tasks.search.cache import cached_search, refund_queries, reserve_queries, utc_today
from warehouse import Warehouse
from warehouse.retrieval import queries_used


class FlakyBackend:
    """Answers ``good`` queries, then fails every one after."""

    name = "flaky"
    metered = True

    def __init__(self, good: int) -> None:
        self.good = good
        self.sent = 0

    def search(self, query_text: str, window: object, num: int) -> list[SearchResult]:
        self.sent += 1
        if self.sent > self.good:
            raise SearchError("flaky search: HTTP 503")
        return [SearchResult(f"https://x.example/{self.sent}", "عنوان", None, date(2016, 2, 1), 1)]


def test_a_failed_query_is_refunded(warehouse: Warehouse) -> None:
    backend = FlakyBackend(good=1)
    cached_search(warehouse, backend, "سد النهضة", None, 5, daily_budget=10)
    with pytest.raises(SearchError):
        cached_search(warehouse, backend, "الكوليرا", None, 5, daily_budget=10)
    assert queries_used(warehouse, "flaky", utc_today()) == 1


def test_a_claim_search_stopped_by_a_failure_gives_back_what_it_did_not_use(warehouse: Warehouse) -> None:
    specs = [QuerySpec(f"q{i}", ("claim",), f"نص {i}", None, None, f"key{i}") for i in range(5)]
    reserve_queries(warehouse, FlakyBackend(0), len(specs), daily_budget=5)  # the flow reserves the claim's queries
    search = run_claim_queries("c1", specs, 5, FlakyBackend(good=2))
    assert (len(search.results), search.reserved, search.unanswered) == (2, 5, 3) and search.error
    refund_queries(warehouse, "flaky", search.unanswered)
    assert queries_used(warehouse, "flaky", utc_today()) == 2
    refund_queries(warehouse, "flaky", 10)  # never below zero
    assert queries_used(warehouse, "flaky", utc_today()) == 0
