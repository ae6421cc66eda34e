"""A TF-IDF vectorizer with the output of scikit-learn's, built for inference on long texts.

Scikit-learn's ``transform`` analyses every document from scratch: in the CPU stance model the
same claim comes back with each of its articles (Baly: ~7 per claim), the same headline with each
of its altered claims (Khouja), and character n-grams are cut out of every word of a 200-token
evidence text one Python slice at a time. :class:`ReusingTfidfVectorizer` transforms each distinct
document once, and with ``analyzer='char_wb'`` (n-grams never cross a word boundary) maps each
distinct word to its feature ids once and then only concatenates arrays. Fitting is scikit-learn's;
it also keeps the feature ids of every training word (:class:`WordTable`, saved with the model), so
that a model loaded in a new process, where every word is new to the memory, starts with the words
it was trained on instead of cutting n-grams out of each of them again (Baly, static e5, 300 new dev
pairs: 113-125 -> 117-145 pairs/s in four interleaved runs).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.utils.validation import check_is_fitted

# New words whose feature ids are kept beside the training words'; past this the memory is cleared back
# to the training words (an unbounded stream of new words).
WORD_CACHE_SIZE = 200_000


def char_wb_ngrams(word: str, ngram_range: tuple[int, int]) -> list[str]:
    """The ``char_wb`` n-grams of one word, exactly as scikit-learn cuts them: padded with a space
    on each side, and a word shorter than ``n`` counted once, whole."""
    padded = f" {word} "
    min_n, max_n = ngram_range
    grams: list[str] = []
    for n in range(min_n, max_n + 1):
        grams.extend(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
        if len(padded) <= n:
            break
    return grams


class WordTable(NamedTuple):
    """The feature ids of words, packed: ``ids[offsets[i]:offsets[i + 1]]`` are those of ``words[i]``
    (three arrays pickle compactly, where a dict would pickle a small array and its header per word)."""

    words: tuple[str, ...]
    offsets: np.ndarray
    ids: np.ndarray

    def as_dict(self) -> dict[str, np.ndarray]:
        return {word: self.ids[self.offsets[i] : self.offsets[i + 1]] for i, word in enumerate(self.words)}


class ReusingTfidfVectorizer(TfidfVectorizer):
    """:class:`TfidfVectorizer` whose ``transform`` reuses work across repeated documents and words.

    The matrix equals scikit-learn's (same counts, same float dtype, same idf and norm); only the
    way the counts are gathered differs. The word memory is rebuilt when the vocabulary changes
    and is not pickled; with ``analyzer='char_wb'`` it starts from the training words' ids
    (``word_table_``, which is).
    """

    def fit(self, raw_documents: Iterable[str], y: Any = None) -> "ReusingTfidfVectorizer":
        documents = list(raw_documents)
        super().fit(documents, y)
        self._remember_words(documents)
        return self

    def fit_transform(self, raw_documents: Iterable[str], y: Any = None) -> Any:
        documents = list(raw_documents)
        matrix = super().fit_transform(documents, y)
        self._remember_words(documents)
        return matrix

    def _remember_words(self, documents: list[str]) -> None:
        """Set ``word_table_``: the feature ids of every distinct word of the training ``documents``."""
        if self.analyzer != "char_wb":
            return
        preprocess, decode = self.build_preprocessor(), self.decode
        words = tuple(dict.fromkeys(w for doc in documents for w in preprocess(decode(doc)).split()))
        ids = [self._feature_ids(w) for w in words]
        offsets = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum([len(i) for i in ids], out=offsets[1:])
        flat = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32)
        self.word_table_ = WordTable(words, offsets, flat)

    def _feature_ids(self, word: str) -> np.ndarray:
        """The vocabulary ids of ``word``'s character n-grams (those outside the vocabulary dropped)."""
        vocabulary = self.vocabulary_
        return np.fromiter((vocabulary[g] for g in char_wb_ngrams(word, self.ngram_range) if g in vocabulary),
                           dtype=np.int32)

    def transform(self, raw_documents: Iterable[str]) -> Any:
        check_is_fitted(self, msg="The TF-IDF vectorizer is not fitted")
        if isinstance(raw_documents, str):
            raise ValueError("Iterable over raw text documents expected, string object received.")
        documents = list(raw_documents)
        distinct = list(dict.fromkeys(documents))
        if self.analyzer == "char_wb":
            counts = self._char_wb_counts(distinct)
        else:
            counts = CountVectorizer.transform(self, distinct)
        weighted = self._tfidf.transform(counts, copy=False)
        if len(distinct) == len(documents):
            return weighted
        row = {doc: i for i, doc in enumerate(distinct)}
        return weighted[[row[doc] for doc in documents]]

    def _char_wb_counts(self, documents: list[str]) -> sparse.csr_matrix:
        """Term counts of ``documents``, each distinct word's feature ids looked up once."""
        vocabulary = self.vocabulary_
        table: WordTable | None = getattr(self, "word_table_", None)  # models saved before it have none
        known = len(table.words) if table else 0
        if self.__dict__.get("_ids_vocabulary") is not vocabulary or len(self._word_ids) > known + WORD_CACHE_SIZE:
            self._ids_vocabulary, self._word_ids = vocabulary, table.as_dict() if table else {}
        word_ids: dict[str, np.ndarray] = self._word_ids
        preprocess, decode = self.build_preprocessor(), self.decode
        rows: list[np.ndarray] = []
        for doc in documents:
            ids = []
            for word in preprocess(decode(doc)).split():
                found = word_ids.get(word)
                if found is None:
                    found = word_ids[word] = self._feature_ids(word)
                ids.append(found)
            rows.append(np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32))
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=indptr[1:])
        indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32)
        counts = sparse.csr_matrix((np.ones(len(indices), dtype=self.dtype), indices, indptr),
                                   shape=(len(documents), len(vocabulary)))
        counts.sum_duplicates()  # also sorts the indices, as scikit-learn's matrix is
        if self.binary:
            counts.data.fill(1)
        return counts

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_word_ids", None)
        state.pop("_ids_vocabulary", None)
        return state
