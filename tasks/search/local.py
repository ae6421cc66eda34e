"""The offline default backend: a BM25 index (bm25s) over a JSON Lines article corpus.

Documents are tokenised with :func:`arastance.base.arabic.tokenize` (the project's one normaliser), so
queries and documents fold alef/hamza/taa marbuta the same way. A date window becomes a
weight mask over the documents' publication days (undated documents never match a window,
as with the web engines' date restriction). The index lives in one directory: bm25s's sparse
matrix files plus ``docs.parquet`` with each document's url, title, snippet, date and domain.

Why bm25s: DuckDB's ``fts`` extension cannot be loaded offline (it is downloaded on first use).
A tantivy 0.27 wheel exists; on 100,000 synthetic Arabic documents and 1,000 queries (half
date-windowed) it indexed in 50 s against bm25s's 57 s (both dominated by our tokenisation)
and answered in 2.6 s against 3.0 s: no gain worth a second native index dependency, since
bm25s is already one and meets the 10-second goal (``benchmarks/bench_retrieval.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

from arastance.base.arabic import tokenize
from arastance.base.jsonl import json_lines
from arastance.logging import get_logger
from tasks.search.base import DateWindow, SearchResult

log = get_logger(__name__)

DOCS_FILE = "docs.parquet"
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
    with path.open(encoding="utf-8") as handle:
        for where, data in json_lines(handle, path, CorpusError):
            yield _record(data, where)


def records_from_dicts(rows: Iterable[dict[str, Any]]) -> list[CorpusRecord]:
    """Validated records from in-memory dictionaries (e.g. ``World.corpus_records()``)."""
    return [_record(row, f"corpus record {i}") for i, row in enumerate(rows)]


class LocalIndex:
    """BM25 over a fixed corpus; build once with :meth:`build`, then :meth:`load` and search."""

    name = "local"
    metered = False

    def __init__(self, retriever: bm25s.BM25, docs: pa.Table) -> None:
        self.retriever = retriever
        self.urls: list[str] = docs.column("url").to_pylist()
        self.titles: list[str] = docs.column("title").to_pylist()
        self.snippets: list[str] = docs.column("snippet").to_pylist()
        self.days = docs.column("day").to_numpy().astype(np.int32)
        if len(self.urls) != retriever.scores["num_docs"]:
            raise ValueError(f"index holds {retriever.scores['num_docs']} documents but {DOCS_FILE} lists {len(self.urls)}")

    def __len__(self) -> int:
        return len(self.urls)

    @classmethod
    def build(cls, records: Iterable[CorpusRecord], out_dir: Path | None = None, *, show_progress: bool = False) -> "LocalIndex":
        """Index the records (the first of each URL wins) and save to ``out_dir`` when given."""
        seen: set[str] = set()
        urls, titles, snippets, days, tokens = [], [], [], [], []
        for rec in tqdm(records, desc="tokenising corpus", unit="doc", disable=not show_progress):
            if rec.url in seen:
                continue
            seen.add(rec.url)
            urls.append(rec.url)
            titles.append(rec.title)
            snippets.append(" ".join(rec.text.split())[:SNIPPET_CHARS])
            days.append(rec.published_date.toordinal() - _EPOCH if rec.published_date else _NO_DATE)
            # the title counts twice: headlines carry a story's key words, as search engines weigh them
            tokens.append(tokenize(rec.title) * 2 + tokenize(rec.text))
        if not urls:
            raise CorpusError("the corpus has no documents to index")
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=show_progress)
        docs = pa.table({"url": urls, "title": titles, "snippet": snippets, "day": pa.array(days, pa.int32())})
        index = cls(retriever, docs)
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            retriever.save(str(out_dir), show_progress=False)
            pq.write_table(docs, out_dir / DOCS_FILE)
            log.info("built local search index", extra={"documents": len(urls), "index_dir": str(out_dir)})
        return index

    @classmethod
    def load(cls, index_dir: Path) -> "LocalIndex":
        if not (index_dir / DOCS_FILE).is_file():
            raise FileNotFoundError(f"no local search index in {index_dir}; build it with `arastance index build`")
        retriever = bm25s.BM25.load(str(index_dir), show_progress=False, verbosity=0)
        return cls(retriever, pq.read_table(index_dir / DOCS_FILE))

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
                url=self.urls[doc], title=self.titles[doc] or None, snippet=self.snippets[doc] or None,
                published_date=None if day == _NO_DATE else date.fromordinal(day + _EPOCH), rank=len(results) + 1,
            ))
        return results
