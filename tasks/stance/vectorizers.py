"""A TF-IDF vectorizer with the output of scikit-learn's, built for inference on long texts.

Scikit-learn's ``transform`` analyses every document from scratch: in the CPU stance model the
same claim comes back with each of its articles (Baly: ~7 per claim), the same headline with each
of its altered claims (Khouja), and character n-grams are cut out of every word of a 200-token
evidence text one Python slice at a time. :class:`ReusingTfidfVectorizer` transforms each distinct
document once, and with ``analyzer='char_wb'`` (n-grams never cross a word boundary) maps each
distinct word to its feature ids once and then only concatenates arrays. Fitting is untouched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.utils.validation import check_is_fitted

# Words whose feature ids are kept; past this the memory is cleared (an unbounded stream of new words).
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


class ReusingTfidfVectorizer(TfidfVectorizer):
    """:class:`TfidfVectorizer` whose ``transform`` reuses work across repeated documents and words.

    The matrix equals scikit-learn's (same counts, same float dtype, same idf and norm); only the
    way the counts are gathered differs. The word memory is rebuilt when the vocabulary changes
    and is not pickled.
    """

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
        if self.__dict__.get("_ids_vocabulary") is not vocabulary or len(self._word_ids) > WORD_CACHE_SIZE:
            self._ids_vocabulary, self._word_ids = vocabulary, {}
        word_ids: dict[str, np.ndarray] = self._word_ids
        preprocess, decode = self.build_preprocessor(), self.decode
        rows: list[np.ndarray] = []
        for doc in documents:
            ids = []
            for word in preprocess(decode(doc)).split():
                found = word_ids.get(word)
                if found is None:
                    grams = char_wb_ngrams(word, self.ngram_range)
                    found = word_ids[word] = np.fromiter(
                        (vocabulary[g] for g in grams if g in vocabulary), dtype=np.int32)
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
