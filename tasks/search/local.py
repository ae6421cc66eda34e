"""The offline default backend: a BM25 index (bm25s) over a JSON Lines article corpus.

Documents are tokenised with :func:`arastance.base.arabic.tokenize` (the project's one normaliser), so
queries and documents fold alef/hamza/taa marbuta the same way. A date window becomes a
weight mask over the documents' publication days (undated documents never match a window,
as with the web engines' date restriction). A build lives in one directory: bm25s's sparse
matrix files plus ``docs.parquet`` with each document's url, title, snippet, date and domain, and
``build.json``, which names the build (a hash of the index's content, so another corpus gives
another id) and, for an index built from ``search.corpus_path``, the corpus file it was built from.

The index directory holds its builds under ``builds/`` and a symlink ``current`` naming the one
searched; a build is published whole by swapping that link (:func:`_publish`), and a
load reads the link once and every file from that one build. Files replaced one by one had let a
build finishing during a load give the old scores with the new documents, under the new build's
id (cached under it for good), and two builds at once interleave their files. ``docs.parquet`` at
the top is a fixed link through ``current``, which says there is an index and when it was built.
An index written before builds had their own directories (its files at the top) still loads, and
the next build replaces it.

Why bm25s: DuckDB's ``fts`` extension now loads offline (pip package ``duckdb-extension-fts``),
but its ``match_bm25`` scores every row for every query: on 5,000 synthetic Arabic documents
it answered in 423 ms a query against bm25s's 2.5 ms, and indexed no faster (30 s against
22 s, on a shared machine), with top-10 lists 92% alike (``benchmarks/bench_fts_vs_bm25s.py``; ``benchmarks/bench_warc_index.py --duckdb-fts``
found the same order of difference on 2,000 documents).
A tantivy 0.27 wheel exists; on 100,000 documents and 1,000 queries (half date-windowed) it
indexed in 50 s against bm25s's 57 s (both dominated by our tokenisation) and answered in 2.6 s
against 3.0 s: no gain worth a second native index dependency, since bm25s is already one and
meets the 10-second goal (``benchmarks/bench_retrieval.py``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from arastance.base.arabic import tokenize
from arastance.base.jsonl import json_lines
from arastance.base.whole_files import written_whole
from arastance.logging import get_logger
from arastance.progress import track
from tasks.search.base import DateWindow, SearchError, SearchResult
from tasks.search.bm25_build import Bm25Builder, tokenised

log = get_logger(__name__)

DOCS_FILE = "docs.parquet"
BUILD_FILE = "build.json"
CURRENT = "current"  # the symlink naming the build that is searched
BUILDS_DIR = "builds"
LOCK_FILE = ".build.lock"
SNIPPET_CHARS = 300
_NO_DATE = np.iinfo(np.int32).min
_EPOCH = date(1970, 1, 1).toordinal()


class CorpusError(ValueError):
    """A corpus line that cannot be indexed; the message names the file and the line."""


@dataclass(frozen=True, slots=True)
class CorpusRecord:
    url: str
    title: str
    text: str
    published_date: date | None
    domain: str | None


def _record(data: Any, where: str) -> CorpusRecord:
    if not isinstance(data, dict):
        raise CorpusError(f"{where}: expected a JSON object, got {type(data).__name__}")
    url = data.get("url")
    if not isinstance(url, str) or not url.strip():
        raise CorpusError(f"{where}: field 'url' is missing or empty")
    for name in ("title", "text", "domain", "published_date"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise CorpusError(f"{where}: field {name!r} must be a string, got {type(data[name]).__name__}")
    day = None
    if data.get("published_date"):
        try:
            day = date.fromisoformat(data["published_date"][:10])
        except ValueError:
            raise CorpusError(f"{where}: field 'published_date' is not YYYY-MM-DD: {data['published_date']!r}") from None
    return CorpusRecord(url.strip(), data.get("title") or "", data.get("text") or "", day, data.get("domain"))


def read_corpus(path: Path) -> Iterator[CorpusRecord]:
    """Records of a JSON Lines corpus (``url,title,text,published_date,domain``), validated."""
    with path.open("rb") as handle:
        for where, data in json_lines(handle, path, CorpusError):
            yield _record(data, where)


def records_from_dicts(rows: Iterable[dict[str, Any]]) -> list[CorpusRecord]:
    """Validated records from in-memory dictionaries (e.g. ``World.corpus_records()``)."""
    return [_record(row, f"corpus record {i}") for i, row in enumerate(rows)]


class _Column:
    """A string column gathered in Arrow chunks (a million Python strings would cost ~1 GB)."""

    def __init__(self, kind: pa.DataType, chunk: int = 20_000) -> None:
        self.kind, self.chunk = kind, chunk
        self.chunks: list[pa.Array] = []
        self.buffer: list[str] = []

    def append(self, value: str) -> None:
        self.buffer.append(value)
        if len(self.buffer) >= self.chunk:
            self.chunks.append(pa.array(self.buffer, self.kind))
            self.buffer = []

    def array(self) -> pa.ChunkedArray:
        return pa.chunked_array([*self.chunks, pa.array(self.buffer, self.kind)], self.kind)


def build_dir(index_dir: Path) -> Path:
    """The directory of the index's current build, read from :data:`CURRENT` once (a load that
    takes every file from it reads one build, whatever is published meanwhile); ``index_dir``
    itself for an index written before builds had their own directories."""
    current = index_dir / CURRENT
    try:
        return index_dir / os.readlink(current)
    except (FileNotFoundError, NotADirectoryError):
        return index_dir
    except OSError:  # not a link: a copy of the index made following links (copytree, cp -L) holds the build itself
        return current


def build_info(index_dir: Path) -> dict[str, Any]:
    """What the index in ``index_dir`` records of its build (:data:`BUILD_FILE`): ``build_id`` and
    ``corpus``, the file it was built from when built from ``search.corpus_path`` (else None);
    empty for an index built before builds were recorded."""
    return _build_record(build_dir(index_dir), index_dir)


def _build_record(build: Path, index_dir: Path) -> dict[str, Any]:
    """:func:`build_info` of the build in directory ``build``; errors name the index, ``index_dir``."""
    path = build / BUILD_FILE
    if not path.is_file():
        return {}
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SearchError(f"the local search index in {index_dir} is damaged ({BUILD_FILE}: {exc}); "
                          "rebuild it with `arastance index build`") from None
    if not isinstance(info, dict):
        raise SearchError(f"the local search index in {index_dir} is damaged ({BUILD_FILE} holds no JSON object); "
                          "rebuild it with `arastance index build`")
    return info


def content_id(retriever: bm25s.BM25, docs: pa.Table) -> str:
    """An id of what an index holds (its scores, vocabulary and documents): a build of another
    corpus gets another one, so its searches are not answered from the cache of the earlier
    build, while building the same corpus again, which answers alike, keeps the id (and the demo's
    tables stay the same from run to run). Hashed in place, without copying the index."""
    digest = hashlib.sha256()
    for part in ("data", "indices", "indptr"):
        digest.update(np.ascontiguousarray(retriever.scores[part]))
    digest.update("\n".join(retriever.vocab_dict).encode("utf-8"))  # terms in id order
    for column in docs.itercolumns():
        for chunk in column.chunks:
            for buffer in chunk.buffers():
                digest.update(b"" if buffer is None else buffer)
    return digest.hexdigest()[:16]


@contextmanager
def _publishing(index_dir: Path) -> Iterator[None]:
    """Hold the index's :data:`LOCK_FILE` (waiting for another build's turn) while a build is
    written and published: the builds of two processes at once each publish whole, the last
    one wins, and no build removes a directory that another is writing."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with open(index_dir / LOCK_FILE, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the process dies
        yield


def _link(index_dir: Path, name: str, target: str) -> None:
    """Point the symlink ``index_dir/name`` at ``target`` in one step (a reader sees the old or the new)."""
    fresh = index_dir / f".{name}.new"
    fresh.unlink(missing_ok=True)  # left by a build killed here
    os.symlink(target, fresh)
    os.replace(fresh, index_dir / name)


def _publish(index_dir: Path, build: str) -> None:
    """Make ``builds/<build>`` the index's current build, then remove the builds before the one it
    replaces: that one is kept, as a load that read :data:`CURRENT` just before may still be
    opening its files. The files of an index written at the top go at once, its ``docs.parquet``
    being the link already: a load that was reading them reads again (:meth:`LocalIndex.load`)."""
    current = index_dir / CURRENT
    if current.is_dir() and not current.is_symlink():  # a copied index's build: kept among the builds
        replaced = f"copied-{secrets.token_hex(4)}"
        current.rename(index_dir / BUILDS_DIR / replaced)
    else:
        replaced = build_dir(index_dir).name
    _link(index_dir, CURRENT, f"{BUILDS_DIR}/{build}")
    if not (index_dir / DOCS_FILE).is_symlink():
        _link(index_dir, DOCS_FILE, f"{CURRENT}/{DOCS_FILE}")
    for old in (index_dir / BUILDS_DIR).iterdir():  # a killed build's partial directory too: none is written now
        if old.name not in (build, replaced):
            shutil.rmtree(old)
    for name in os.listdir(index_dir / BUILDS_DIR / build):
        top = index_dir / name
        if top.is_file() and not top.is_symlink():
            top.unlink()


class LocalIndex:
    """BM25 over a fixed corpus; build once with :meth:`build`, then :meth:`load` and search."""

    name = "local"
    metered = False

    def __init__(self, retriever: bm25s.BM25, docs: pa.Table, build_id: str | None = None) -> None:
        self.retriever = retriever
        #: Which build this is (:func:`content_id`; None for an index built before builds were
        #: recorded): its cached answers are its own (:attr:`cache_name`), so a rebuilt index is
        #: searched afresh.
        self.build_id = build_id
        # Arrow arrays, read per hit: a million documents stay ~0.5 GB instead of ~2 GB of str objects
        self.urls = docs.column("url").combine_chunks()
        self.titles = docs.column("title").combine_chunks()
        self.snippets = docs.column("snippet").combine_chunks()
        self.days = docs.column("day").to_numpy().astype(np.int32)
        if len(self.urls) != retriever.scores["num_docs"]:
            raise ValueError(f"index holds {retriever.scores['num_docs']} documents but {DOCS_FILE} lists {len(self.urls)}")

    def __len__(self) -> int:
        return len(self.urls)

    @property
    def cache_name(self) -> str:
        """The name this index's answers are cached under (:func:`tasks.search.cache.cache_name`):
        ``local@<build id>``, or ``local`` for an index built before builds were recorded."""
        return f"{self.name}@{self.build_id}" if self.build_id else self.name

    @classmethod
    def build(cls, records: Iterable[CorpusRecord], out_dir: Path | None = None, *, show_progress: bool = False,
              workers: int = 1, corpus: Mapping[str, Any] | None = None) -> "LocalIndex":
        """Index the records (the first of each URL wins) and save to ``out_dir`` when given, as a
        new build that replaces the current one whole (builds of several processes at once take turns).

        Memory stays bounded (:class:`tasks.search.bm25_build.Bm25Builder`); ``workers``
        processes tokenise, the slow part. ``corpus`` describes the file the records come from
        when it is ``search.corpus_path`` (recorded in :data:`BUILD_FILE`, so that a changed
        corpus is noticed).
        """
        seen: set[str] = set()
        urls, titles, snippets, days = _Column(pa.string()), _Column(pa.string()), _Column(pa.string()), []

        def fresh() -> Iterator[tuple[str, str]]:
            for rec in records:
                if rec.url in seen:
                    continue
                seen.add(rec.url)
                urls.append(rec.url)
                titles.append(rec.title)
                snippets.append(" ".join(rec.text[:SNIPPET_CHARS * 2].split())[:SNIPPET_CHARS])
                days.append(rec.published_date.toordinal() - _EPOCH if rec.published_date else _NO_DATE)
                yield rec.title, rec.text

        builder = Bm25Builder()
        for tokens in track(tokenised(fresh(), workers), "tokenising corpus", unit="documents", enabled=show_progress):
            builder.add(tokens)
        if not len(builder):
            raise CorpusError("the corpus has no documents to index")
        retriever = builder.finish()
        docs = pa.table({"url": urls.array(), "title": titles.array(), "snippet": snippets.array(),
                         "day": pa.array(days, pa.int32())})
        index = cls(retriever, docs, content_id(retriever, docs))
        if out_dir is not None:  # replacing an earlier index only when written whole (a full disk mixed the two)
            try:
                with _publishing(out_dir):
                    with written_whole(out_dir / BUILDS_DIR) as partial:
                        build = partial / f"{index.build_id}-{secrets.token_hex(4)}"  # unique: a corpus built again keeps its id
                        retriever.save(str(build), show_progress=False)
                        (build / BUILD_FILE).write_text(json.dumps({"build_id": index.build_id, "corpus": corpus}),
                                                        encoding="utf-8")
                        pq.write_table(docs, build / DOCS_FILE)
                    _publish(out_dir, build.name)
            except OSError as exc:
                if exc.errno is not None:
                    raise  # ENOSPC and the like say what happened
                # numpy's short write: "45305 requested and 25568 written", naming neither cause nor place
                raise SearchError(f"the local search index could not be written to {out_dir} ({exc}: a short write, "
                                  "as on a full disk); the earlier index is kept") from exc
            log.info("built local search index", extra={"documents": len(index), "index_dir": str(out_dir)})
        return index

    @classmethod
    def load(cls, index_dir: Path) -> "LocalIndex":
        """The current build of the index in ``index_dir``, every file read from that one build.

        Read again, from the build current now, when the one read was replaced meanwhile and
        either failed (removed by later builds) or was an index of files at the top, which the
        first build into builds/ replaces one by one.
        """
        source = build_dir(index_dir)
        try:
            index = cls._read(source, index_dir)
        except (SearchError, FileNotFoundError):
            if build_dir(index_dir) == source:
                raise
        else:
            if source != index_dir or build_dir(index_dir) == index_dir:
                return index
        return cls._read(build_dir(index_dir), index_dir)

    @classmethod
    def _read(cls, build: Path, index_dir: Path) -> "LocalIndex":
        """The build in directory ``build`` of the index in ``index_dir`` (which errors name)."""
        if not (build / DOCS_FILE).is_file():
            raise FileNotFoundError(f"no local search index in {index_dir}; build it with `arastance index build`")
        build_id = _build_record(build, index_dir).get("build_id")
        try:
            retriever = bm25s.BM25.load(str(build), show_progress=False, verbosity=0)
            return cls(retriever, pq.read_table(build / DOCS_FILE), build_id)
        except Exception as exc:  # noqa: BLE001 - a damaged file of the index fails with a JSON, numpy or Arrow error
            # (or with files of two builds, scores and documents that disagree, the ValueError of __init__)
            raise SearchError(f"the local search index in {index_dir} is damaged ({type(exc).__name__}: {exc}); "
                              "rebuild it with `arastance index build`") from None

    def _mask(self, window: DateWindow | None) -> np.ndarray | None:
        if window is None:
            return None
        lo, hi = window.start.toordinal() - _EPOCH, window.end.toordinal() - _EPOCH
        return ((self.days >= lo) & (self.days <= hi)).astype(np.float32)

    def search(self, query_text: str, window: DateWindow | None, num: int) -> list[SearchResult]:
        ids = sorted(set(self.retriever.get_tokens_ids(tokenize(query_text))))
        if not ids or num <= 0:
            return []
        scores = self.retriever.get_scores_from_ids(ids, weight_mask=self._mask(window))
        k = min(num, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        results = []
        for doc in top:
            if scores[doc] <= 0:
                break
            day = int(self.days[doc])
            results.append(SearchResult(
                url=self.urls[doc].as_py(), title=self.titles[doc].as_py() or None,
                snippet=self.snippets[doc].as_py() or None,
                published_date=None if day == _NO_DATE else date.fromordinal(day + _EPOCH), rank=len(results) + 1,
            ))
        return results
