"""The AraStance release: JSON Lines, one claim per line with its articles and their stances."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from arastance.base.ids import stable_id
from arastance.base.jsonl import json_lines
from tasks.stance.datasets.common import (
    DatasetError,
    check_scheme,
    check_split,
    claim_examples,
    require_text,
    unreadable_corpus_file,
    warn_if_in_train,
    without_repeated_pairs,
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme


class AraStanceJsonl:
    """``<root>/{train,dev,test}.jsonl``; keys ``claim``, ``article``, ``stance`` (+ ``article_title``,
    ``article_url``, ``id``). Labels come in any letter case (the release writes Agree, Disagree ...).
    A UTF-8 BOM is allowed, as editors on Windows write one; a claim-article pair twice is refused, and
    a dev or test claim also in the train file is warned of."""

    name = "arastance"
    native_scheme: Scheme = "4way"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_of(self, split: str) -> Path:
        check_split(split, str(self.root))
        return self.root / f"{split}.jsonl"

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        pairs = self.pairs(split, scheme)
        warn_if_in_train(self, split, pairs)
        yield from pairs

    def pairs(self, split: str, scheme: Scheme = "4way") -> list[StanceExample]:
        """The split's pairs, checked, with nothing logged (what another split is compared with)."""
        path = self.path_of(split)
        check_scheme(self.native_scheme, scheme, str(path))
        if not path.is_file():
            raise unreadable_corpus_file(f"AraStance {split} file", path, self.root, "train.jsonl, dev.jsonl and "
                                         "test.jsonl", if_absent=" (run `arastance datasets download arastance`)")
        with path.open("rb") as fh:
            return list(without_repeated_pairs(path, self._located(json_lines(fh, path, DatasetError, allow_bom=True),
                                                                   scheme)))

    def _located(self, records: Iterator[tuple[str, object]], scheme: Scheme) -> Iterator[tuple[str, StanceExample]]:
        """``("line <n>, article <i>", example)`` for each pair of each ``(where, record)``."""
        for where, record in records:
            for i, example in enumerate(self._parse_record(record, scheme, where)):
                yield f"{where.rsplit(', ', 1)[-1]}, article {i}", example

    def _parse_record(self, record: object, scheme: Scheme, where: str) -> Iterator[StanceExample]:
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {type(record).__name__}")
        claim = require_text(record.get("claim"), "claim", where)
        claim_id = str(record["id"]) if record.get("id") not in (None, "") else stable_id("arastance", claim)
        yield from claim_examples(record, claim, claim_id, where, self.native_scheme, scheme,
                                  {"article_title": "article_title", "article_url": "article_url"})
