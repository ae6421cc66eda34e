"""The configured search backend, built from the settings."""

from __future__ import annotations

from pathlib import Path

from arastance.config import Settings
from arastance.logging import get_logger
from tasks.search.base import SearchBackend
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.keys import resolve_key
from tasks.search.local import DOCS_FILE, LocalIndex, read_corpus

log = get_logger(__name__)


class NoSearchIndex(FileNotFoundError):
    """The local backend is configured but has no index and no corpus to build one from."""


def index_dir(settings: Settings) -> Path:
    """Where the local BM25 index is saved: ``search.index_dir`` or ``<data_dir>/search_index``."""
    return settings.search.index_dir or settings.data_dir / "search_index"


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
    return local_index(settings)


def local_index(settings: Settings) -> LocalIndex:
    """The local BM25 index; on a fresh data directory it is built from ``search.corpus_path``.

    Without an index and without a corpus nothing can be searched: the error says what to
    configure, instead of a scheduled retrieval quietly finding nothing.
    """
    directory = index_dir(settings)
    corpus = settings.search.corpus_path
    if not (directory / DOCS_FILE).is_file():
        if corpus is None:
            raise NoSearchIndex(
                f"no local search index in {directory} and no corpus to build it from: set search.corpus_path "
                "(ARASTANCE_SEARCH__CORPUS_PATH) to a JSON Lines corpus and it is built on the next run, build it "
                "with `arastance index build`, or use a web backend (search.backend = google or brave)")
        if not corpus.is_file():
            raise NoSearchIndex(f"no local search index in {directory}, and the corpus search.corpus_path = "
                                f"{corpus} does not exist")
        log.info("building the local search index from the configured corpus",
                 extra={"corpus": str(corpus), "index_dir": str(directory)})
        return LocalIndex.build(read_corpus(corpus), directory)
    return LocalIndex.load(directory)
