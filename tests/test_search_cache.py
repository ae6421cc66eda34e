"""Cached search and the daily budget, in a real warehouse file; keys never leak."""

from __future__ import annotations

import logging
from datetime import date

import pytest
from helpers_search import ApiServer, Reply, brave_body, brave_error
from pydantic import SecretStr

from arastance.config import load_settings
from tasks.search.base import DateWindow, SearchAuthError, SearchBudgetExceeded, SearchError, SearchResult
from tasks.search.brave import BraveSearch
from tasks.search.cache import cache_key, cached_search, reserve_queries, utc_today
from tasks.search.factory import make_backend
from tasks.search.keys import resolve_key
from warehouse import Warehouse
from warehouse.retrieval import queries_used

KEY = "BSA-secret-token-98765-DO-NOT-LEAK"
WINDOW = DateWindow(date(2016, 1, 1), date(2016, 3, 31))


class CountingBackend:
    name = "counting"
    metered = True

    def __init__(self) -> None:
        self.calls: list[str] = []

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        self.calls.append(query_text)
        return [SearchResult(f"https://x.example/{len(self.calls)}", "عنوان", None, date(2016, 2, 1), 1)]


def test_second_identical_query_is_served_from_the_cache(warehouse: Warehouse) -> None:
    backend = CountingBackend()
    first, cached1 = cached_search(warehouse, backend, "سد  النهضة", WINDOW, 10, daily_budget=5)
    again, cached2 = cached_search(warehouse, backend, "سد النهضة", WINDOW, 10, daily_budget=5)
    other, cached3 = cached_search(warehouse, backend, "سد النهضة", None, 10, daily_budget=5)
    assert (cached1, cached2, cached3) == (False, True, False)
    assert again == first and other != first
    assert backend.calls == ["سد  النهضة", "سد النهضة"]
    assert queries_used(warehouse, "counting", utc_today()) == 2


def test_budget_is_enforced_per_day_with_a_clear_error(warehouse: Warehouse) -> None:
    backend = CountingBackend()
    cached_search(warehouse, backend, "a", None, 10, daily_budget=2)
    cached_search(warehouse, backend, "b", None, 10, daily_budget=2)
    with pytest.raises(SearchBudgetExceeded, match=r"daily query budget of 2 .*'counting'.*DAILY_QUERY_BUDGET"):
        cached_search(warehouse, backend, "c", None, 10, daily_budget=2)
    assert backend.calls == ["a", "b"]
    cached_search(warehouse, backend, "a", None, 10, daily_budget=2)  # cached: costs nothing
    reserve_queries(warehouse, backend, 2, 2, day=date(2030, 1, 1))  # another day starts afresh
    assert queries_used(warehouse, "counting", date(2030, 1, 1)) == 2


def test_cache_key_depends_on_every_part() -> None:
    base = cache_key("brave", "q", WINDOW, 10)
    assert base == cache_key("brave", " q ", WINDOW, 10)
    assert len({base, cache_key("google", "q", WINDOW, 10), cache_key("brave", "q", None, 10),
                cache_key("brave", "q", WINDOW, 20)}) == 4


def test_key_never_reaches_logs_errors_or_warehouse(warehouse: Warehouse, caplog: pytest.LogCaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG)
    answers = iter([Reply(body=brave_body("q", 0, 3, 3)),
                    Reply(429, brave_error(429, "RATE_LIMITED", f"slow down {KEY}"), {"Retry-After": "0"}),
                    Reply(401, brave_error(401, "SUBSCRIPTION_TOKEN_INVALID", f"token {KEY} revoked"))])
    server = ApiServer(lambda r: next(answers))
    with server.running():
        monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
        monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY)
        monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_ENDPOINT", server.url + "/res/v1/web/search")
        backend = make_backend(load_settings())
        cached_search(warehouse, backend, "سد النهضة", None, 3, daily_budget=10)
        with pytest.raises(SearchError) as err:
            cached_search(warehouse, backend, "الكوليرا", None, 3, daily_budget=10)
    assert server.requests[0].headers["x-subscription-token"] == KEY
    warehouse.con.execute("CHECKPOINT")
    assert KEY.encode() not in warehouse.path.read_bytes()
    assert KEY not in str(err.value) and KEY not in repr(err.value) and KEY not in repr(backend)
    assert "****" in str(err.value)
    assert KEY not in caplog.text
    assert isinstance(err.value, SearchAuthError)


def test_missing_key_names_the_setting() -> None:
    with pytest.raises(SearchAuthError, match="ARASTANCE_SEARCH__GOOGLE_API_KEY or search.google_api_key_block"):
        resolve_key(None, None, "search.google_api_key")
    assert resolve_key(SecretStr("k1"), None, "search.google_api_key").get_secret_value() == "k1"


def test_brave_backend_from_settings_uses_endpoint_and_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY)
    backend = make_backend(load_settings())
    assert isinstance(backend, BraveSearch) and backend.endpoint == "https://api.search.brave.com/res/v1/web/search"
