"""The configured search backend, built from the settings."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from arastance.base.input_paths import not_a_file
from arastance.config import Settings
from arastance.config.orchestration import OrchestrationSettings
from arastance.logging import get_logger
from tasks.search.base import SearchBackend, SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.http import PaceShare
from tasks.search.keys import resolve_key
from tasks.search.local import DOCS_FILE, LocalIndex, build_info, read_corpus
from tasks.search.searxng import SearxngSearch
from tasks.search.serpapi import SerpApiSearch

log = get_logger(__name__)

#: Google closed the Custom Search JSON API to new customers and shuts it down on this day.
GOOGLE_CSE_SHUTDOWN = date(2027, 1, 1)
ALTERNATIVES = ("serpapi (Google results through SerpApi, paid per search, date ranges), "
                "brave (Brave Search API, paid per query, date ranges), "
                "searxng (your own SearXNG instance, free, coarse time ranges only) or "
                "local (an index built with `arastance index build`, e.g. from WARC files, exact date windows)")


#: Each retry of a web backend waits up to this share longer, at random: threads refused together
#: would otherwise ask again together.
RETRY_JITTER = 0.5


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


def pace_share(orchestration: OrchestrationSettings) -> PaceShare:
    """This process's part of a web backend's pace: in a worker process of the LocalCluster that
    ``task_runner = "dask"`` starts, one of ``orchestration.workers`` (its turn the worker's name,
    which the cluster numbers from 0), else the whole pace (a run's threads share one client; the
    flow's own process only plans; a CLI search sends alone). The workers of a scheduler at
    ``dask_address`` are counted nowhere here: each of them keeps the pace on its own.

    Each LocalCluster worker kept the whole pace: three of them sent three times as fast as
    ``search.min_request_interval_s`` allows, and a plan of one request a second refused most."""
    if orchestration.task_runner != "dask" or orchestration.dask_address:
        return PaceShare()
    from distributed import get_worker  # installed with prefect-dask, which the dask runner needs

    try:
        worker = get_worker()
    except ValueError:  # not in a Dask worker's task
        return PaceShare()
    return PaceShare(orchestration.workers, worker.name)


def make_backend(settings: Settings, today: date | None = None) -> SearchBackend:
    """The backend named by ``search.backend``, with its key and retry policy; a web backend's pace
    is shared with the run's other worker processes (:func:`pace_share`)."""
    s = settings.search
    check_backend_available(s.backend, today)
    options = dict(timeout_s=s.request_timeout_s, max_retries=s.max_retries, backoff_s=s.backoff_s,
                   max_backoff_s=s.max_backoff_s, min_interval_s=s.min_request_interval_s,
                   share=pace_share(settings.orchestration), jitter=RETRY_JITTER)
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
    configure, instead of a scheduled retrieval quietly finding nothing. An index built from
    ``search.corpus_path`` is built again when the setting names another file or the file changed
    (its size or modification time), saying why; one built with ``arastance index build`` is
    the user's, and is left as it is.
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
        return _build_from(corpus, directory, "the data directory has no index yet")
    if corpus is not None and (why := _corpus_change(directory, corpus)):
        return _build_from(corpus, directory, why)
    return LocalIndex.load(directory)


def _corpus_stamp(corpus: Path) -> dict[str, Any]:
    """What tells the corpus file an index was built from: its path, size and modification time."""
    stat = corpus.stat()
    return {"path": str(corpus.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _corpus_change(directory: Path, corpus: Path) -> str | None:
    """Why the index in ``directory``, built from ``search.corpus_path``, is no longer that of
    ``corpus``, or None: it still is, it was built by hand (no corpus recorded), or ``corpus``
    cannot be read now (nothing to build another from: the index is kept, with a warning)."""
    built_from = build_info(directory).get("corpus")
    if not built_from:
        return None
    if not corpus.is_file():
        log.warning("the local search index is kept: the corpus search.corpus_path names cannot be read",
                    extra={"corpus": str(corpus), "problem": not_a_file(corpus), "built_from": built_from.get("path")})
        return None
    now = _corpus_stamp(corpus)
    if now["path"] != built_from.get("path"):
        return f"search.corpus_path is now {now['path']}, the index was built from {built_from.get('path')}"
    if now != built_from:
        return f"the corpus {now['path']} changed since the index was built (size or modification time)"
    return None


def _build_from(corpus: Path, directory: Path, why: str) -> LocalIndex:
    """The index of ``corpus``, built into ``directory`` (replacing one there), with the corpus recorded."""
    log.info("building the local search index from the configured corpus",
             extra={"corpus": str(corpus), "index_dir": str(directory), "why": why})
    stamp = _corpus_stamp(corpus)  # before reading: a corpus rewritten while it is read is built again next time
    return LocalIndex.build(read_corpus(corpus), directory, corpus=stamp)
