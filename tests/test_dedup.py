"""Duplicate claims: exact hashes, shingle near-duplicates across sites, equal to brute force."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from arastance.base.arabic import normalize
from tasks.dedup import cluster_claims, near_duplicate_pairs, shingle_matrix


def brute_force_pairs(texts: list[str], k: int, threshold: float) -> set[tuple[int, int]]:
    """Every pair compared with Python sets: the reference the blocked search must equal."""
    shingles = [{t[i:i + k] for i in range(len(t) - k + 1)} if len(t) >= k else {t} for t in texts]
    return {
        (i, j)
        for i, j in itertools.combinations(range(len(texts)), 2)
        if shingles[i] and shingles[j] and len(shingles[i] & shingles[j]) / len(shingles[i] | shingles[j]) >= threshold - 1e-9
    }


def test_shingle_matrix_counts_distinct_character_shingles() -> None:
    x = shingle_matrix(["ابتث", "ابتثج", "اب", "ابتث"], 4)
    assert list(np.diff(x.indptr)) == [1, 2, 1, 1]  # a short text is one shingle of its own
    assert x[0].indices.tolist() == x[3].indices.tolist()
    assert set(x[0].indices) < set(x[1].indices)
    assert x.data.max() == 1.0


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8, 1.0])
def test_blocked_search_equals_brute_force(threshold: float) -> None:
    rng = random.Random(7)
    words = ["".join(rng.choice("ابتثجحخدرزسشصطعفقكلمنهوي") for _ in range(rng.randint(2, 6))) for _ in range(80)]
    texts = []
    for _ in range(150):
        base = [rng.choice(words) for _ in range(rng.randint(2, 10))]
        texts.append(" ".join(base))
        if rng.random() < 0.4:
            variant = base[:]
            variant[rng.randrange(len(variant))] = rng.choice(words)
            texts.append(" ".join(variant))
    left, right, sims = near_duplicate_pairs(shingle_matrix(texts, 4), threshold)
    assert set(zip(left.tolist(), right.tolist())) == brute_force_pairs(texts, 4, threshold)
    assert np.all(sims >= threshold - 1e-9)


def test_same_rumour_on_two_sites_lightly_reworded_is_one_cluster() -> None:
    claims = {
        "araanews-1": "إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب الإنفلونزا",
        "dabegad-7": "إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب انتشار الإنفلونزا",
        "norumors-3": "اغلاق جميع المدارس بدبي لمدة اسبوعين بسبب الانفلونزا",
        "araanews-2": "ارتفاع أسعار الذهب في أسواق الشارقة",
    }
    members = cluster_claims(list(claims), [normalize(t) for t in claims.values()], threshold=0.8, shingle_size=4)
    by_id = {m.claim_id: m for m in members}
    assert set(by_id) == {"araanews-1", "dabegad-7", "norumors-3"}
    assert {m.cluster_id for m in members} == {"araanews-1"}  # the first in input order represents it
    assert by_id["araanews-1"].similarity == 1.0
    assert 0.8 <= by_id["dabegad-7"].similarity < 1.0
    assert {m.method for m in members} == {"shingle_jaccard"}


def test_exact_duplicates_share_a_hash_cluster() -> None:
    ids = ["a", "b", "c", "d"]
    texts = [normalize("حقيقة وفاة الفنان"), normalize("حقيقة وفاة الفنان"), normalize("حقيقه وفاه الفنان"), "خبر مختلف تماما"]
    members = cluster_claims(ids, texts, threshold=0.9, shingle_size=4)
    assert [(m.claim_id, m.cluster_id, m.similarity, m.method) for m in members] == [
        ("a", "a", 1.0, "exact_hash"), ("b", "a", 1.0, "exact_hash"), ("c", "a", 1.0, "exact_hash"),
    ]


def test_threshold_decides_whether_template_variants_merge() -> None:
    # The same template about two cities (Jaccard 0.83): two rumours, yet close in characters.
    # The configurable threshold is the knob between catching rewordings and merging these.
    texts = [
        normalize("إصابة عشرات الطلاب بمرض إنفلونزا الخنازير في الفجيرة"),
        normalize("إصابة عشرات الطلاب بمرض إنفلونزا الخنازير في الدمام"),
    ]
    assert cluster_claims(["x", "y"], texts, threshold=0.85, shingle_size=4) == []
    assert len(cluster_claims(["x", "y"], texts, threshold=0.8, shingle_size=4)) == 2


def test_claims_stating_different_numbers_never_merge() -> None:
    texts = [
        normalize("عجز ميزانية الجزائر يتراجع إلى 7.6 بالمئة من الناتج في 2017"),
        normalize("عجز ميزانية الجزائر يتراجع إلى 7.6 بالمئة من الناتج في 2018"),  # Jaccard 0.96
        normalize("عجز ميزانية الجزائر يتراجع الى ٧.٦ بالمئة من الناتج في ٢٠١٧"),  # same numbers, other digits
    ]
    members = cluster_claims(["a", "b", "c"], texts, threshold=0.8, shingle_size=4)
    assert {(m.claim_id, m.cluster_id) for m in members} == {("a", "a"), ("c", "a")}


def test_clusters_are_transitive_and_deterministic() -> None:
    a = "وزارة التعليم قررت تعليق الدراسة في جميع مدارس بريدة لمدة أسبوعين"
    b = "وزارة التعليم قررت تعليق الدراسة في جميع مدارس بريدة لمدة أسبوع"
    c = "وزارة التعليم قررت تعليق الدراسة في مدارس بريدة لمدة أسبوع"
    texts = [normalize(t) for t in (a, b, c, "", "موضوع آخر لا علاقة له")]
    ids = ["1", "2", "3", "4", "5"]
    first = cluster_claims(ids, texts, threshold=0.8, shingle_size=4)
    assert first == cluster_claims(ids, texts, threshold=0.8, shingle_size=4)
    assert {m.claim_id for m in first} == {"1", "2", "3"}  # the empty text never clusters
    assert {m.cluster_id for m in first} == {"1"}


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="2 claim ids but 1 texts"):
        cluster_claims(["a", "b"], ["x"], threshold=0.5, shingle_size=4)
    with pytest.raises(ValueError, match="threshold must be in"):
        cluster_claims(["a"], ["x"], threshold=0, shingle_size=4)
    assert cluster_claims([], [], threshold=0.5, shingle_size=4) == []
    assert cluster_claims(["a", "b"], ["", ""], threshold=0.5, shingle_size=4) == []
