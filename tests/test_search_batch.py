"""A claim's searches: the first failure of any kind stops that claim, and what came back is kept."""

from tasks.search.base import DateWindow, SearchResult
from tasks.search.batch import QuerySpec, run_claim_queries

SECRET = "AIza-do-not-print"


class _Flaky:
    """Answers the first query, then breaks the way a backend bug would (message holds the key)."""

    name = "flaky"
    metered = True

    def __init__(self) -> None:
        self.calls = 0

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        self.calls += 1
        if self.calls > 1:
            raise KeyError(f"items missing in reply to key={SECRET}")
        return [SearchResult(url="https://youm7.com/a", title="t", snippet="s", published_date=None, rank=1)]


def _query(n: int) -> QuerySpec:
    return QuerySpec(f"q{n}", ("claim",), f"نص {n}", None, None, f"key{n}")


def test_a_backend_bug_ends_the_claim_keeps_earlier_results_and_never_shows_the_message() -> None:
    backend = _Flaky()
    out = run_claim_queries("c1", [_query(1), _query(2), _query(3)], 10, backend)
    assert backend.calls == 2  # the third query is not sent
    assert list(out.results) == ["key1"] and out.results["key1"][0]["url"] == "https://youm7.com/a"
    assert out.error == "KeyError in the flaky backend"
    assert SECRET not in out.error
