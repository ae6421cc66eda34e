"""The AraStance release: JSON Lines, one claim per line with its articles and their stances."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tasks.jsonl import json_lines
from tasks.stance.datasets.common import (
    DatasetError,
    check_scheme,
    check_split,
    optional_item,
    parse_label,
    require_text,
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme
from warehouse.ids import stable_id


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
            raise DatasetError(f"{path}: AraStance {split} file not found (run `arastance datasets download arastance`)")
        with path.open(encoding="utf-8") as fh:
            for where, record in json_lines(fh, path, DatasetError):
                yield from self._parse_record(record, scheme, where)

    def _parse_record(self, record: object, scheme: Scheme, where: str) -> Iterator[StanceExample]:
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected a JSON object, got {type(record).__name__}")
        claim = require_text(record.get("claim"), "claim", where)
        articles, stances = record.get("article"), record.get("stance")
        if not isinstance(articles, list) or not isinstance(stances, list):
            raise DatasetError(f"{where}: fields 'article' and 'stance' must both be lists")
        if len(articles) != len(stances):
            raise DatasetError(f"{where}: {len(articles)} articles but {len(stances)} stance labels")
        for field in ("article_title", "article_url"):
            values = record.get(field)
            if isinstance(values, list) and len(values) != len(articles):
                raise DatasetError(f"{where}: field {field!r} has {len(values)} items for {len(articles)} articles")
        claim_id = str(record["id"]) if record.get("id") not in (None, "") else stable_id("arastance", claim)
        for i, (article, stance) in enumerate(zip(articles, stances)):
            at = f"{where}, article {i}"
            yield StanceExample(
                claim=claim,
                article=require_text(article, "article", at),
                label=parse_label(stance, self.native_scheme, scheme, at),
                claim_id=claim_id,
                article_id=f"{claim_id}:{i}",
                article_title=optional_item(record.get("article_title"), i, "article_title", at),
                article_url=optional_item(record.get("article_url"), i, "article_url", at),
            )
