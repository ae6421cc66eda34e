"""Selection as a plain function: windows, cap, ties, exclusions, sampling, determinism."""

from __future__ import annotations

import random
from datetime import date

import pytest

from arastance.config.selection import SelectionSettings
from helpers_true_claims import CHOLERA, FLOOD, FUEL, rec
from tasks.true_claims.select import ClaimRecord, SelectionResult, select_true_claims

EXTRA = ["صباحا", "مساء", "فجرا", "ظهرا", "ليلا", "عصرا", "غدا", "امس"]
WORDS = ["بحر", "جبل", "نهر", "سهل", "غيم", "رمل", "ثلج", "برق", "رعد", "مطر", "قمر", "شمس", "نجم", "ورد", "زهر"]


def _select(seeds: list[ClaimRecord], heads: list[ClaimRecord], **settings: object) -> SelectionResult:
    return select_true_claims(seeds, heads, SelectionSettings(**settings))


def _chosen(result: SelectionResult, seed_id: str) -> list[str]:
    return [m.headline_claim_id for m in result.matches if m.seed_claim_id == seed_id]


def _flood_headlines(days: dict[str, date]) -> list[ClaimRecord]:
    """Near-identical flood headlines (one distinct word each, so none is a duplicate)."""
    return [rec(cid, f"{FLOOD} {EXTRA[i]}", day) for i, (cid, day) in enumerate(days.items())]


@pytest.mark.parametrize(
    ("seed_day", "inside", "outside"),
    [
        # 31 May - 3 months = 29 Feb (leap year); 31 May + 3 months = 31 Aug.
        (date(2016, 5, 31), [date(2016, 2, 29), date(2016, 8, 31)], [date(2016, 2, 28), date(2016, 9, 1)]),
        # exactly three months before and after are inside, one day more is not
        (date(2017, 4, 15), [date(2017, 1, 15), date(2017, 7, 15)], [date(2017, 1, 14), date(2017, 7, 16)]),
        # a seed on 29 February
        (date(2016, 2, 29), [date(2015, 11, 29), date(2016, 5, 29)], [date(2015, 11, 28), date(2016, 5, 30)]),
        # 31 May - 3 months in a common year is 28 Feb
        (date(2017, 5, 31), [date(2017, 2, 28)], [date(2017, 2, 27)]),
    ],
)
def test_window_edges(seed_day: date, inside: list[date], outside: list[date]) -> None:
    days = {f"in{i}": d for i, d in enumerate(inside)} | {f"out{i}": d for i, d in enumerate(outside)}
    result = _select([rec("s", FLOOD, seed_day)], _flood_headlines(days))
    assert sorted(_chosen(result, "s")) == sorted(k for k in days if k.startswith("in"))


def test_window_months_is_configurable() -> None:
    days = {"one": date(2016, 6, 30), "two": date(2016, 7, 31)}
    heads = _flood_headlines(days)
    assert _chosen(_select([rec("s", FLOOD, date(2016, 5, 31))], heads, window_months=1), "s") == ["one"]
    assert sorted(_chosen(_select([rec("s", FLOOD, date(2016, 5, 31))], heads, window_months=2), "s")) == ["one", "two"]


def test_top_k_keeps_the_most_similar_in_score_order() -> None:
    seed = rec("s", " ".join(WORDS), date(2016, 6, 1))
    # headline i shares the first i words of the seed: more words, higher similarity
    heads = [rec(f"h{i:02d}", " ".join(WORDS[:i]), date(2016, 6, 1)) for i in range(1, 16)]
    result = _select([seed], heads)
    assert _chosen(result, "s") == [f"h{i:02d}" for i in range(15, 5, -1)]
    assert [m.rank for m in result.matches] == list(range(1, 11))
    scores = [m.score for m in result.matches]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 10
    assert _chosen(_select([seed], heads, top_k=3), "s") == ["h15", "h14", "h13"]


def test_ties_break_by_time_distance_then_date_then_claim_id() -> None:
    seed = rec("s", "بحر جبل", date(2016, 6, 15))
    heads = [  # every headline shares one word with the seed and adds one unseen word: equal scores
        rec("far", "بحر نهر", date(2016, 6, 5)),       # 10 days before: the earliest, yet last
        rec("t1", "بحر سهل", date(2016, 6, 20)),       # 5 days after
        rec("t0", "بحر غيم", date(2016, 6, 20)),       # 5 days after, smaller id
        rec("before", "بحر رمل", date(2016, 6, 10)),   # 5 days before: earlier date wins the tie
    ]
    result = _select([seed], heads)
    assert len({m.score for m in result.matches}) == 1
    assert _chosen(result, "s") == ["before", "t0", "t1", "far"]
    assert _chosen(_select([seed], heads, top_k=3), "s") == ["before", "t0", "t1"]


def test_same_input_in_any_order_gives_the_same_result() -> None:
    seeds = [rec(f"s{i}", text, date(2015 + i % 3, 1 + i % 12, 1 + i)) for i, text in enumerate([FLOOD, FUEL, CHOLERA] * 3)]
    heads = [rec(f"h{i}", f"{text} {EXTRA[i % 8]} {WORDS[i % 15]}", date(2015 + i % 3, 1 + i % 12, 10))
             for i, text in enumerate([FLOOD, FUEL, CHOLERA] * 10)]
    first = _select(seeds, heads)
    shuffled_seeds, shuffled_heads = seeds[:], heads[:]
    random.Random(3).shuffle(shuffled_seeds)
    random.Random(4).shuffle(shuffled_heads)
    again = _select(shuffled_seeds, shuffled_heads)
    assert first.matches and first == again


def test_empty_windows_and_empty_inputs_select_nothing() -> None:
    seed = rec("s", FLOOD, date(2014, 1, 1))
    far_away = _select([seed], _flood_headlines({"h": date(2016, 1, 1)}))
    assert far_away.matches == [] and far_away.seeds_used == 1 and far_away.seeds_matched == 0
    assert _select([seed], []).matches == []
    assert _select([], _flood_headlines({"h": date(2014, 1, 1)})).matches == []


def test_duplicate_headlines_are_kept_once() -> None:
    heads = [
        rec("late", FLOOD, date(2016, 3, 1)),
        rec("early", FLOOD, date(2016, 2, 1)),
        rec("marks", "سُيولٌ جارفة تغمر شوارع مدينة جدة، وتعطل حركة المرور!", date(2016, 2, 1)),
    ]
    result = _select([rec("s", FLOOD, date(2016, 3, 15))], heads)
    assert _chosen(result, "s") == ["early"]
    dups = {e.claim_id: e.detail for e in result.exclusions if e.reason == "duplicate"}
    assert dups == {"late": "early", "marks": "early"}
    assert result.headlines_eligible == 1


def test_seeds_in_different_years_get_their_own_years_headlines() -> None:
    seeds = [rec("s2013", FLOOD, date(2013, 6, 1)), rec("s2017", FLOOD, date(2017, 6, 1))]
    heads = _flood_headlines({"h2013": date(2013, 7, 1), "h2017": date(2017, 5, 1), "h2015": date(2015, 6, 1)})
    result = _select(seeds, heads)
    assert _chosen(result, "s2013") == ["h2013"] and _chosen(result, "s2017") == ["h2017"]


def test_a_headline_chosen_by_several_seeds_is_one_true_claim_with_all_provenance() -> None:
    seeds = [rec("a", FLOOD, date(2016, 1, 10)), rec("b", f"{FLOOD} مجددا", date(2016, 2, 10))]
    result = _select(seeds, _flood_headlines({"h": date(2016, 1, 20)}))
    assert result.selected_headline_ids == ["h"]
    assert [(m.seed_claim_id, m.rank) for m in result.matches] == [("a", 1), ("b", 1)]
    assert result.summary()["selected_headlines"] == 1 and result.summary()["matches"] == 2


def test_exclusions_are_recorded_with_reasons_and_counted() -> None:
    seeds = [rec("ok", FLOOD, date(2016, 1, 1)), rec("blank", "  ؟! ", date(2016, 1, 1)),
             rec("none", None, date(2016, 1, 1)), rec("undated", FLOOD, None)]
    heads = [rec("h", f"{FLOOD} صباحا", date(2016, 1, 5)), rec("video", f"{FLOOD} فيديو", date(2016, 1, 5), True),
             rec("empty", "", date(2016, 1, 5)), rec("nodate", f"{FLOOD} مساء", None)]
    result = _select(seeds, heads)
    reasons = {(e.role, e.claim_id): e.reason for e in result.exclusions}
    assert reasons == {
        ("seed", "blank"): "no_text", ("seed", "none"): "no_text", ("seed", "undated"): "no_date",
        ("headline", "video"): "multimedia", ("headline", "empty"): "no_text", ("headline", "nodate"): "no_date",
    }
    assert result.exclusion_counts() == {
        "headline:multimedia": 1, "headline:no_date": 1, "headline:no_text": 1, "seed:no_date": 1, "seed:no_text": 2,
    }
    assert (result.seeds_total, result.seeds_eligible, result.headlines_total, result.headlines_eligible) == (4, 1, 4, 1)
    assert _chosen(result, "ok") == ["h"]


def test_ignore_window_policy_matches_undated_claims_without_a_window() -> None:
    seeds = [rec("undated", FLOOD, None), rec("dated", FLOOD, date(2016, 1, 1))]
    heads = [rec("h2012", f"{FLOOD} صباحا", date(2012, 1, 1)), rec("h2016", f"{FLOOD} مساء", date(2016, 1, 2)),
             rec("hnone", f"{FLOOD} فجرا", None)]
    result = _select(seeds, heads, undated_policy="ignore_window")
    assert sorted(_chosen(result, "undated")) == ["h2012", "h2016", "hnone"]
    assert _chosen(result, "dated") == ["h2016", "hnone"]  # equal score: the dated one first
    assert result.exclusions == []


def test_min_similarity_drops_weak_matches() -> None:
    heads = [rec("close", f"{FLOOD} صباحا", date(2016, 1, 2)), rec("loose", "سيول في جدة", date(2016, 1, 2)),
             rec("other", FUEL, date(2016, 1, 2))]
    seed = rec("s", FLOOD, date(2016, 1, 1))
    assert _chosen(_select([seed], heads, min_similarity=0.0), "s") == ["close", "loose"]  # never a zero score
    assert _chosen(_select([seed], heads, min_similarity=0.6), "s") == ["close"]


def test_character_ngrams_match_inflected_words() -> None:
    seed = rec("s", "الانتخابات البرلمانية", date(2016, 1, 1))
    heads = [rec("h", "انتخابات برلمانية مبكرة", date(2016, 1, 2))]
    assert _select([seed], heads).matches == []
    assert _chosen(_select([seed], heads, analyzer="char"), "s") == ["h"]


def test_seed_sample_is_reproducible_and_order_independent() -> None:
    seeds = [rec(f"s{i}", FLOOD, date(2016, 1, 1 + i)) for i in range(8)]
    heads = _flood_headlines({"h": date(2016, 1, 5)})
    one = _select(seeds, heads, sample_size=3, seed=5)
    two = _select(list(reversed(seeds)), heads, sample_size=3, seed=5)
    assert one.seeds_used == 3 and one == two
    drawn = {tuple(m.seed_claim_id for m in _select(seeds, heads, sample_size=3, seed=s).matches) for s in range(6)}
    assert len(drawn) > 1
    assert _select(seeds, heads, sample_size=50).seeds_used == 8


def test_repeated_claim_id_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"headline record 1: claim_id 'h'"):
        _select([rec("s", FLOOD, date(2016, 1, 1))], [rec("h", FLOOD, date(2016, 1, 1)), rec("h", FUEL, date(2016, 1, 1))])
