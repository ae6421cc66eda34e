"""The CPU model's cascade mode: static e5 answers the pairs it is sure of, contextual e5 the rest."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import record_e5_inputs, tiny_examples

from tasks.stance.cpu_model import (
    FAST_MODEL_FILE,
    CpuModelConfig,
    CpuStanceModel,
    choose_route,
    tune,
    tuning_folds,
)
from tasks.stance.features import E5Features, EvidenceStep, SimilarityFeatures
from tasks.stance.metrics import evaluate
from tasks.stance.persistence import ModelFormatError


def _split(examples):
    return [e for e in examples if e.claim_id != "c4"], [e for e in examples if e.claim_id == "c4"]


def _unseen(examples):
    """The same pairs with article text no model has embedded (so a cold predict must run e5 for them)."""
    return [replace(e, article=f"{e.article} وأضاف مصدر رقم {i} تفاصيل جديدة") for i, e in enumerate(examples)]


@pytest.fixture(scope="module")
def cascade(tmp_path_factory: pytest.TempPathFactory) -> tuple[CpuStanceModel, Path, dict]:
    """A trained cascade, saved with its threshold moved to route half of the pairs (the tiny data's
    folds may well choose to route none); and what training chose."""
    root = tmp_path_factory.mktemp("cascade")
    train, _ = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full_diff", e5_mode="cascade", cascade_share=0.5, jobs=1),
                           embedding_cache=root / "e5.sqlite").fit(train)
    chosen = dict(model.cascade)
    confidence = model._proba(model.fast_pipeline, _unseen(tiny_examples())).max(axis=1)
    model.cascade["route_below"] = float(np.median(confidence))
    return model, model.save(root / "model"), chosen


def test_the_route_is_chosen_on_held_out_folds_up_to_the_share(cascade) -> None:
    model, _, chosen = cascade
    train, _ = _split(tiny_examples())
    y = np.asarray([e.label for e in train])
    held_out = {}
    for mode, tuned in (("static", model.tuned["fast"]), ("contextual", model.tuned)):
        config = replace(model.config, e5_mode=mode, C=tuned["C"], e5_weight=tuned["e5_weight"])
        held_out[mode] = tune(config, train, y, model.embedder, grid=((config.C, config.e5_weight),)).held_out
        assert held_out[mode].shape == (len(train), 4)
        np.testing.assert_allclose(held_out[mode].sum(axis=1), 1.0)
    folds = [test for _, test in tuning_folds(np.asarray([e.claim_id for e in train]), 3, model.config.seed)]
    assert chosen == choose_route(held_out["static"], held_out["contextual"], y, 0.5, folds)
    assert [c["share"] for c in chosen["candidates"]] == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4,
                                                                  0.45, 0.5]
    assert chosen["from"] == "held-out folds" and 0.0 <= chosen["share"] <= 0.5
    # what the cascade would have answered on each training pair from the folds that held its claim out
    routed = held_out["static"].max(axis=1) < chosen["route_below"]
    np.testing.assert_allclose(model.out_of_fold, np.where(routed[:, None], held_out["contextual"], held_out["static"]))
    # both pipelines were tuned on train, each in its own e5 mode
    assert {"C", "e5_weight", "candidates"} <= set(model.tuned) and {"C", "e5_weight"} <= set(model.tuned["fast"])
    assert model.name.endswith("-cascade") and model.describe()["cascade"] == model.cascade


def _probabilities(predicted: list[int], confidence: list[float]) -> np.ndarray:
    """Two-class probabilities: ``confidence`` on the ``predicted`` class."""
    out = np.zeros((len(predicted), 2))
    for i, (label, p) in enumerate(zip(predicted, confidence)):
        out[i, label], out[i, 1 - label] = p, 1 - p
    return out


def test_choose_route_passes_on_the_pairs_the_contextual_model_gets_right_and_only_those() -> None:
    y = np.array(["a"] * 10 + ["b"] * 10)
    truth = [0] * 10 + [1] * 10
    folds = [np.arange(0, 20, 2), np.arange(1, 20, 2)]  # each fold holds both labels and two unsure pairs
    # the static model is right where sure (0.9) and wrong on its four least sure pairs (0.55)
    unsure = {0, 1, 10, 11}
    fast = _probabilities([1 - t if i in unsure else t for i, t in enumerate(truth)],
                          [0.55 if i in unsure else 0.9 for i in range(20)])
    right = _probabilities(truth, [0.8] * 20)
    route = choose_route(fast, right, y, 0.5, folds)
    assert route["share"] == 0.2 and 0.55 < route["route_below"] <= 0.9
    assert max(c["cv_macro_f1"] for c in route["candidates"]) == 1.0
    assert route["rule"] == "smallest share within one standard error of the best"
    wrong = _probabilities([1 - t for t in truth], [0.8] * 20)
    assert choose_route(fast, wrong, y, 0.5, folds)["share"] == 0.0  # the contextual model only hurts
    capped = choose_route(fast, right, y, 0.1, folds)
    assert capped["share"] <= 0.1 and capped["candidates"][-1]["share"] == 0.1


def test_choose_route_scores_each_fold_as_evaluation_scores_macro_f1() -> None:
    """Fold 0 holds no disagree pair, yet the model predicts one there: evaluation counts that class as
    F1 0 (an invented class), and so must the cascade's choice (it left the class out: one rule chose
    the model, another reported it)."""
    y = np.array(["agree", "agree", "other", "agree", "disagree", "other"])
    answers = [0, 1, 2, 0, 1, 1]  # fold 0: one agree taken for disagree; fold 1: one other for disagree
    proba = np.eye(3)[answers] * 0.8 + 0.2 / 3
    folds = [np.arange(3), np.arange(3, 6)]
    labels = tuple(np.unique(y))
    expected = np.mean([evaluate(list(y[f]), [labels[a] for a in np.asarray(answers)[f]], labels).macro_f1
                        for f in folds])
    route = choose_route(proba, proba, y, 0.1, folds)
    assert all(c["cv_macro_f1"] == pytest.approx(expected) for c in route["candidates"])
    assert expected == pytest.approx(((2 / 3 + 0 + 1) / 3 + (1 + 2 / 3 + 0) / 3) / 2)


def test_choose_route_does_not_pay_for_a_gain_within_the_spread_of_the_folds() -> None:
    """Fold B is easy, fold A hard (six sure mistakes): the contextual model fixes A's one unsure pair.
    That gain (.05) is far below the folds' spread, so no pair is routed; a pooled or mean score alone
    would route it. Once A's other mistakes are gone the folds agree and the same gain is taken."""
    y = np.array((["a"] * 10 + ["b"] * 10) * 2)
    truth = ([0] * 10 + [1] * 10) * 2
    folds = [np.arange(20), np.arange(20, 40)]
    right = _probabilities(truth, [0.8] * 40)

    def static(sure_mistakes: set[int]) -> np.ndarray:
        wrong = sure_mistakes | {0}
        return _probabilities([1 - t if i in wrong else t for i, t in enumerate(truth)],
                              [0.55 if i == 0 else 0.9 for i in range(40)])

    noisy = choose_route(static({1, 2, 3, 11, 12, 13}), right, y, 0.5, folds)
    by_share = {c["share"]: c for c in noisy["candidates"]}
    gain = by_share[0.05]["cv_macro_f1"] - by_share[0.0]["cv_macro_f1"]
    assert 0 < gain < by_share[0.05]["cv_se"] and noisy["share"] == 0.0
    assert choose_route(static(set()), right, y, 0.5, folds)["share"] == pytest.approx(1 / 40)


def test_confident_pairs_keep_the_static_answer_and_the_rest_get_the_contextual_one(cascade) -> None:
    model, _, _ = cascade
    pairs = _unseen(tiny_examples())
    fast, full = model._proba(model.fast_pipeline, pairs), model._proba(model.pipeline, pairs)
    routed = fast.max(axis=1) < model.cascade["route_below"]
    assert routed.any() and not routed.all()
    expected = np.where(routed[:, None], full, fast)
    np.testing.assert_allclose(model.predict_proba(pairs), expected)
    assert model.predict(pairs) == [model.labels[i] for i in expected.argmax(axis=1)]


def test_an_empty_batch_gets_an_empty_answer_from_the_cascade(cascade) -> None:
    # it was: the empty batch went to the contextual pipeline, and scikit-learn refused it
    model, _, _ = cascade
    assert model.predict_proba([]).shape == (0, 4) and model.predict([]) == []


def test_a_cold_predict_runs_e5_only_on_the_routed_pairs(cascade, monkeypatch: pytest.MonkeyPatch) -> None:
    model, directory, _ = cascade
    sent = record_e5_inputs(monkeypatch)
    def embedded(predict) -> set[str]:
        """The texts a cold model sends to e5 while ``predict(model)`` runs."""
        sent.clear()
        predict(CpuStanceModel.load(directory, embedding_cache=None))
        return set(sent)

    pairs = _unseen(tiny_examples())
    cold = CpuStanceModel.load(directory, embedding_cache=None)
    fast = cold._proba(cold.fast_pipeline, pairs)
    assert sent == []  # the static pipeline never runs e5
    routed = [p for p, conf in zip(pairs, fast.max(axis=1)) if conf < cold.cascade["route_below"]]
    assert 0 < len(routed) < len(pairs)
    np.testing.assert_allclose(cold.predict_proba(pairs), model.predict_proba(pairs), rtol=1e-6)
    cascade_texts = embedded(lambda m: m.predict(pairs))
    assert cascade_texts == embedded(lambda m: m._proba(m.pipeline, routed))  # the routed pairs' texts, no more
    assert cascade_texts < embedded(lambda m: m._proba(m.pipeline, pairs))  # contextual alone embeds more


def test_a_routed_pair_reuses_every_block_but_e5_from_the_static_pass(cascade, monkeypatch: pytest.MonkeyPatch) -> None:
    model, _, _ = cascade
    pairs = _unseen(tiny_examples())
    rows: dict[str, int] = {"evidence": 0, "similarity": 0, "e5": 0}
    with monkeypatch.context() as patched:  # undone alone: monkeypatch.undo() also undid the isolated settings
        for name, cls in (("evidence", EvidenceStep), ("similarity", SimilarityFeatures), ("e5", E5Features)):
            def counting(self, X, _transform=cls.transform, _name=name):
                rows[_name] += len(X)
                return _transform(self, X)
            patched.setattr(cls, "transform", counting)
        proba = model.predict_proba(pairs)
    routed = int((model._proba(model.fast_pipeline, pairs).max(axis=1) < model.cascade["route_below"]).sum())
    assert 0 < routed < len(pairs)
    # evidence and the similarity block once per pair; e5 once per pair (static) and again per routed pair
    assert rows == {"evidence": len(pairs), "similarity": len(pairs), "e5": len(pairs) + routed}
    np.testing.assert_allclose(proba, model.predict_proba(pairs))


def test_the_saved_cascade_keeps_both_pipelines_and_its_threshold(cascade) -> None:
    model, directory, _ = cascade
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["config"]["e5_mode"] == "cascade" and manifest["cascade"] == model.cascade
    assert (directory / FAST_MODEL_FILE).is_file()
    loaded = CpuStanceModel.load(directory, embedding_cache=model.embedder.cache_path)
    assert loaded.tuned == model.tuned and loaded.cascade == model.cascade
    (directory / FAST_MODEL_FILE).rename(directory / "moved.joblib")
    try:
        with pytest.raises(ModelFormatError, match=f"cascade model without {FAST_MODEL_FILE}"):
            CpuStanceModel.load(directory)
    finally:
        (directory / "moved.joblib").rename(directory / FAST_MODEL_FILE)


def test_a_cascade_without_auto_tune_still_routes_on_held_out_folds_and_a_bad_share_is_refused(
        tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", e5_mode="cascade", cascade_share=1.0, auto_tune=False),
                           embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert model.tuned == {} and model.cascade["from"] == "held-out folds"
    assert model.cascade["candidates"][-1]["share"] == 1.0
    contextual = CpuStanceModel(CpuModelConfig(variant="full", auto_tune=False),
                                embedding_cache=tmp_path / "e5.sqlite").fit(train)
    routed = model._proba(model.fast_pipeline, test).max(axis=1) < model.cascade["route_below"]
    np.testing.assert_allclose(model.predict_proba(test)[routed], contextual.predict_proba(test)[routed])
    for share in (0.0, 1.5):
        with pytest.raises(ValueError, match="cascade_share must be in"):
            CpuModelConfig(e5_mode="cascade", cascade_share=share)


def test_the_model_card_says_how_the_cascade_routes(cascade) -> None:
    from tasks.stance.model_card import write_model_card

    model, directory, _ = cascade
    train, _ = _split(tiny_examples())
    card = write_model_card(directory, train, []).read_text(encoding="utf-8")
    assert f"at least {model.cascade['route_below']:.3f}; the contextual-e5 model the rest" in card
    assert "For the cascade's static-e5 model: C = " in card
    assert card.count("- routing the least sure ") == len(model.cascade["candidates"]) == 11
    first = model.cascade["candidates"][0]
    assert f"- routing the least sure 0%: macro-F1 {first['cv_macro_f1']:.4f} ± {first['cv_se']:.4f}" in card
    assert "; the smallest share within one standard error of the best)." in card


def test_with_one_training_claim_the_threshold_comes_from_the_training_pairs(tmp_path: Path) -> None:
    train = [e for e in tiny_examples() if e.claim_id == "c1"]
    model = CpuStanceModel(CpuModelConfig(variant="full", e5_mode="cascade", cascade_share=0.5),
                           embedding_cache=tmp_path / "e5.sqlite").fit(train)
    confidence = model._proba(model.fast_pipeline, train).max(axis=1)
    assert model.cascade == {"route_below": pytest.approx(float(np.quantile(confidence, 0.5))),
                             "share": pytest.approx(float(np.mean(confidence < np.quantile(confidence, 0.5)))),
                             "from": "training pairs"}
    assert model.out_of_fold is None  # nothing was held out


def test_a_variant_without_e5_trains_one_pipeline_whatever_the_e5_mode(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    config = CpuModelConfig(variant="tfidf_sim", e5_mode="cascade")
    model = CpuStanceModel(config, embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert not config.uses_e5 and not config.cascades and CpuModelConfig(variant="full").cascades
    assert model.fast_pipeline is None and model.cascade == {} and model.name == "cpu-tfidf_sim-select"
    plain = CpuStanceModel(replace(config, e5_mode="contextual"), embedding_cache=tmp_path / "e5.sqlite").fit(train)
    np.testing.assert_allclose(model.predict_proba(test), plain.predict_proba(test))
