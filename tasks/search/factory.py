"""The configured search backend, built from the settings."""

from __future__ import annotations

from datetime import date, datetime, timezone

from arastance.base.input_paths import not_a_file
from arastance.config import Settings
from arastance.logging import get_logger
from tasks.search.base import SearchBackend, SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.keys import resolve_key
from tasks.search.local import DOCS_FILE, LocalIndex, read_corpus
from tasks.search.searxng import SearxngSearch
from tasks.search.serpapi import SerpApiSearch

log = get_logger(__name__)

#: Google closed the Custom Search JSON API to new customers and shuts it down on this day.
GOOGLE_CSE_SHUTDOWN = date(2027, 1, 1)
ALTERNATIVES = ("serpapi (Google results through SerpApi, paid per search, date ranges), "
                "brave (Brave Search API, paid per query, date ranges), "
                "searxng (your own SearXNG instance, free, coarse time ranges only) or "
                "local (an index built with `arastance index build`, e.g. from WARC files, exact date windows)")


class NoSearchIndex(FileNotFoundError):
    """The local backend is configured but has no index and no corpus to build one from."""


class BackendRetired(SearchError):
    """The configured backend's service no longer exists; the message names the alternatives."""


def check_backend_available(backend: str, today: date | None = None) -> None:
    """Refuse a backend whose service has shut down; warn while its end is near."""
    today = today or datetime.now(timezone.utc).date()
    if backend != "google":
        return
    if today >= GOOGLE_CSE_SHUTDOWN:
        raise BackendRetired(
            f"search.backend 'google' is refused: Google shut the Custom Search JSON API down on "
            f"{GOOGLE_CSE_SHUTDOWN} (and closed it to new customers before). Set search.backend "
            f"(ARASTANCE_SEARCH__BACKEND) to {ALTERNATIVES}"
        )
    log.warning("the google backend stops working on its shutdown day; plan a move",
                extra={"shutdown": GOOGLE_CSE_SHUTDOWN.isoformat(), "days_left": (GOOGLE_CSE_SHUTDOWN - today).days,
                       "alternatives": "serpapi, brave, searxng, local"})


def make_backend(settings: Settings, today: date | None = None) -> SearchBackend:
    """The backend named by ``search.backend``, with its key and retry policy."""
    s = settings.search
    check_backend_available(s.backend, today)
    options = dict(timeout_s=s.request_timeout_s, max_retries=s.max_retries, backoff_s=s.backoff_s,
                   max_backoff_s=s.max_backoff_s)
    if s.backend == "google":
        key = resolve_key(s.google_api_key, s.google_api_key_block, "search.google_api_key")
        return GoogleSearch(key, s.google_engine_id or "", endpoint=str(s.google_endpoint), language=s.language, **options)
    if s.backend == "brave":
        key = resolve_key(s.brave_api_key, s.brave_api_key_block, "search.brave_api_key")
        return BraveSearch(key, endpoint=str(s.brave_endpoint), language=s.language, **options)
    if s.backend == "serpapi":
        key = resolve_key(s.serpapi_api_key, s.serpapi_api_key_block, "search.serpapi_api_key")
        return SerpApiSearch(key, endpoint=str(s.serpapi_endpoint), language=s.language, country=s.country, **options)
    if s.backend == "searxng":
        if s.searxng_url is None:
            raise SearchError("search.backend 'searxng' needs search.searxng_url (ARASTANCE_SEARCH__SEARXNG_URL), "
                              "the instance's search endpoint, e.g. http://127.0.0.1:8888/search")
        token = s.searxng_api_key.get_secret_value() if s.searxng_api_key else None
        return SearxngSearch(str(s.searxng_url), language=s.language, categories=s.searxng_categories,
                             engines=s.searxng_engines, api_key=token, **options)
    return local_index(settings)

def local_index(settings: Settings) -> LocalIndex:
    """The local BM25 index; on a fresh data directory it is built from ``search.corpus_path``.

    Without an index and without a corpus nothing can be searched: the error says what to
    configure, instead of a scheduled retrieval quietly finding nothing.
    """
    directory = settings.search_index_dir
    corpus = settings.search.corpus_path
    if not (directory / DOCS_FILE).is_file():
        if corpus is None:
            raise NoSearchIndex(
                f"no local search index in {directory} and no corpus to build it from: set search.corpus_path "
                "(ARASTANCE_SEARCH__CORPUS_PATH) to a JSON Lines corpus and it is built on the next run, build it "
                "with `arastance index build`, or use a web backend (search.backend = serpapi, brave or searxng)")
        if not corpus.is_file():
            raise NoSearchIndex(f"no local search index in {directory}, and the corpus search.corpus_path = "
                                f"{corpus} {not_a_file(corpus)}")
        log.info("building the local search index from the configured corpus",
                 extra={"corpus": str(corpus), "index_dir": str(directory)})
        return LocalIndex.build(read_corpus(corpus), directory)
    return LocalIndex.load(directory)
