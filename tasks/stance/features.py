"""Feature transformers of the CPU stance model (scikit-learn fit/transform, no hidden state).

The first step, :class:`EvidenceStep`, turns claim-article examples into :class:`PairView`
records (claim, evidence text, best sentences, their tokens); every other transformer reads
those, so the article is split and ranked once per pair whatever the feature set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from arastance.base.arabic import normalize, tokenize, tokenize_many
from arastance.progress import track
from tasks.stance.cues import NEGATION, REFUTATION, count_cues
from tasks.stance.embeddings import DIM, E5Embedder
from tasks.stance.evidence import EvidenceMode, select_evidence
from tasks.stance.vectorizers import ReusingTfidfVectorizer


E5Mode = Literal["static", "contextual"]


@dataclass(frozen=True, slots=True)
class PairView:
    """One claim-article pair as the feature transformers see it."""

    claim: str
    evidence: str
    top: tuple[str, ...]  # the best-matching sentences, best first (the first ones when truncating)
    top_scores: tuple[float, ...]
    n_sentences: int
    claim_tokens: tuple[str, ...]
    evidence_tokens: tuple[str, ...]
    top_tokens: tuple[tuple[str, ...], ...]


class EvidenceStep(BaseEstimator, TransformerMixin):
    """Examples (anything with ``claim``, ``article`` and ``article_title``) -> :class:`PairView`.

    With ``mode='truncate'`` every feature sees the article's beginning: the evidence text is its
    first tokens and the "best" sentences are its first ``top_k``, so the two modes compare fairly.
    """

    def __init__(self, budget: int = 200, mode: EvidenceMode = "select", top_k: int = 3) -> None:
        self.budget = budget
        self.mode = mode
        self.top_k = top_k

    def fit(self, X: Sequence[Any], y: Any = None) -> "EvidenceStep":
        return self

    def transform(self, X: Sequence[Any]) -> list[PairView]:
        views = []
        for ex in track(X, "selecting evidence", unit="pairs", min_total=2000):
            ev = select_evidence(ex.claim, ex.article, budget=self.budget, mode=self.mode,
                                 title=getattr(ex, "article_title", None))
            if self.mode == "truncate":
                top, top_scores = ev.sentences[: self.top_k], ev.sentence_scores[: self.top_k]
            else:
                top, top_scores = ev.ranked[: self.top_k], ev.scores[: self.top_k]
            claim_tokens, evidence_tokens, *top_tokens = tokenize_many([ex.claim, ev.text, *top])
            views.append(PairView(
                claim=ex.claim, evidence=ev.text, top=top, top_scores=top_scores,
                n_sentences=len(ev.ranked), claim_tokens=tuple(claim_tokens),
                evidence_tokens=tuple(evidence_tokens), top_tokens=tuple(tuple(t) for t in top_tokens),
            ))
        return views


class FieldText(BaseEstimator, TransformerMixin):
    """One text field of the views ('claim' or 'evidence')."""

    def __init__(self, field: str = "claim") -> None:
        self.field = field

    def fit(self, X: Sequence[PairView], y: Any = None) -> "FieldText":
        return self

    def transform(self, X: Sequence[PairView]) -> list[str]:
        return [getattr(v, self.field) for v in X]


def _as_is(tokens: list[str]) -> list[str]:
    """Analyzer for texts that are already token lists."""
    return tokens


def word_tfidf(field: str) -> Pipeline:
    """Word uni- and bigrams of one field, Arabic-normalised."""
    return Pipeline([
        ("text", FieldText(field)),
        ("tfidf", ReusingTfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None, ngram_range=(1, 2),
                                         min_df=2, max_features=60000, sublinear_tf=True, dtype=np.float32)),
    ])


def char_tfidf(field: str) -> Pipeline:
    """Character 2-5-grams within words of one field, Arabic-normalised (robust to clitics)."""
    return Pipeline([
        ("text", FieldText(field)),
        ("tfidf", ReusingTfidfVectorizer(analyzer="char_wb", preprocessor=normalize, ngram_range=(2, 5), min_df=2,
                                         max_features=100000, sublinear_tf=True, dtype=np.float32)),
    ])


def _cosine_rows(a: sparse.csr_matrix, b: sparse.csr_matrix) -> np.ndarray:
    """Row-wise cosine of two L2-normalised sparse matrices."""
    return np.asarray(a.multiply(b).sum(axis=1)).ravel()


class _StandardisedRows(BaseEstimator, TransformerMixin):
    """A block of hand-made numeric features, one row a pair (``_raw``), standardised so that it
    weighs like the other blocks; the scaler is the block's only fitted state."""

    def fit(self, X: Sequence[PairView], y: Any = None) -> "_StandardisedRows":
        self.scaler_ = StandardScaler().fit(self._raw(X))
        return self

    def _raw(self, X: Sequence[PairView]) -> np.ndarray:
        raise NotImplementedError

    def transform(self, X: Sequence[PairView]) -> np.ndarray:
        return self.scaler_.transform(self._raw(X))


class SimilarityFeatures(_StandardisedRows):
    """How much the article says what the claim says: TF-IDF cosines (words, characters) of the
    claim against the evidence and the best sentence, token overlaps, the BM25 score of the best
    sentence, and the article's length. Standardised, so they weigh like the other features."""

    def fit(self, X: Sequence[PairView], y: Any = None) -> "SimilarityFeatures":
        texts = [v.claim for v in X] + [v.evidence for v in X]
        self.words_ = ReusingTfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None,
                                             sublinear_tf=True, dtype=np.float32).fit(texts)
        self.chars_ = ReusingTfidfVectorizer(analyzer="char_wb", preprocessor=normalize, ngram_range=(3, 4),
                                             sublinear_tf=True, max_features=100000, dtype=np.float32).fit(texts)
        super().fit(X)  # the scaler, on rows that read the vectorisers just fitted
        return self

    def _raw(self, X: Sequence[PairView]) -> np.ndarray:
        claims = [v.claim for v in X]
        evidence = [v.evidence for v in X]
        best = [v.top[0] if v.top else "" for v in X]
        columns = []
        for vec in (self.words_, self.chars_):
            c = vec.transform(claims)
            columns += [_cosine_rows(c, vec.transform(evidence)), _cosine_rows(c, vec.transform(best))]
        overlap = []
        for v in X:
            claim = set(v.claim_tokens) or {""}
            top1 = set(v.top_tokens[0]) if v.top_tokens else set()
            evid = set(v.evidence_tokens)
            top_score = v.top_scores[0] if v.top_scores else 0.0
            overlap.append([
                len(claim & evid) / len(claim),
                len(claim & top1) / len(claim),
                len(claim & top1) / max(1, len(claim | top1)),
                np.log1p(top_score),
                top_score / max(1, len(claim)),
                np.log1p(v.n_sentences),
                np.log1p(len(v.claim_tokens)),
            ])
        return np.column_stack(columns + [np.asarray(overlap, dtype=np.float64)])


class CueFeatures(_StandardisedRows):
    """Refutation and negation cues in the claim, in the best-matching sentences and in the whole
    evidence, and whether claim and best sentence disagree on negation."""

    @staticmethod
    def _raw(X: Sequence[PairView]) -> np.ndarray:
        rows = []
        for v in X:
            top_tokens = [t for s in v.top_tokens for t in s]
            best = v.top_tokens[0] if v.top_tokens else ()
            row = []
            for cues in (REFUTATION, NEGATION):
                in_claim = count_cues(v.claim_tokens, cues)
                in_best = count_cues(best, cues)
                row += [in_claim, in_best, count_cues(top_tokens, cues), count_cues(v.evidence_tokens, cues),
                        float((in_claim > 0) != (in_best > 0))]
            rows.append(row)
        return np.log1p(np.asarray(rows, dtype=np.float64))


class OneSideTokens(BaseEstimator, TransformerMixin):
    """What one text says that the other does not: claim words absent from the best sentences
    (``c:``) and best-sentence words absent from the claim (``a:``), as token lists."""

    def fit(self, X: Sequence[PairView], y: Any = None) -> "OneSideTokens":
        return self

    def transform(self, X: Sequence[PairView]) -> list[list[str]]:
        out = []
        for v in X:
            claim = set(v.claim_tokens)
            top = {t for s in v.top_tokens for t in s}
            out.append(sorted("c:" + t for t in claim - top) + sorted("a:" + t for t in top - claim))
        return out


def one_side_tfidf() -> Pipeline:
    return Pipeline([
        ("tokens", OneSideTokens()),
        ("tfidf", TfidfVectorizer(analyzer=_as_is, min_df=2, binary=True, dtype=np.float32)),
    ])


def _ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


_DIGIT = re.compile(r"\d")


class DiffFeatures(_StandardisedRows):
    """How the claim differs from its best-matching sentence, word order included.

    An altered claim (Khouja's s2) keeps most words of its source and contradicts it by a few
    edits: a negation, a changed number, one entity swapped for another. Bag-of-words overlap
    misses the order; uni/bi/trigram Jaccard and containment see it. Counts of one-side words,
    one-side numbers and negation/refutation cues among the one-side words say what was edited.
    """

    @staticmethod
    def _raw(X: Sequence[PairView]) -> np.ndarray:
        rows = []
        for v in X:
            claim, best = v.claim_tokens, v.top_tokens[0] if v.top_tokens else ()
            row: list[float] = []
            for n in (1, 2, 3):
                c, b = _ngrams(claim, n), _ngrams(best, n)
                row += [len(c & b) / max(1, len(c | b)), len(c & b) / max(1, len(c))]
            only_claim, only_best = set(claim) - set(best), set(best) - set(claim)
            row += [len(only_claim), len(only_best), len(only_claim) / max(1, len(set(claim))),
                    len(only_best) / max(1, len(set(best))), np.log1p(len(claim)) - np.log1p(len(best))]
            row += [sum(bool(_DIGIT.search(t)) for t in side) for side in (only_claim, only_best)]
            row += [count_cues(sorted(only_claim), NEGATION), count_cues(sorted(only_best), NEGATION),
                    count_cues(claim, NEGATION) - count_cues(best, NEGATION),
                    count_cues(sorted(only_claim), REFUTATION), count_cues(sorted(only_best), REFUTATION)]
            rows.append(row)
        return np.asarray(rows, dtype=np.float64)


class ReplacementPairs(BaseEstimator, TransformerMixin):
    """Which word the claim put in place of which: every (best-sentence-only word, claim-only word)
    pair, as ``removed|added`` tokens, so that learned swaps (يرتفع -> ينخفض) become features.
    At most ``limit`` words per side keep the cross product small on long sentences. A token for
    how many swaps there are (0, 1, 2, more) is always present, so the vocabulary is never empty."""

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit

    def fit(self, X: Sequence[PairView], y: Any = None) -> "ReplacementPairs":
        return self

    def transform(self, X: Sequence[PairView]) -> list[list[str]]:
        out = []
        for v in X:
            claim, best = set(v.claim_tokens), set(v.top_tokens[0]) if v.top_tokens else set()
            added, removed = sorted(claim - best)[: self.limit], sorted(best - claim)[: self.limit]
            pairs = [f"{r}|{a}" for r in removed for a in added]
            out.append([f"#swaps={min(len(pairs), 3)}", *pairs])
        return out


def replacement_tfidf() -> Pipeline:
    return Pipeline([
        ("pairs", ReplacementPairs()),
        ("tfidf", TfidfVectorizer(analyzer=_as_is, min_df=2, binary=True, dtype=np.float32)),
    ])


class E5Lexicon:
    """Static e5 word vectors: every word of a vocabulary embedded once, alone, by e5.

    A text's vector is then the IDF-weighted mean of its words' vectors (after removing the
    vocabulary's mean vector, which all e5 outputs share), L2-normalised: the Model2Vec idea at
    word level. Building costs one e5 pass per word at training time (cached by the embedder);
    using it costs a table lookup, so inference on new text needs no e5 pass at all. Words outside
    the vocabulary contribute nothing.
    """

    def __init__(self, words: Sequence[str], vectors: np.ndarray, idf: np.ndarray) -> None:
        self.index = {w: i for i, w in enumerate(words)}
        centred = vectors.astype(np.float32) - vectors.astype(np.float32).mean(axis=0)
        self.vectors = (centred * idf[:, None]).astype(np.float16)

    @classmethod
    def build(cls, documents: Sequence[Sequence[str]], embedder: E5Embedder, max_words: int,
              min_df: int = 2) -> "E5Lexicon":
        """The ``max_words`` words found in most ``documents`` (token lists), and in at least
        ``min_df`` of them (a word seen once says little and costs an e5 pass), embedded with ``embedder``."""
        df: dict[str, int] = {}
        for doc in documents:
            for token in set(doc):
                df[token] = df.get(token, 0) + 1
        words = sorted((w for w in df if df[w] >= min_df), key=lambda w: (-df[w], w))[:max_words] or [""]
        idf = np.log((1 + len(documents)) / (1 + np.asarray([df.get(w, 0) for w in words], dtype=np.float32))) + 1
        return cls(words, embedder.embed(words), idf)

    def embed(self, documents: Sequence[Sequence[str]]) -> np.ndarray:
        """One L2-normalised row per token list (zeros when no word is known)."""
        out = np.zeros((len(documents), DIM), dtype=np.float32)
        for i, doc in enumerate(documents):
            rows = [self.index[t] for t in doc if t in self.index]
            if rows:
                out[i] = self.vectors[rows].astype(np.float32).sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)


class E5Features(BaseEstimator, TransformerMixin):
    """Frozen multilingual-e5-small: the claim ``u`` against its best-matching article sentences.

    Cosines of the claim with each of the ``top_k`` sentences (best first, padded), their max and
    mean, and ``[u, v, |u-v|, u*v]`` with ``v`` the sentence e5 finds closest to the claim. The
    vectors are not standardised (that inflates their noise dimensions); ``weight`` scales the block
    instead, which for a logistic regression means regularising it ``weight**2`` times less than
    the TF-IDF blocks (tuned on dev: ~3). Sentences are cut to ``max_words`` before embedding:
    the cost of e5 grows with length and a claim-sized window carries the match.

    ``mode='contextual'`` (the default) embeds each claim and sentence with e5 (cached by text);
    ``'static'`` reads vectors from an :class:`E5Lexicon` built at ``fit`` over the training
    claims and sentences, so that prediction on new text never runs e5 (the contextual model's
    cost on unseen pairs is the e5 pass: ~8 new pairs per CPU-second), at a cost in quality
    where word order matters (Khouja dev macro-F1 .70 instead of .80).
    """

    def __init__(self, embedder: E5Embedder | None = None, top_k: int = 1, weight: float = 3.0,
                 max_words: int = 16, mode: E5Mode = "contextual", vocabulary: int = 20000) -> None:
        self.embedder = embedder
        self.top_k = top_k
        self.weight = weight
        self.max_words = max_words
        self.mode = mode
        self.vocabulary = vocabulary

    def _sentence_tokens(self, v: PairView) -> list[tuple[str, ...]]:
        return [t[: self.max_words] for t in v.top_tokens[: self.top_k]]

    def fit(self, X: Sequence[PairView], y: Any = None) -> "E5Features":
        if self.mode not in ("static", "contextual"):
            raise ValueError(f"e5 mode must be 'static' or 'contextual', not {self.mode!r}")
        if self.mode == "static":
            documents = [v.claim_tokens for v in X] + [s for v in X for s in self._sentence_tokens(v)]
            self.lexicon_ = E5Lexicon.build(documents, self.embedder or E5Embedder(), self.vocabulary)
        return self

    def _vectors(self, X: Sequence[PairView]) -> tuple[np.ndarray, np.ndarray]:
        """Claim vectors, and the vectors of every pair's top sentences one after the other."""
        if self.mode == "static":
            lexicon: E5Lexicon = self.lexicon_
            return (lexicon.embed([v.claim_tokens for v in X]),
                    lexicon.embed([s for v in X for s in self._sentence_tokens(v)]))
        # one call for claims and sentences: each distinct text reaches e5 once, in full batches
        sentences = [" ".join(s.split()[: self.max_words]) for v in X for s in v.top[: self.top_k]]
        vectors = (self.embedder or E5Embedder()).embed([v.claim for v in X] + sentences)
        return vectors[: len(X)], vectors[len(X) :]

    def transform(self, X: Sequence[PairView]) -> np.ndarray:
        claims, sentences = self._vectors(X)
        rows = np.zeros((len(X), self.top_k + 2 + 4 * DIM), dtype=np.float32)
        pos = 0
        for i, v in enumerate(X):
            n = len(v.top[: self.top_k])
            u = claims[i]
            best = np.zeros(DIM, dtype=np.float32)
            if n:
                cos = sentences[pos : pos + n] @ u
                best = sentences[pos + int(np.argmax(cos))]
                pos += n
                ranked = np.sort(cos)[::-1]
                rows[i, : self.top_k] = np.pad(ranked, (0, self.top_k - n), constant_values=ranked[-1])
                rows[i, self.top_k : self.top_k + 2] = (cos.max(), cos.mean())
            rows[i, self.top_k + 2 :] = np.concatenate([u, best, np.abs(u - best), u * best])
        return rows * self.weight
