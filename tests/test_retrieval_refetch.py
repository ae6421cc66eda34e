"""A claim whose kept document failed to fetch for a passing reason is not done: a re-run retries it."""

from datetime import datetime

from warehouse import Warehouse
from warehouse.retrieval import claims_with_failed_fetches

T = datetime(2016, 5, 1)


def test_only_passing_fetch_failures_keep_a_claim_open(warehouse: Warehouse) -> None:
    docs = {  # claim -> (canonical url, fetch status, http status, fetch error)
        "c-ok": ("https://youm7.com/1", "ok", 200, None),
        "c-503": ("https://youm7.com/2", "failed", 503, "http_503: HTTP 503"),
        "c-timeout": ("https://youm7.com/3", "failed", None, "timeout: TimeoutError"),
        "c-404": ("https://youm7.com/4", "failed", 404, "http_404: HTTP 404"),
        # final without a status: they were fetched again on every run
        "c-large": ("https://youm7.com/5", "failed", None, "too_large: the page passed 4,194,304 bytes"),
        "c-robots": ("https://youm7.com/6", "failed", None, "robots_disallowed: Forbidden by robots.txt"),
    }
    warehouse.insert_rows("document_decisions", [
        {"claim_id": c, "canonical_url": u, "url": u, "decision": "kept", "reason": "within_limit", "rank": 1,
         "best_rank": 1, "query_kinds": "claim", "decided_at": T} for c, (u, _, _, _) in docs.items()
    ] + [{"claim_id": "c-dropped", "canonical_url": "https://youm7.com/2", "url": "https://youm7.com/2",
          "decision": "dropped", "reason": "below_top_k", "rank": None, "best_rank": 9, "query_kinds": "claim",
          "decided_at": T}])
    warehouse.insert_rows("articles", [
        {"article_id": u[-1], "url": u, "canonical_url": u, "fetch_status": status, "http_status": http,
         "fetch_error": error}
        for u, status, http, error in docs.values()
    ])
    asked = [*docs, "c-dropped"]
    assert claims_with_failed_fetches(warehouse, asked) == {"c-503", "c-timeout"}
    assert claims_with_failed_fetches(warehouse, ["c-ok", "c-404", "c-large", "c-robots"]) == set()
