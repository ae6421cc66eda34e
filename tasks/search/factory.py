"""The configured search backend, built from the settings."""

from __future__ import annotations

from arastance.config import Settings
from tasks.search.base import SearchBackend
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.keys import resolve_key
from tasks.search.local import LocalIndex


def make_backend(settings: Settings) -> SearchBackend:
    """The backend named by ``search.backend``, with its key and retry policy."""
    s = settings.search
    options = dict(timeout_s=s.request_timeout_s, max_retries=s.max_retries, backoff_s=s.backoff_s,
                   max_backoff_s=s.max_backoff_s)
    if s.backend == "google":
        key = resolve_key(s.google_api_key, s.google_api_key_block, "search.google_api_key")
        return GoogleSearch(key, s.google_engine_id or "", endpoint=str(s.google_endpoint), language=s.language, **options)
    if s.backend == "brave":
        key = resolve_key(s.brave_api_key, s.brave_api_key_block, "search.brave_api_key")
        return BraveSearch(key, endpoint=str(s.brave_endpoint), language=s.language, **options)
    return LocalIndex.load(settings.search_index_dir)
