"""Stance models: the CPU default and transformer fine-tuning."""

from typing import Literal

from pydantic import BaseModel, Field


class ModelSettings(BaseModel):
    """Defaults follow the AraStance paper's fine-tuning set-up."""

    default: Literal["cpu", "transformer"] = "cpu"
    transformer: str = Field(
        default="UBC-NLP/ARBERT", description="a Hugging Face hub id or a local directory"
    )
    encoders: list[str] = [
        "bert-base-multilingual-cased",
        "asafaya/bert-base-arabic",
        "UBC-NLP/ARBERT",
        "UBC-NLP/MARBERT",
    ]
    max_length: int = Field(default=512, ge=16, le=4096)
    batch_size: int = Field(default=16, ge=1)
    learning_rate: float = Field(default=2e-5, gt=0)
    epochs: int = Field(default=25, ge=1)
    patience: int = Field(default=5, ge=1)
    seed: int = 42
    retrain_after_new_labels: int = Field(default=200, ge=1)
