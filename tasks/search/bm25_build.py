"""A BM25 index built in bounded memory, streamed document by document, saved in bm25s's format.

``bm25s.BM25.index`` wants every document's token list in memory at once (about 1.2 GB per
50,000 short articles as Python strings), which rules out a million-article archive corpus on a
2-core, 8 GiB machine. This builder keeps, per document, only its distinct term ids and their
counts (numpy arrays, 8 bytes a term), then computes bm25s's eager score matrix itself with the
same formulas (method ``lucene``: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf component
tf / (tf + k1 (1 - b + b |d| / avgdl))) and hands it to a ``bm25s.BM25`` object, so loading,
saving and querying stay bm25s's (the test compares the scores with bm25s's own index).
Tokenising, the costly part, can run in worker processes (``workers``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import islice

import bm25s
import numpy as np
import scipy.sparse as sp

from arastance.base.arabic import tokenize
from arastance.processes import worker_pool

K1 = 1.5
B = 0.75
_CHUNK = 2000


def document_tokens(title: str, text: str) -> list[str]:
    """The tokens BM25 sees: the title counts twice (headlines carry a story's key words)."""
    return tokenize(title) * 2 + tokenize(text)


def _tokenise_chunk(docs: list[tuple[str, str]]) -> list[str]:
    # one space-joined string per document: cheap to send back between processes
    return [" ".join(document_tokens(title, text)) for title, text in docs]


def tokenised(docs: Iterable[tuple[str, str]], workers: int = 1) -> Iterator[list[str]]:
    """Each document's tokens, in order; with ``workers`` > 1 tokenised in that many processes."""
    it = iter(docs)
    chunks = iter(lambda: list(islice(it, _CHUNK)), [])
    if workers <= 1:
        for chunk in chunks:
            for joined in _tokenise_chunk(chunk):
                yield joined.split()
        return
    with worker_pool(workers) as pool:
        pending = []
        for chunk in chunks:  # keep at most 2 chunks per worker in flight: memory stays bounded
            pending.append(pool.apply_async(_tokenise_chunk, (chunk,)))
            while len(pending) > 2 * workers:
                for joined in pending.pop(0).get():
                    yield joined.split()
        for result in pending:
            for joined in result.get():
                yield joined.split()


class Bm25Builder:
    """Accumulates documents' term counts; :meth:`finish` returns a ready ``bm25s.BM25``."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._terms: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._lengths: list[int] = []

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, tokens: list[str]) -> None:
        counts = Counter(tokens)
        vocab = self.vocab
        self._terms.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in counts), np.int32, len(counts)))
        self._counts.append(np.fromiter(counts.values(), np.float32, len(counts)))
        self._lengths.append(len(tokens))

    def finish(self) -> bm25s.BM25:
        n_docs, n_vocab = len(self._lengths), len(self.vocab)
        lengths = np.asarray(self._lengths, np.float32)
        indptr = np.zeros(n_docs + 1, np.int64)
        np.cumsum([len(t) for t in self._terms], out=indptr[1:])
        terms = np.concatenate(self._terms) if self._terms else np.zeros(0, np.int32)
        self._terms.clear()
        tf = np.concatenate(self._counts) if self._counts else np.zeros(0, np.float32)
        self._counts.clear()
        df = np.bincount(terms, minlength=n_vocab).astype(np.float32)
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        avg = float(lengths.mean()) if n_docs else 1.0
        norm = np.repeat(K1 * (1 - B + B * lengths / max(avg, 1e-9)), np.diff(indptr)).astype(np.float32)
        tf /= tf + norm  # in place: the tf component
        del norm
        tf *= idf[terms]
        matrix = sp.csr_matrix((tf, terms, indptr), shape=(n_docs, n_vocab)).tocsc()
        del tf, terms
        retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        retriever.scores = {"data": matrix.data.astype(np.float32, copy=False),
                            "indices": matrix.indices.astype(np.int32, copy=False),
                            "indptr": matrix.indptr.astype(np.int32 if matrix.nnz < 2**31 else np.int64, copy=False),
                            "num_docs": n_docs}
        retriever.vocab_dict = self.vocab
        retriever.unique_token_ids_set = set(self.vocab.values())
        retriever.nonoccurrence_array = None  # only bm25l and bm25+ use it
        return retriever
