"""The vectorised core of true-claim selection: TF-IDF vectors and windowed top-k per seed.

Comparing every seed with every headline is a 10k x 200k problem, most of which lies outside
the date windows. Seeds are grouped by calendar month; a month's seeds are multiplied (one
sparse product) with the contiguous block of date-sorted headlines spanning the union of their
windows, then each seed's row is cut to its own exact window. Blocks are split into row chunks
so that one dense score block never holds more than ``block_elements`` numbers, which bounds
memory whatever the date distribution.

Ties are broken without Python loops by one ``lexsort`` over the few candidates per row that
reach the k-th best score: higher score first, then the headline closer in time to the seed,
then the earlier headline, then the smaller ``claim_id`` (the column order encodes date and id).
Scores are rounded to ``SCORE_DECIMALS`` first, so that summation-order noise can never decide
a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer
from tqdm import tqdm

from tasks.true_claims.window import UNDATED

SCORE_DECIMALS = 9
_FAR = np.int64(10**7)  # time distance given to undated pairs: after every dated one at equal score

# Function words in normalised form (see arastance.base.arabic.normalize): they link every headline to
# every claim and say nothing about the topic, so the word analyser ignores them.
ARABIC_STOPWORDS: frozenset[str] = frozenset(
    """
    في من الي علي عن مع ان او ثم قد لا لم لن ما ماذا هل بل لكن اذا اي كل بعض غير بين حتي
    منذ خلال عند عندما بعد قبل فوق تحت حول ضد دون هذا هذه ذلك تلك هولاء الذي التي الذين
    اللذين اللتين اللاتي هو هي هم هن انا نحن انت انتم كان كانت يكون تكون كانوا وقد وفي ومن
    وعلي وان او ايضا به بها له لها فيه فيها منه منها عليه عليها اليه اليها و ف ب ل ك
    """.split()
)


@dataclass(frozen=True)
class Ranking:
    """Chosen (seed, headline) pairs as parallel arrays, ordered by seed row then rank."""

    seed_rows: np.ndarray  # int64 index into the seed list
    headline_cols: np.ndarray  # int64 index into the (date-sorted) headline list
    scores: np.ndarray  # float64, rounded to SCORE_DECIMALS
    ranks: np.ndarray  # int64, 1 = best for that seed


def word_ngram_counts(
    docs: Sequence[Sequence[str]], ngram_range: tuple[int, int], stop_words: frozenset[str] = ARABIC_STOPWORDS
) -> sp.csr_matrix:
    """Word n-gram counts of tokenised documents, built with array operations.

    The same features as scikit-learn's ``CountVectorizer(ngram_range=...)`` with stop words
    removed before n-grams are formed, but without its per-n-gram Python dictionary, which
    dominates the time on 200k headlines. An n-gram is numbered from the ids of its
    (n-1)-gram prefix and its last word; ``np.unique`` renumbers them densely. N-grams never
    cross a document boundary. Feature order differs from scikit-learn's; cosine similarity
    does not depend on it.
    """
    kept = [[t for t in doc if t not in stop_words] for doc in docs]
    lengths = np.fromiter((len(doc) for doc in kept), dtype=np.int64, count=len(kept))
    vocab: dict[str, int] = {}
    words = np.fromiter(
        (vocab.setdefault(t, len(vocab)) for doc in kept for t in doc), dtype=np.int64, count=int(lengths.sum())
    )
    doc_of = np.repeat(np.arange(len(kept), dtype=np.int64), lengths)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    width = 0
    grams, valid, n_grams = words, np.ones(words.size, dtype=bool), len(vocab)
    low, high = ngram_range
    for n in range(1, high + 1):
        if n > 1:  # n-gram at position i = (n-1)-gram at i followed by word i+n-1
            m = max(words.size - n + 1, 0)
            valid = valid[:m] & (doc_of[:m] == doc_of[n - 1:])
            keys = grams[:m] * max(len(vocab), 1) + words[n - 1:]
            uniq, inverse = np.unique(keys[valid], return_inverse=True)
            grams = np.full(m, -1, dtype=np.int64)
            grams[valid] = inverse
            n_grams = uniq.size
        if n >= low:
            rows.append(doc_of[:grams.size][valid])
            cols.append(grams[valid] + width)
            width += n_grams
    r, c = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(len(kept), width))


def vectorize(
    seed_tokens: Sequence[Sequence[str]],
    headline_tokens: Sequence[Sequence[str]],
    analyzer: Literal["word", "char"],
    ngram_range: tuple[int, int],
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """TF-IDF vectors of seeds and headlines, the IDF fitted on both together (one vocabulary).

    Input is normalised word tokens (:func:`arastance.base.arabic.tokenize`). ``word`` uses word
    n-grams without :data:`ARABIC_STOPWORDS`; ``char`` uses character n-grams inside words
    (``char_wb``), which also match inflected forms (``الانتخابات`` / ``انتخابات``). Sub-linear
    term frequency keeps a word repeated in a long claim from dominating; rows are
    L2-normalised, so a dot product is the cosine similarity. Texts made only of stop words
    leave no vocabulary at all; every similarity is then zero.
    """
    docs = [*seed_tokens, *headline_tokens]
    if analyzer == "word":
        counts = word_ngram_counts(docs, ngram_range)
        if counts.shape[1] == 0:
            matrix = counts
        else:
            matrix = TfidfTransformer(sublinear_tf=True).fit_transform(counts).tocsr()
    else:
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=ngram_range, sublinear_tf=True, lowercase=False)
        matrix = vectorizer.fit_transform([" ".join(doc) for doc in docs]).tocsr()
    n = len(seed_tokens)
    return matrix[:n], matrix[n:]


def _block_top_k(
    scores: np.ndarray, valid: np.ndarray, distance: np.ndarray, top_k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Top ``top_k`` valid columns of each row of a dense block, deterministically tie-broken.

    Returns local (row, column, score, rank) arrays. ``distance`` gives each cell's time
    distance (days) used as the first tie-breaker after the score.
    """
    masked = np.where(valid, scores, -1.0)
    n_cols = masked.shape[1]
    if n_cols > top_k:
        kth = np.partition(masked, n_cols - top_k, axis=1)[:, n_cols - top_k]
        keep = valid & (masked >= kth[:, None])
    else:
        keep = valid
    rows, cols = np.nonzero(keep)
    if rows.size == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0), empty
    vals = masked[rows, cols]
    order = np.lexsort((cols, distance[rows, cols], -vals, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    group_start = np.repeat(starts, np.diff(np.r_[starts, rows.size]))
    position = np.arange(rows.size) - group_start
    chosen = position < top_k
    return rows[chosen], cols[chosen], vals[chosen], position[chosen] + 1


def rank_in_windows(
    seed_vectors: sp.csr_matrix,
    headline_vectors: sp.csr_matrix,
    seed_days: np.ndarray,
    window_start: np.ndarray,
    window_end: np.ndarray,
    headline_days: np.ndarray,
    *,
    top_k: int,
    min_similarity: float,
    block_elements: int = 1 << 23,
) -> Ranking:
    """For every seed, its ``top_k`` most similar headlines dated inside its window.

    ``headline_days`` (day ordinals) must be ascending with the undated headlines
    (:data:`UNDATED`) last; undated headlines are candidates for every seed, and an undated
    seed (its day :data:`UNDATED`) is compared with every headline. ``window_start`` /
    ``window_end`` are inclusive day ordinals per seed (ignored for undated seeds). A pair needs
    a cosine similarity above zero and at least ``min_similarity``.
    """
    n_seeds, n_heads = seed_vectors.shape[0], headline_vectors.shape[0]
    dated_heads = int(np.count_nonzero(headline_days != UNDATED))
    if np.any(headline_days[dated_heads:] != UNDATED) or np.any(np.diff(headline_days[:dated_heads]) < 0):
        raise ValueError("headline_days must be ascending with the undated headlines last")
    pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    if n_seeds == 0 or n_heads == 0:
        return _concat(pieces)

    undated_cols = np.arange(dated_heads, n_heads)
    dated_seed = seed_days != UNDATED
    lo = np.searchsorted(headline_days[:dated_heads], window_start, side="left")
    hi = np.searchsorted(headline_days[:dated_heads], window_end, side="right")
    # Month buckets of dated seeds; undated seeds form one bucket spanning every headline.
    buckets: list[tuple[np.ndarray, int, int]] = []
    dated_rows = np.flatnonzero(dated_seed)
    if dated_rows.size:
        months = _month_keys(seed_days[dated_rows])
        order = np.lexsort((dated_rows, months))
        rows_sorted, months_sorted = dated_rows[order], months[order]
        cuts = np.flatnonzero(np.diff(months_sorted)) + 1
        for rows in np.split(rows_sorted, cuts):
            buckets.append((rows, int(lo[rows].min()), int(hi[rows].max())))
    undated_rows = np.flatnonzero(~dated_seed)
    if undated_rows.size:
        buckets.append((undated_rows, 0, dated_heads))

    for rows, a, b in tqdm(buckets, desc="ranking headlines per seed month", unit="month", disable=None):
        cols = np.r_[np.arange(a, b), undated_cols]
        if cols.size == 0:
            continue
        # one CSR (features x headlines) block per bucket, reused by every row chunk
        block = (headline_vectors[cols] if undated_cols.size else headline_vectors[a:b]).T.tocsr()
        days = headline_days[cols][None, :]
        head_dated = days != UNDATED
        step = max(1, block_elements // cols.size)
        for start in range(0, rows.size, step):
            chunk = rows[start:start + step]
            scores = np.round((seed_vectors[chunk] @ block).toarray(), SCORE_DECIMALS)
            seed_dated = dated_seed[chunk][:, None]
            in_window = ~seed_dated | ~head_dated | (
                (days >= window_start[chunk][:, None]) & (days <= window_end[chunk][:, None])
            )
            valid = in_window & (scores > 0) & (scores >= min_similarity)
            distance = np.where(seed_dated & head_dated, np.abs(days - seed_days[chunk][:, None]), _FAR)
            r, c, s, k = _block_top_k(scores, valid, distance, top_k)
            pieces.append((chunk[r], cols[c], s, k))
    return _concat(pieces)


def _month_keys(days: np.ndarray) -> np.ndarray:
    """A calendar-month key (months since January 1970) of each day ordinal, via numpy datetimes."""
    epoch = np.datetime64("0001-01-01", "D")
    as_dates = epoch + (days - 1).astype("timedelta64[D]")
    return as_dates.astype("datetime64[M]").astype(np.int64)


def _concat(pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> Ranking:
    if not pieces:
        empty = np.empty(0, dtype=np.int64)
        return Ranking(empty, empty, np.empty(0), empty)
    rows, cols, scores, ranks = (np.concatenate(parts) for parts in zip(*pieces))
    order = np.lexsort((ranks, rows))
    return Ranking(rows[order].astype(np.int64), cols[order].astype(np.int64), scores[order], ranks[order].astype(np.int64))
