"""Agreement statistics against hand-computed values and statsmodels' Fleiss' kappa."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from tasks.annotation.agreement import (
    Profile,
    profile_agreement,
    profile_confusion,
    profile_kappa,
    profile_shares,
    rating_profiles,
    rating_table,
)
from tasks.stance.labels import FOUR_WAY

# Four pairs, three annotators each. Hand computation (categories agree, disagree, discuss, unrelated):
#   p1 [3,0,0,0] P=1;  p2 [0,2,1,0] P=(4+1-3)/6=1/3;  p3 [1,1,1,0] P=0;  p4 [0,0,0,3] P=1
#   mean P = 7/12; margins 4/12, 3/12, 2/12, 3/12; chance = 38/144 = 19/72
#   kappa = (7/12 - 19/72) / (1 - 19/72) = 23/53
PILOT = {
    "p1": ["agree", "agree", "agree"],
    "p2": ["disagree", "disagree", "discuss"],
    "p3": ["agree", "disagree", "discuss"],
    "p4": ["unrelated", "unrelated", "unrelated"],
}


def profiles_of(labels_by_pair: dict[str, list[str]]) -> dict[Profile, int]:
    """The rating profiles of labels held in Python (the warehouse counts them in SQL)."""
    return rating_profiles(rating_table(labels_by_pair))


def fleiss_kappa(table: list[list[int]]) -> float:
    return profile_kappa(rating_profiles(table))


def test_rating_table_counts_labels_per_pair_in_label_order() -> None:
    assert rating_table(PILOT) == [[3, 0, 0, 0], [0, 2, 1, 0], [1, 1, 1, 0], [0, 0, 0, 3]]


def test_fleiss_kappa_matches_hand_computation() -> None:
    assert fleiss_kappa(rating_table(PILOT)) == pytest.approx(23 / 53, abs=1e-12)


def test_fleiss_kappa_matches_statsmodels_on_the_same_tables() -> None:
    rng = random.Random(5)
    for raters in (2, 3, 5):
        for _ in range(20):
            labels = {
                f"p{i}": [rng.choice(FOUR_WAY[: rng.randint(2, 4)]) for _ in range(raters)] for i in range(rng.randint(3, 40))
            }
            table = rating_table(labels)
            ours, theirs = fleiss_kappa(table), sm_fleiss_kappa(np.array(table))
            assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12)
    assert sm_fleiss_kappa(np.array(rating_table(PILOT))) == pytest.approx(23 / 53)


def test_perfect_agreement_is_one_and_a_single_label_everywhere_is_undefined() -> None:
    assert fleiss_kappa([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 2]]) == pytest.approx(1.0)
    assert math.isnan(fleiss_kappa([[3, 0, 0, 0], [3, 0, 0, 0]]))


def test_fleiss_kappa_rejects_unequal_or_too_few_ratings() -> None:
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa([[2, 0, 0, 0], [1, 0, 0, 0]])
    with pytest.raises(ValueError, match="at least two"):
        fleiss_kappa([[1, 0, 0, 0]])
    with pytest.raises(ValueError, match="at least one"):
        fleiss_kappa([])
    with pytest.raises(ValueError, match="not a 4-way"):
        rating_table({"p": ["agree", "maybe"]})


def test_agreement_shares_full_two_and_none() -> None:
    shares = profile_shares(profiles_of({**PILOT, "p5": ["agree"]}))  # a single label cannot agree: not counted
    assert (shares.pairs, shares.full, shares.partial, shares.none) == (4, 2, 1, 1)
    assert shares.share(shares.full) == 0.5


def test_confusion_table_counts_disagreeing_annotator_pairs() -> None:
    # p2 gives disagree-discuss twice; p3 gives agree-disagree, agree-discuss, disagree-discuss once each.
    assert profile_confusion(profiles_of(PILOT)) == [
        {"label_a": "disagree", "label_b": "discuss", "count": 3, "share": 0.6},
        {"label_a": "agree", "label_b": "disagree", "count": 1, "share": 0.2},
        {"label_a": "agree", "label_b": "discuss", "count": 1, "share": 0.2},
    ]


def test_round_agreement_uses_pairs_with_the_usual_number_of_labels_for_kappa() -> None:
    report = profile_agreement("pilot-1", profiles_of({**PILOT, "p6": ["agree", "discuss"]}))
    assert report.raters_per_pair == 3 and report.kappa_pairs == 4
    assert report.kappa == pytest.approx(23 / 53)
    assert report.shares.pairs == 5 and report.shares.none == 2
    rows = {r["metric"]: r["value"] for r in report.summary_rows()}
    assert rows["full agreement"] == "2 (40.0%)"
