"""The AraStance release: JSON Lines, one claim per line with its articles and their stances."""

from __future__ import annotations

import json

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
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme


class AraStanceJsonl:
    """``<root>/{train,dev,test}.jsonl``; keys ``claim``, ``article``, ``stance`` (+ ``article_title``,
    ``article_url``, ``id``). Labels come in any letter case (the release writes Agree, Disagree ...)."""

    name = "arastance"
    native_scheme: Scheme = "4way"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_of(self, split: str) -> Path:
        check_split(split, str(self.root))
        return self.root / f"{split}.jsonl"

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        path = self.path_of(split)
        check_scheme(self.native_scheme, scheme, str(path))
        if not path.is_file():
            raise unreadable_corpus_file(f"AraStance {split} file", path, self.root, "train.jsonl, dev.jsonl and "
                                         "test.jsonl", if_absent=" (run `arastance datasets download arastance`)")
        first_seen: dict[str, str] = {}  # a record twice would weigh double (a file appended to itself)
        with path.open("rb") as fh:
            for where, record in json_lines(fh, path, DatasetError):
                key = json.dumps(record, ensure_ascii=False, sort_keys=True)
                if key in first_seen:
                    raise DatasetError(f"{where}: the same record as {first_seen[key].rsplit(', ', 1)[-1]} (duplicated)")
                first_seen[key] = where
                yield from self._parse_record(record, scheme, where)

    def _parse_record(self, record: object, scheme: Scheme, where: str) -> Iterator[StanceExample]:
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {type(record).__name__}")
        claim = require_text(record.get("claim"), "claim", where)
        claim_id = str(record["id"]) if record.get("id") not in (None, "") else stable_id("arastance", claim)
        yield from claim_examples(record, claim, claim_id, where, self.native_scheme, scheme,
                                  {"article_title": "article_title", "article_url": "article_url"})
