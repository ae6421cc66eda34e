"""Which claim-article pairs a saved model was trained on, so that a score on them is not taken for one
on new text.

``arastance evaluate --split train``, or a copy of the training file given as a dev split, scored
1.0 and stored it, and the model card showed it, with nothing to say that the model had seen every
pair. The manifest's data fingerprint covers the training set as a whole and cannot tell one pair.
Here each training pair is kept as a 64-bit hash of its claim and article text (whitespace folded,
so a re-exported copy matches; ids and labels left out, so a relabelled copy matches too), 8 bytes
a pair (100,000 training pairs: 800 kB; hashing takes about 0.5 ms a pair of a few thousand characters).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from arastance.logging import get_logger
from tasks.stance.examples import StanceExample

log = get_logger(__name__)

TRAINED_PAIRS = "trained_pairs.npy"


def pair_hashes(examples: Sequence[StanceExample]) -> np.ndarray:
    """One unsigned 64-bit hash per pair, of its claim and article text with whitespace folded."""
    return np.array([int.from_bytes(hashlib.blake2b(
        "\x1f".join((" ".join(e.claim.split()), " ".join(e.article.split()))).encode(), digest_size=8).digest(), "big")
        for e in examples], dtype=np.uint64)


def save_trained_pairs(directory: Path, train: Sequence[StanceExample]) -> Path:
    """Keep the hashes of the pairs a model was trained on beside it (sorted, each once)."""
    path = Path(directory) / TRAINED_PAIRS
    partial = path.with_suffix(".partial")
    with open(partial, "wb") as file:  # np.save given a name ending in .partial would add .npy to it
        np.save(file, np.unique(pair_hashes(train)), allow_pickle=False)
    os.replace(partial, path)  # whole or absent: a file cut short would read as no pairs at all
    return path


def warn_if_trained_on(directory: Path, examples: Sequence[StanceExample], dataset: str, split: str) -> int | None:
    """How many of ``examples`` the model saved in ``directory`` was trained on, logged as a warning when
    any are; None for a model saved before its pairs were kept, or whose file cannot be read."""
    path = Path(directory) / TRAINED_PAIRS
    try:
        trained = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):  # saved before the file existed, or damaged (empty: EOFError)
        return None
    seen = int(np.isin(pair_hashes(examples), trained).sum())
    if seen:
        log.warning("pairs of the evaluated split were in the model's training data; its score there overstates "
                    "how it does on new text",
                    extra={"dataset": dataset, "split": split, "trained_on": seen, "pairs": len(examples),
                           "model": str(directory)})
    return seen
