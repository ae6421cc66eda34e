"""Claim-article pairs as encoder inputs: the claim as the first segment, its evidence as the second.

A BERT encoder reads at most ``max_length`` word pieces. The claim is short and decides what to
look for, so it is kept whole; the article gets what remains of the budget after the claim and
the special tokens ([CLS] claim [SEP] evidence [SEP]). Rather than the article's first word
pieces, the evidence selector (:mod:`tasks.stance.evidence`) keeps the sentences most similar to
the claim, counted in the encoder's own word pieces so the budget is exact. Truncation remains
as a safety net for a claim that alone exceeds the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from arastance.progress import track
from tasks.stance.evidence import EvidenceMode, select_evidence
from tasks.stance.examples import StanceExample


def evidence_budget(tokenizer: PreTrainedTokenizerBase, claim: str, max_length: int) -> int:
    """Word pieces left for the article once the claim and the pair's special tokens are placed."""
    used = tokenizer.num_special_tokens_to_add(pair=True) + len(tokenizer.tokenize(claim))
    return max(max_length - used, 0)


def evidence_texts(
    examples: Sequence[StanceExample],
    tokenizer: PreTrainedTokenizerBase,
    *,
    max_length: int,
    mode: EvidenceMode = "select",
) -> list[str]:
    """The second segment of each pair: the article's evidence within the remaining budget."""

    def count(text: str) -> int:
        return len(tokenizer.tokenize(text))

    out = []
    for ex in track(examples, "selecting evidence", unit="pairs", min_total=500):
        budget = evidence_budget(tokenizer, ex.claim, max_length)
        out.append(select_evidence(ex.claim, ex.article, budget=budget, mode=mode, title=ex.article_title,
                                   count_tokens=count).text)
    return out


class PairDataset(torch.utils.data.Dataset):
    """Tokenised pairs (unpadded; the collator pads each batch to its longest pair)."""

    def __init__(self, features: list[dict[str, Any]]) -> None:
        self.features = features

    def __len__(self) -> int:
        return len(self.features)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.features[index]


def encode_pairs(
    examples: Sequence[StanceExample],
    tokenizer: PreTrainedTokenizerBase,
    *,
    max_length: int,
    mode: EvidenceMode = "select",
    label_ids: Sequence[int] | None = None,
) -> PairDataset:
    """Tokenise (claim, evidence) pairs; with ``label_ids`` (one per example) each feature carries its label."""
    if not examples:
        return PairDataset([])
    evidence = evidence_texts(examples, tokenizer, max_length=max_length, mode=mode)
    encoded = tokenizer([ex.claim for ex in examples], evidence, truncation="longest_first", max_length=max_length)
    features = [{key: encoded[key][i] for key in encoded} for i in range(len(examples))]
    if label_ids is not None:
        if len(label_ids) != len(examples):
            raise ValueError(f"{len(label_ids)} label ids for {len(examples)} examples")
        for feature, label_id in zip(features, label_ids):
            feature["labels"] = int(label_id)
    return PairDataset(features)
