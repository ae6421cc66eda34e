"""The vectorised windowed top-k against a plain double loop over every (seed, headline) pair."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
import scipy.sparse as sp

from tasks.true_claims.rank import rank_in_windows, vectorize, word_ngram_counts
from tasks.true_claims.window import UNDATED, window_ordinals

DAY0 = date(2015, 1, 1).toordinal()


def _reference(seed_m, head_m, seed_days, start, end, head_days, top_k, min_sim):
    """Every pair checked one by one; ties by time distance, then column (date, id) order."""
    out = []
    for r in range(seed_m.shape[0]):
        cands = []
        for c in range(head_m.shape[0]):
            score = float(seed_m[r] @ head_m[c])
            undated = seed_days[r] == UNDATED or head_days[c] == UNDATED
            inside = undated or start[r] <= head_days[c] <= end[r]
            if inside and score > 0 and score >= min_sim:
                dist = 10**7 if undated else abs(int(head_days[c]) - int(seed_days[r]))
                cands.append((-score, dist, c))
        for k, (neg, _, c) in enumerate(sorted(cands)[:top_k], start=1):
            out.append((r, c, -neg, k))
    return out


@pytest.mark.parametrize("undated", [False, True])
@pytest.mark.parametrize("block_elements", [7, 1 << 23])
def test_vectorised_ranking_equals_the_double_loop(undated: bool, block_elements: int) -> None:
    rng = np.random.default_rng(11)
    n_seeds, n_heads, vocab = 60, 400, 25
    # small integer weights: exact arithmetic, so equal scores really are equal (many ties)
    seeds = (rng.random((n_seeds, vocab)) < 0.15) * rng.integers(1, 3, (n_seeds, vocab))
    heads = (rng.random((n_heads, vocab)) < 0.15) * rng.integers(1, 3, (n_heads, vocab))
    seed_dates = [date.fromordinal(DAY0 + int(d)) for d in rng.integers(0, 900, n_seeds)]
    head_days = np.sort(rng.integers(0, 900, n_heads)) + DAY0
    seed_list: list[date | None] = list(seed_dates)
    if undated:
        seed_list[::7] = [None] * len(seed_list[::7])
        head_days[-30:] = UNDATED
    seed_days = np.array([UNDATED if d is None else d.toordinal() for d in seed_list])
    start, end = window_ordinals(seed_list, 3)
    ranking = rank_in_windows(
        sp.csr_matrix(seeds.astype(float)), sp.csr_matrix(heads.astype(float)), seed_days, start, end, head_days,
        top_k=5, min_similarity=2.0, block_elements=block_elements,
    )
    got = list(zip(ranking.seed_rows.tolist(), ranking.headline_cols.tolist(), ranking.scores.tolist(), ranking.ranks.tolist()))
    expected = _reference(seeds, heads, seed_days, start, end, head_days, 5, 2.0)
    assert len(expected) > 100
    assert got == expected


def test_headlines_out_of_date_order_are_refused() -> None:
    m = sp.csr_matrix(np.ones((2, 3)))
    days = np.array([DAY0 + 5, DAY0])
    with pytest.raises(ValueError, match="ascending"):
        rank_in_windows(m, m, days, days - 1, days + 1, days, top_k=1, min_similarity=0.0)


def test_stop_words_alone_leave_no_vocabulary_and_no_similarity() -> None:
    seed_m, head_m = vectorize([["في", "من", "علي"]], [["الي", "عن"]], "word", (1, 2))
    assert seed_m.shape == (1, 0) and head_m.shape == (1, 0)


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 3), (1, 4)])
def test_word_ngram_counts_have_scikit_learns_features(ngram_range: tuple[int, int]) -> None:
    from sklearn.feature_extraction.text import CountVectorizer

    rng = np.random.default_rng(5)
    vocab = ["بحر", "جبل", "نهر", "سهل", "في", "من", "غيم", "رمل"]
    docs = [[vocab[i] for i in rng.integers(0, len(vocab), int(rng.integers(0, 9)))] for _ in range(40)]
    ours = word_ngram_counts(docs, ngram_range)
    stop = ["في", "من"]
    theirs = CountVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False, ngram_range=ngram_range,
                             stop_words=stop).fit_transform([" ".join(d) for d in docs])
    assert ours.shape == theirs.shape
    # same documents x features up to the order of the features: equal Gram matrices and column sums
    assert ((ours @ ours.T) != (theirs @ theirs.T)).nnz == 0
    assert sorted(np.asarray(ours.sum(axis=0)).ravel()) == sorted(np.asarray(theirs.sum(axis=0)).ravel())
