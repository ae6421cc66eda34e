"""Metrics against hand-computed values, the confusion-matrix image and the results table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tasks.stance.labels import FOUR_WAY, THREE_WAY
from tasks.stance.metrics import evaluate, plot_confusion, results_table

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


def test_absent_class_counts_as_zero_in_macro_f1() -> None:
    ev = evaluate(["agree", "disagree"], ["agree", "agree"], THREE_WAY)
    assert ev.f1 == {"agree": pytest.approx(2 / 3), "disagree": 0.0, "other": 0.0}
    assert ev.macro_f1 == pytest.approx(2 / 9)


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
    assert lines[2] == "| m1 | 0.50 | 0.67 | 1.00 | 0.67 | 0.67 | 0.71 | 1.00 | 0.00 | 1.00 | 1.00 | 0.67 |"
    assert lines[3].startswith("| m2 | – | – | – | – | – | – | 1.00 |")
