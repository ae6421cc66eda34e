"""ReusingTfidfVectorizer: scikit-learn's TF-IDF matrix, gathered once per distinct text and word."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from arastance.base.arabic import normalize, tokenize
from tasks.stance import vectorizers
from tasks.stance.vectorizers import ReusingTfidfVectorizer, char_wb_ngrams

TRAIN = [
    "وزارة الصحة تعلن توزيع لقاح جديد مجانا في المدارس",
    "نفت وزارة الصحة توزيع اللقاح في المدارس",
    "فاز الفريق المحلي بالمباراة أمس",
    "الفريق المحلي يخسر المباراة النهائية",
    "لا صحة لما يتم تداوله عن اللقاح",
]
# repeated texts, unseen words, a one-letter word, an empty text and Latin case
NEW = [TRAIN[0], "اللقاح الجديد في المدارس و", TRAIN[0], "", "Vaccine لقاح", "الفريق"]
SETTINGS = [
    {"analyzer": "char_wb", "preprocessor": normalize, "ngram_range": (2, 5), "min_df": 1, "sublinear_tf": True},
    {"analyzer": "char_wb", "preprocessor": normalize, "ngram_range": (3, 4), "max_features": 40, "binary": True},
    {"tokenizer": tokenize, "lowercase": False, "token_pattern": None, "ngram_range": (1, 2), "sublinear_tf": True},
]


@pytest.mark.parametrize("settings", SETTINGS)
def test_same_matrix_as_scikit_learn(settings: dict) -> None:
    expected = TfidfVectorizer(dtype=np.float32, **settings).fit(TRAIN).transform(NEW)
    reusing = ReusingTfidfVectorizer(dtype=np.float32, **settings).fit(TRAIN)
    for got in (reusing.transform(NEW), reusing.transform(NEW)):  # the second from the word memory
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
        assert np.array_equal(got.data, expected.data)


def test_char_wb_ngrams_pad_the_word_and_keep_a_short_word_whole() -> None:
    assert char_wb_ngrams("لقاح", (2, 3)) == [" ل", "لق", "قا", "اح", "ح ", " لق", "لقا", "قاح", "اح "]
    assert char_wb_ngrams("و", (3, 5)) == [" و "]


def test_word_memory_follows_a_refit_and_is_not_pickled() -> None:
    vectorizer = ReusingTfidfVectorizer(analyzer="char_wb", preprocessor=normalize, ngram_range=(2, 3))
    vectorizer.fit(TRAIN).transform(NEW)
    assert "_word_ids" not in pickle.loads(pickle.dumps(vectorizer)).__dict__
    refit = vectorizer.fit(["كلمة أخرى تماما"])
    expected = TfidfVectorizer(analyzer="char_wb", preprocessor=normalize, ngram_range=(2, 3)).fit(
        ["كلمة أخرى تماما"]).transform(NEW)
    assert (refit.transform(NEW) != expected).nnz == 0


@pytest.mark.parametrize("fit", ["fit", "fit_transform"])
def test_a_loaded_vectorizer_knows_its_training_words_and_cuts_n_grams_only_for_new_ones(
        fit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = SETTINGS[0]
    vectorizer = ReusingTfidfVectorizer(dtype=np.float32, **settings)
    getattr(vectorizer, fit)(iter(TRAIN))  # any iterable, as scikit-learn's
    loaded = pickle.loads(pickle.dumps(vectorizer))
    assert "_word_ids" not in loaded.__dict__
    training_words = {w for doc in TRAIN for w in normalize(doc).split()}
    assert set(loaded.word_table_.words) == training_words
    cut: list[str] = []
    real = vectorizers.char_wb_ngrams
    monkeypatch.setattr(vectorizers, "char_wb_ngrams",
                        lambda word, ngram_range: cut.append(word) or real(word, ngram_range))
    got = loaded.transform(NEW)
    new_words = {w for doc in NEW for w in normalize(doc).split()} - training_words
    assert set(cut) == new_words == {"vaccine", "الجديد", "و"}
    expected = TfidfVectorizer(dtype=np.float32, **settings).fit(TRAIN).transform(NEW)
    assert (got != expected).nnz == 0
    # a model pickled before the table existed still transforms the same, cutting every word
    old = pickle.loads(pickle.dumps(vectorizer))
    del old.word_table_
    assert (old.transform(NEW) != expected).nnz == 0 and "لقاح" in cut


def test_only_character_vectorizers_keep_a_word_table() -> None:
    assert not hasattr(ReusingTfidfVectorizer(dtype=np.float32, **SETTINGS[2]).fit(TRAIN), "word_table_")
