"""A claim's queries against the configured backend: what the cache already answers, what is
left to send, and sending it.

The flow plans in its own process (reading the cache, counting the budget), fans the claims
out to workers that only call :func:`run_claim_queries`, then stores what comes back. Workers
never touch the warehouse and never receive a key: they build the backend from the settings,
once per process.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from arastance.config import Settings, load_settings
from arastance.logging import get_logger
from tasks.search.base import DateWindow, SearchBackend, SearchError, SearchResult, SearchStopsRun
from tasks.search.cache import cache_key, requests_answered, requests_per_query
from tasks.search.factory import make_backend
from tasks.search.local import DOCS_FILE

log = get_logger(__name__)

_backends: dict[str, SearchBackend] = {}
_lock = threading.Lock()
#: run key -> the error that stopped that run (in this process: each Dask worker learns it on its own)
_stopped_runs: dict[str, str] = {}


def _fingerprint(settings: Settings) -> str:
    """Changes whenever the backend would be built differently (secrets hashed, never kept; the
    orchestration settings say how many processes share its pace)."""
    s = settings.search
    secrets = [v.get_secret_value() if v else "" for v in (s.google_api_key, s.brave_api_key, s.serpapi_api_key,
                                                               s.searxng_api_key)]
    docs = settings.search_index_dir / DOCS_FILE
    stamp = docs.stat().st_mtime_ns if docs.exists() else 0
    raw = "\x1f".join([s.model_dump_json(), settings.orchestration.model_dump_json(), *secrets,
                       str(settings.search_index_dir), str(stamp)])
    return hashlib.sha256(raw.encode()).hexdigest()


def configured_backend(settings: Settings | None = None) -> SearchBackend:
    """The configured backend, built once per process and settings (an index loads once)."""
    settings = settings or load_settings()
    key = _fingerprint(settings)
    with _lock:
        if key not in _backends:
            _backends[key] = make_backend(settings)
        return _backends[key]


@dataclass(frozen=True)
class QuerySpec:
    """One query to answer; ``kinds`` are all the query kinds it stands for."""

    query_id: str
    kinds: tuple[str, ...]
    text: str
    window_start: date | None
    window_end: date | None
    cache_key: str

    @property
    def window(self) -> DateWindow | None:
        return DateWindow.of(self.window_start, self.window_end)


def query_spec(query: Any, backend: str, num: int) -> QuerySpec:
    """A spec from a stored or built query (``query_id, kind, also_kinds, text, window_*``)."""
    window = DateWindow.of(query.window_start, query.window_end)
    return QuerySpec(query.query_id, (query.kind, *query.also_kinds), query.text, query.window_start,
                     query.window_end, cache_key(backend, query.text, window, num))


@dataclass
class ClaimSearch:
    """What a worker sends back: results per cache key, and the error that stopped it, if any."""

    claim_id: str
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    error: str | None = None
    reserved: int = 0  # billed requests counted against a metered backend's budget for this search
    billed: int = 0  # requests the API answered (and bills) for this search
    stopped: str | None = None  # the error that stopped the whole run: this claim was left unfinished

    @property
    def unanswered(self) -> int:
        """Reserved requests that were not billed: the budget gets them back (negative: pages
        beyond the reservation, which the budget counts)."""
        return self.reserved - self.billed


def run_claim_queries(claim_id: str, queries: list[QuerySpec], num: int, backend: SearchBackend,
                      run_key: str | None = None) -> ClaimSearch:
    """Send the claim's queries in order; the first failure stops the claim (later queries of a
    failing backend would fail too) and the results so far still come back, to be cached.

    A :class:`SearchStopsRun` stops the run ``run_key`` names: this claim and every one of that
    run taken up after it in this process come back with ``stopped`` set and send nothing more.
    """
    metered = backend.metered
    out = ClaimSearch(claim_id, reserved=len(queries) * requests_per_query(backend, num) if metered else 0)
    before = requests_answered(backend)
    for q in queries:
        if run_key is not None and run_key in _stopped_runs:
            out.stopped = _stopped_runs[run_key]
            break
        try:
            results: list[SearchResult] = backend.search(q.text, q.window, num)
        except SearchStopsRun as exc:
            out.stopped = str(exc)
            if run_key is not None:
                _stopped_runs.setdefault(run_key, str(exc))
            log.warning("search stopped the run", extra={"claim_id": claim_id, "query_id": q.query_id, "error": str(exc)})
            break
        except SearchError as exc:
            out.error = str(exc)
            log.warning("search failed", extra={"claim_id": claim_id, "query_id": q.query_id, "error": str(exc)})
            break
        except Exception as exc:  # a backend bug (odd JSON, ...): only its type, a message could hold a key
            out.error = f"{type(exc).__name__} in the {backend.name} backend"
            log.exception("search backend failed", extra={"claim_id": claim_id, "query_id": q.query_id,
                                                          "error": out.error})
            break
        out.results[q.cache_key] = [r.to_json() for r in results]
    if metered:
        answered = requests_answered(backend)
        out.billed = len(out.results) if answered is None else answered - before
    return out
