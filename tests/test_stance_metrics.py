"""Metrics against hand-computed values, macro-F1's claim-bootstrap interval, the confusion-matrix image and
the results table."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tasks.stance.labels import FOUR_WAY, THREE_WAY
from tasks.stance.metrics import bootstrap_macro_f1, evaluate, per_class_text, plot_confusion, results_table
from warehouse import Warehouse
from warehouse.model_runs import ModelRun, run_results, start_run, store_evaluation

GOLD = ["agree", "agree", "disagree", "unrelated", "unrelated", "discuss"]
PRED = ["agree", "disagree", "disagree", "unrelated", "agree", "discuss"]


def test_per_class_f1_accuracy_macro_f1_by_hand() -> None:
    ev = evaluate(GOLD, PRED, FOUR_WAY)
    # agree P=1/2 R=1/2; disagree P=1/2 R=1; discuss P=R=1; unrelated P=1 R=1/2
    assert ev.f1 == pytest.approx({"agree": 0.5, "disagree": 2 / 3, "discuss": 1.0, "unrelated": 2 / 3})
    assert ev.precision["disagree"] == pytest.approx(0.5) and ev.recall["unrelated"] == pytest.approx(0.5)
    assert ev.accuracy == pytest.approx(4 / 6)
    assert ev.macro_f1 == pytest.approx((0.5 + 2 / 3 + 1 + 2 / 3) / 4)
    assert ev.support == {"agree": 2, "disagree": 1, "discuss": 1, "unrelated": 2}
    np.testing.assert_array_equal(ev.confusion, [[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]])


def test_a_missed_or_invented_class_counts_as_zero_in_macro_f1_one_on_neither_side_is_left_out() -> None:
    missed = evaluate(["agree", "disagree"], ["agree", "agree"], THREE_WAY)  # disagree never predicted
    assert missed.f1["agree"] == pytest.approx(2 / 3) and missed.f1["disagree"] == 0.0
    assert math.isnan(missed.f1["other"])  # on neither side: no F1 at all
    assert missed.macro_f1 == pytest.approx((2 / 3 + 0) / 2)  # other: in neither gold nor predictions
    invented = evaluate(["agree", "agree"], ["agree", "other"], THREE_WAY)  # other predicted, not in gold
    assert invented.macro_f1 == pytest.approx((2 / 3 + 0) / 2)
    # a perfect model on a split without one of the classes is perfect (it read .67: F1 0 for disagree)
    assert evaluate(["agree", "other", "other"], ["agree", "other", "other"], THREE_WAY).macro_f1 == 1.0


def test_a_perfect_models_interval_is_not_pulled_down_by_draws_without_the_rare_class() -> None:
    """Only one claim of 20 has disagree pairs, so about a third of the draws hold none; every pair is
    right. Those draws scored .67 (disagree counted as F1 0), and the interval read [.67–1]."""
    gold, groups = [], []
    for c in range(20):
        gold += ["disagree"] * 3 if c == 0 else ["agree", "other", "other"]
        groups += [f"c{c}"] * 3
    ev = evaluate(gold, list(gold), THREE_WAY, groups=groups)
    assert ev.macro_f1 == 1.0 and ev.macro_f1_interval == (1.0, 1.0)
    draws = bootstrap_macro_f1(gold, list(gold), THREE_WAY, groups, resamples=200)
    assert np.all(draws == 1.0)
    # a model that misses disagree is still marked down, in the draws that hold c0 (and only those)
    wrong = ["agree" if g == "disagree" else g for g in gold]
    draws = bootstrap_macro_f1(gold, wrong, THREE_WAY, groups, resamples=200)
    assert 0 < np.mean(draws == 1.0) < 1 and draws.min() < 0.7


def test_bad_inputs_are_errors() -> None:
    with pytest.raises(ValueError, match="2 gold labels but 1 predictions"):
        evaluate(["agree", "agree"], ["agree"], FOUR_WAY)
    with pytest.raises(ValueError, match=r"labels \['other'\] are not in the scheme"):
        evaluate(["agree"], ["other"], FOUR_WAY)
    with pytest.raises(ValueError, match="empty"):
        evaluate([], [], FOUR_WAY)


def test_as_metrics_feeds_the_warehouse_rows() -> None:
    metrics = evaluate(GOLD, PRED, FOUR_WAY).as_metrics()
    assert metrics["macro_f1"] == pytest.approx(0.708333, abs=1e-6)
    assert set(metrics["f1"]) == set(FOUR_WAY) and metrics["support"]["agree"] == 2


def test_confusion_png_is_written(tmp_path: Path) -> None:
    path = plot_confusion(evaluate(GOLD, PRED, FOUR_WAY), tmp_path / "fig" / "cm.png", "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000


def test_results_table_layout_rows_models_column_groups_datasets() -> None:
    four = evaluate(GOLD, PRED, FOUR_WAY)
    three = evaluate(["agree", "other"], ["agree", "other"], THREE_WAY)
    table = results_table({"m1": {"Baly": four, "Khouja": three}, "m2": {"Khouja": three}})
    lines = table.strip().splitlines()
    assert lines[0] == ("| Model | Baly A | Baly D | Baly Ds | Baly U | Baly Acc | Baly F1 | "
                        "Khouja A | Khouja D | Khouja O | Khouja Acc | Khouja F1 |")
    # Khouja D: no disagree in gold or predictions, so no F1 (a dash), and macro-F1 leaves it out
    assert lines[2] == "| m1 | 0.50 | 0.67 | 1.00 | 0.67 | 0.67 | 0.71 | 1.00 | – | 1.00 | 1.00 | 1.00 |"
    assert lines[3].startswith("| m2 | – | – | – | – | – | – | 1.00 |")


def test_a_class_on_neither_side_has_no_per_class_figures_shown_or_stored(warehouse: Warehouse) -> None:
    """A perfect model on a dev split without disagree pairs: the table read ``dev D 0.00`` beside
    ``dev F1 1.00`` (macro-F1 rightly leaves the class out), and 0 was stored for it as for a class the
    model got all wrong."""
    gold = ["agree", "agree", "discuss", "unrelated"]
    ev = evaluate(gold, list(gold), FOUR_WAY)
    assert ev.macro_f1 == 1.0 and ev.support["disagree"] == 0
    assert all(math.isnan(figures["disagree"]) for figures in (ev.f1, ev.precision, ev.recall))
    assert ev.f1["agree"] == ev.f1["discuss"] == ev.f1["unrelated"] == 1.0
    row = results_table({"perfect": {"dev": ev}}).splitlines()[2]
    assert row == "| perfect | 1.00 | – | 1.00 | 1.00 | 1.00 | 1.00 |"  # the cells average to macro-F1
    metrics = ev.as_metrics()
    assert math.isnan(metrics["f1"]["disagree"]) and metrics["support"]["disagree"] == 0
    # the warehouse has no row for the class's missing figures (not 0, nor a NaN that a SQL avg would spread)
    start_run(warehouse, ModelRun("r1", "cpu-full", "cpu", {}, "f" * 64, "v1"))
    assert store_evaluation(warehouse, "r1", "khouja", "dev", metrics) == 2 + 4 * 4 - 3
    assert warehouse.scalar("SELECT count(*) FROM evaluations WHERE label = 'disagree' AND metric <> 'support'") == 0
    assert warehouse.scalar("SELECT avg(value) FROM evaluations WHERE metric = 'f1'") == 1.0
    (row,) = run_results(warehouse, "r1")
    assert "disagree_f1" not in row and row["agree_f1"] == row["macro_f1"] == 1.0


def test_a_class_missed_or_invented_keeps_its_zero() -> None:
    """Only a class on neither side loses its figures: one in gold but never predicted, or predicted
    but not in gold, is a real F1 0 and shows as 0.00."""
    gold = ["agree", "disagree", "disagree", "discuss", "unrelated"]
    ev = evaluate(gold, ["agree", "agree", "agree", "discuss", "agree"], FOUR_WAY)  # disagree, unrelated missed
    assert ev.f1["disagree"] == ev.recall["disagree"] == ev.precision["disagree"] == 0.0
    assert results_table({"m": {"dev": ev}}).splitlines()[2] == "| m | 0.40 | 0.00 | 1.00 | 0.00 | 0.40 | 0.35 |"
    invented = evaluate(["agree", "agree", "other"], ["agree", "disagree", "other"], THREE_WAY)
    assert invented.f1["disagree"] == invented.precision["disagree"] == 0.0 and invented.support["disagree"] == 0
    assert results_table({"m": {"dev": invented}}).splitlines()[2] == "| m | 0.67 | 0.00 | 1.00 | 0.67 | 0.56 |"


def _claims_all_right_or_all_wrong(claims: int = 40, pairs: int = 5) -> tuple[list[str], list[str], list[str]]:
    """Claims of ``pairs`` pairs each, every other claim answered entirely right, the rest entirely wrong."""
    gold, predicted, groups = [], [], []
    for c in range(claims):
        for p in range(pairs):
            truth = THREE_WAY[(c + p) % 3]
            gold.append(truth)
            predicted.append(truth if c % 2 else THREE_WAY[(c + p + 1) % 3])
            groups.append(f"claim-{c}")
    return gold, predicted, groups


def test_each_bootstrap_draw_scores_as_evaluate_scores_the_claims_it_drew() -> None:
    gold, predicted, groups = _claims_all_right_or_all_wrong(claims=12, pairs=3)
    predicted[4] = "other"  # not all claims all-or-nothing
    draws = bootstrap_macro_f1(gold, predicted, THREE_WAY, groups, resamples=30, seed=5)
    rng = np.random.default_rng(5)  # the same draws, one claim index at a time, scored pair by pair
    claims = list(dict.fromkeys(groups))
    for draw in draws:
        rows = [i for c in rng.integers(len(claims), size=len(claims)) for i, g in enumerate(groups) if g == claims[c]]
        assert draw == pytest.approx(evaluate([gold[i] for i in rows], [predicted[i] for i in rows], THREE_WAY).macro_f1)


def test_the_interval_holds_the_figure_and_widens_when_a_claims_pairs_go_together() -> None:
    gold, predicted, groups = _claims_all_right_or_all_wrong()
    ev = evaluate(gold, predicted, THREE_WAY, groups=groups)
    assert ev.macro_f1 == pytest.approx(0.5, abs=1e-3)  # half the pairs right, spread over the classes
    low, high = ev.macro_f1_interval
    assert low < 0.5 < high and high - low < 0.5
    # scored as if every pair were its own claim, the same answers look surer than they are
    pairwise = evaluate(gold, predicted, THREE_WAY, groups=[str(i) for i in range(len(gold))]).macro_f1_interval
    assert pairwise[1] - pairwise[0] < 0.8 * (high - low)
    assert {"macro_f1_low": low, "macro_f1_high": high}.items() <= ev.as_metrics().items()
    # without claim ids there is no interval, and nothing claims one
    plain = evaluate(gold, predicted, THREE_WAY)
    assert plain.macro_f1_interval is None and "macro_f1_low" not in plain.as_metrics()
    assert f"0.50 [{low:.2f}–{high:.2f}]" in results_table({"m": {"Khouja": ev}})


def test_the_bootstrap_needs_one_group_per_pair() -> None:
    with pytest.raises(ValueError, match="2 gold labels, 2 predictions and 1 groups"):
        evaluate(["agree", "other"], ["agree", "other"], THREE_WAY, groups=["c1"])


def test_the_benchmarks_per_class_line_shows_a_dash_for_a_class_on_neither_side() -> None:
    # the benchmarks printed "disagree nan"
    gold = ["agree", "agree", "discuss", "unrelated"]
    assert per_class_text(evaluate(gold, gold, FOUR_WAY)) == "agree 1.000  disagree –  discuss 1.000  unrelated 1.000"
