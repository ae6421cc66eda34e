"""The plain functions the stance and dataset flows call: option checks, schemes, the default
model, the retraining rule, decision counts. Tested without Prefect, as the flows' steps are meant to be."""

from __future__ import annotations

from datetime import datetime

import pytest

from tasks.annotation.gold import GoldDecision, decision_counts
from tasks.stance.labels import FOUR_WAY, THREE_WAY, scheme_of
from tasks.stance.retraining import check_retraining
from tasks.stance.runs import default_model_dir, model_options
from warehouse import Warehouse


def test_model_options_keep_the_kinds_own_options_and_refuse_the_others() -> None:
    assert model_options("cpu", variant="tfidf", two_stage=True, evidence="select", e5_mode="cascade",
                         e5_engine="torch") == {
        "evidence": "select", "variant": "tfidf", "two_stage": True, "e5_mode": "cascade", "e5_engine": "torch"}
    assert model_options("transformer", encoder="/models/tiny", frozen_layers=8) == {
        "evidence": None, "encoder": "/models/tiny", "frozen_layers": 8}
    # the ensemble takes both kinds' options, each for its member
    assert model_options("ensemble", variant="tfidf", encoder="/models/tiny", evidence="truncate") == {
        "evidence": "truncate", "variant": "tfidf", "two_stage": None, "e5_mode": None, "e5_engine": None,
        "encoder": "/models/tiny", "frozen_layers": None}
    with pytest.raises(ValueError, match=r"CPU model \(and the ensemble's\), not to a transformer model"):
        model_options("transformer", two_stage=False)
    with pytest.raises(ValueError, match="e5_mode and e5_engine apply to the CPU model"):
        model_options("transformer", e5_mode="static")
    with pytest.raises(ValueError, match="e5_engine apply to the CPU model"):
        model_options("transformer", e5_engine="torch")
    with pytest.raises(ValueError, match=r"encoder and frozen_layers apply to the transformer model \(and the "
                       r"ensemble's\), not to a cpu model"):
        model_options("cpu", encoder="/models/tiny")
    with pytest.raises(ValueError, match="encoder and frozen_layers apply to the transformer model"):
        model_options("cpu", frozen_layers=0)


def test_a_models_labels_give_its_scheme() -> None:
    assert scheme_of(THREE_WAY) == "3way"
    assert scheme_of(FOUR_WAY) == "4way"


def test_no_trained_model_is_an_error_naming_the_warehouse(warehouse: Warehouse) -> None:
    warehouse.close()  # default_model_dir opens the file itself, read-only
    with pytest.raises(ValueError, match=f"no model has been trained on the warehouse {warehouse.path} yet"):
        default_model_dir(warehouse.path)


def test_decision_counts_name_every_status_asked_for() -> None:
    def decision(pair: str, status: str) -> GoldDecision:
        return GoldDecision(pair, status, "agree" if status == "gold" else None,  # type: ignore[arg-type]
                            "agreed" if status == "gold" else None, datetime(2021, 1, 2), ("a", "b"))

    decisions = [decision("p1", "gold"), decision("p2", "gold"), decision("p3", "discussion")]
    assert decision_counts(decisions) == {"gold": 2, "disputed": 0, "pending": 0, "discussion": 1}
    assert decision_counts(decisions, ("gold", "pending")) == {"gold": 2, "pending": 0}


def test_retraining_is_due_from_the_threshold_on_and_the_pipeline_asks_the_same_rule(warehouse: Warehouse) -> None:
    from flows.pipeline import training_due

    warehouse.insert_rows("gold_labels", [
        {"pair_id": f"p{i}", "label": "agree", "method": "agreed", "decided_at": datetime(2024, 1, i + 1)}
        for i in range(3)])
    warehouse.close()
    assert check_retraining(warehouse.path, 3).due and not check_retraining(warehouse.path, 4).due
    assert check_retraining(warehouse.path, 4).last_training is None  # never trained: every label counts
    assert training_due.fn(warehouse.path, 3) == (True, 3) and training_due.fn(warehouse.path, 4) == (False, 3)
    with pytest.raises(ValueError, match="threshold must be at least 1, not 0"):
        check_retraining(warehouse.path, 0)
