"""Duplicate claims: exact (same normalised text) and near (the same rumour, lightly reworded).

The same rumour is debunked by several sites in slightly different words, and one site reposts
its own debunks. Exact duplicates share the hash of their normalised text. Near duplicates are
found by character-shingle Jaccard similarity, without comparing every pair: *prefix
filtering* (Chaudhuri et al. 2006; Bayardo et al. 2007's AllPairs) guarantees that two texts
with Jaccard >= t share at least one shingle among the ``|A| - ceil(t|A|) + 1`` rarest shingles
of each, so only pairs that meet in those prefixes are candidates. Candidates come from a sparse
matrix product in row blocks, are pruned by PPJoin's positional bound (shared prefix shingles
plus the most the rest could share must reach the required overlap) and verified exactly, in
vectorised chunks; clusters are the connected components of the verified pairs that state the same numbers. Nothing is
approximate: the result equals the brute-force all-pairs answer (a test checks it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

#: Multiplier of the 64-bit polynomial shingle hash (odd, so no code point is lost).
_HASH_BASE = np.uint64(0x100000001B3)
_ROW_BLOCK = 4096
_PAIR_CHUNK = 200_000

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

ClusterMethod = Literal["exact_hash", "shingle_jaccard"]


@dataclass(frozen=True)
class ClusterMember:
    """One claim's place in a duplicate cluster (only clusters of two or more are reported).

    ``cluster_id`` is the representative's claim id (the first of the cluster in input order);
    ``similarity`` is the member's Jaccard similarity to the representative.
    """

    claim_id: str
    cluster_id: str
    similarity: float
    method: ClusterMethod


def shingle_hashes(texts: Sequence[str], shingle_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, hashes)``: the 64-bit hash of every character shingle of every (normalised) text.

    Vectorised over all texts at once: the code points of every text are laid end to end, each
    window of ``shingle_size`` code points gets a 64-bit polynomial hash, and windows that cross
    a text boundary are dropped. A text shorter than one shingle is a single shingle of its own.
    A text's hashes may repeat; as a set they are the text's shingles.
    """
    if not texts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
    padded = [t if len(t) >= shingle_size else t.ljust(shingle_size, "\x00") for t in texts]
    lengths = np.fromiter((len(t) for t in padded), dtype=np.int64, count=len(padded))
    codes = np.frombuffer("".join(padded).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n_windows = max(codes.size - shingle_size + 1, 0)
    hashes = np.zeros(n_windows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for offset in range(shingle_size):
            hashes = hashes * _HASH_BASE + codes[offset:offset + n_windows]
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    per_text = np.maximum(lengths - shingle_size + 1, 0)
    rows = np.repeat(np.arange(len(padded), dtype=np.int64), per_text)
    window = np.arange(per_text.sum(), dtype=np.int64) - np.repeat(np.cumsum(per_text) - per_text, per_text)
    return rows, hashes[np.repeat(starts, per_text) + window]


def shingle_matrix(texts: Sequence[str], shingle_size: int) -> sp.csr_matrix:
    """Binary document x character-shingle matrix of the (already normalised) texts; columns are the distinct shingles."""
    if not texts:
        return sp.csr_matrix((0, 1), dtype=np.float32)
    rows, columns_hash = shingle_hashes(texts, shingle_size)
    vocabulary, columns = np.unique(columns_hash, return_inverse=True)
    matrix = sp.csr_matrix(
        (np.ones(columns.size, dtype=np.float32), (rows, columns.ravel())), shape=(len(texts), max(vocabulary.size, 1))
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


@dataclass(frozen=True)
class _RankedShingles:
    """Every row's shingles as global ranks (rarest first), sorted within each row.

    ``keys[k] = row * n_ranks + rank`` is globally sorted, so how many of a row's shingles rank at
    or below a bound is one ``searchsorted``.
    """

    keys: np.ndarray
    indptr: np.ndarray
    sizes: np.ndarray
    n_ranks: int

    @classmethod
    def of(cls, x: sp.csr_matrix) -> "_RankedShingles":
        df = np.bincount(x.indices, minlength=x.shape[1])
        used = np.flatnonzero(df)
        rank = np.empty(x.shape[1], dtype=np.int64)
        rank[used[np.lexsort((used, df[used]))]] = np.arange(used.size)
        sizes = np.diff(x.indptr).astype(np.int64)
        rows = np.repeat(np.arange(x.shape[0], dtype=np.int64), sizes)
        n_ranks = max(int(used.size), 1)
        keys = np.sort(rows * n_ranks + rank[x.indices])
        return cls(keys, x.indptr.astype(np.int64), sizes, n_ranks)

    def count_at_or_below(self, rows: np.ndarray, bound: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.keys, rows * self.n_ranks + bound, side="right") - self.indptr[rows]


def _required_overlap(size_i: np.ndarray, size_j: np.ndarray, threshold: float) -> np.ndarray:
    """Jaccard >= t  <=>  |A n B| >= t / (1 + t) * (|A| + |B|)."""
    return np.ceil(threshold / (1 + threshold) * (size_i + size_j) - 1e-9)


def pair_jaccard(x: sp.csr_matrix, sizes: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Exact Jaccard similarity of row pairs, computed in bounded-memory chunks."""
    out = np.empty(left.size, dtype=np.float64)
    for start in range(0, left.size, _PAIR_CHUNK):
        i, j = left[start:start + _PAIR_CHUNK], right[start:start + _PAIR_CHUNK]
        inter = np.asarray(x[i].multiply(x[j]).sum(axis=1)).ravel().astype(np.float64)
        union = sizes[i] + sizes[j] - inter
        out[start:start + i.size] = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return out


def _candidates(ranked: _RankedShingles, threshold: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs (i < j) that can still reach ``threshold``, one row block at a time.

    A pair is a candidate when the rows share a prefix shingle, their sizes are compatible, and
    the shingles they share in their prefixes plus the most they could share beyond the
    shorter-ranked prefix reach the required overlap (the positional filter of PPJoin).
    """
    sizes = ranked.sizes
    prefix_len = sizes - np.ceil(threshold * sizes - 1e-9).astype(np.int64) + 1
    rows = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    position = np.arange(ranked.keys.size) - np.repeat(ranked.indptr[:-1], sizes)
    in_prefix = position < np.repeat(prefix_len, sizes)
    ranks = ranked.keys - rows * ranked.n_ranks
    prefix = sp.csr_matrix(
        (np.ones(int(in_prefix.sum()), dtype=np.float32), (rows[in_prefix], ranks[in_prefix])),
        shape=(sizes.size, ranked.n_ranks),
    )
    last_rank = np.full(sizes.size, -1, dtype=np.int64)
    last_rank[rows[in_prefix]] = ranks[in_prefix]  # rows are sorted by rank: the last write wins
    prefix_t = prefix.T.tocsr()
    for start in range(0, sizes.size, _ROW_BLOCK):
        block = (prefix[start:start + _ROW_BLOCK] @ prefix_t).tocoo()
        i = block.row.astype(np.int64) + start
        j = block.col.astype(np.int64)
        keep = (j > i) & (sizes[j] >= threshold * sizes[i] - 1e-9) & (sizes[i] >= threshold * sizes[j] - 1e-9)
        i, j, shared = i[keep], j[keep], block.data[keep].astype(np.int64)
        bound = np.minimum(last_rank[i], last_rank[j])
        rest = np.minimum(sizes[i] - ranked.count_at_or_below(i, bound), sizes[j] - ranked.count_at_or_below(j, bound))
        keep = shared + rest >= _required_overlap(sizes[i], sizes[j], threshold)
        yield i[keep], j[keep]


def near_duplicate_pairs(x: sp.csr_matrix, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All row pairs (i < j) with Jaccard >= ``threshold``, and their similarity."""
    ranked = _RankedShingles.of(x)
    sizes = ranked.sizes.astype(np.float64)
    lefts, rights, sims = [], [], []
    for i, j in _candidates(ranked, threshold):
        sim = pair_jaccard(x, sizes, i, j)
        hit = sim >= threshold - 1e-9
        lefts.append(i[hit])
        rights.append(j[hit])
        sims.append(sim[hit])
    if not lefts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0)
    return np.concatenate(lefts), np.concatenate(rights), np.concatenate(sims)


def number_signatures(texts: Sequence[str] | np.ndarray) -> np.ndarray:
    """An id per distinct multiset of numbers in each text.

    "7 إصابات" and "9 إصابات", or a deficit "في 2017" and "في 2018", are different claims however
    alike their characters, so near-duplicates must state the same numbers.
    """
    keys = [" ".join(sorted(_NUMBER.findall(t))) for t in texts]
    return np.unique(np.asarray(keys, dtype=object), return_inverse=True)[1].ravel() if keys else np.empty(0, dtype=np.int64)


def cluster_claims(
    claim_ids: Sequence[str],
    normalized_texts: Sequence[str],
    *,
    threshold: float,
    shingle_size: int,
) -> list[ClusterMember]:
    """Group duplicate claims; the input order decides each cluster's representative.

    Claims with equal normalised text are one cluster (``exact_hash``); distinct texts join a
    cluster when their shingle Jaccard similarity reaches ``threshold`` and they state the same
    numbers (``shingle_jaccard``), transitively. Empty texts never cluster. Same input, same
    output.
    """
    if len(claim_ids) != len(normalized_texts):
        raise ValueError(f"{len(claim_ids)} claim ids but {len(normalized_texts)} texts")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    n = len(claim_ids)
    if n == 0:
        return []
    texts = np.asarray(normalized_texts, dtype=object)
    present = np.flatnonzero(texts != "")
    if present.size == 0:
        return []
    # Exact duplicates: one node per distinct text (its first occurrence stands for it).
    uniq, inverse = np.unique(texts[present], return_inverse=True)
    x = shingle_matrix(list(uniq), shingle_size)
    left, right, _ = near_duplicate_pairs(x, threshold)
    numbers = number_signatures(uniq)
    keep = numbers[left] == numbers[right]
    left, right = left[keep], right[keep]
    graph = sp.coo_matrix((np.ones(left.size), (left, right)), shape=(uniq.size, uniq.size))
    _, component = connected_components(graph, directed=False)

    row_component = np.full(n, -1, dtype=np.int64)
    row_component[present] = component[inverse]
    members = np.bincount(row_component[present], minlength=component.max() + 1 if component.size else 0)
    # Representative: the first row of each component in input order.
    rep_of_component = np.full(members.size, n, dtype=np.int64)
    np.minimum.at(rep_of_component, row_component[present], present)
    clustered = present[members[row_component[present]] >= 2]
    if clustered.size == 0:
        return []
    reps = rep_of_component[row_component[clustered]]
    text_node = np.full(n, -1, dtype=np.int64)
    text_node[present] = inverse
    same_text = text_node[clustered] == text_node[reps]
    sizes = np.diff(x.indptr).astype(np.float64)
    similarity = np.where(same_text, 1.0, 0.0)
    differ = ~same_text
    similarity[differ] = pair_jaccard(x, sizes, text_node[clustered][differ], text_node[reps][differ])
    near_components = set(row_component[clustered][differ].tolist())
    result = []
    for row, rep, sim, exact in zip(clustered.tolist(), reps.tolist(), similarity.tolist(), same_text.tolist()):
        if row == rep:
            method: ClusterMethod = "shingle_jaccard" if row_component[row] in near_components else "exact_hash"
        else:
            method = "exact_hash" if exact else "shingle_jaccard"
        result.append(ClusterMember(claim_ids[row], claim_ids[rep], round(float(sim), 6), method))
    return result

