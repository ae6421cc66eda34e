"""Khouja 2020 (ANS) stance CSV: ``s1`` a news headline, ``s2`` a claim derived from it, ``stance``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from arastance.base.ids import stable_id
from arastance.base.text_files import read_utf8
from tasks.stance.datasets.common import (
    DatasetError,
    check_scheme,
    check_split,
    parse_label,
    require_text,
    unreadable_corpus_file,
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme

COLUMNS: tuple[str, ...] = ("s1", "s2", "stance")


class KhoujaCsv:
    """``<root>/{train,dev,test}.csv``; labels agree / disagree / other, so the corpus is 3-way only.

    The claim is ``s2`` and the "article" is the headline ``s1`` it was derived from (given as the
    article text only, not also as its title, so that evidence selection does not see it twice).
    """

    name = "khouja"
    native_scheme: Scheme = "3way"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_of(self, split: str) -> Path:
        check_split(split, str(self.root))
        return self.root / f"{split}.csv"

    def examples(self, split: str, scheme: Scheme = "3way") -> Iterator[StanceExample]:
        path = self.path_of(split)
        check_scheme(self.native_scheme, scheme, str(path))
        if not path.is_file():
            raise unreadable_corpus_file(f"Khouja {split} file", path, self.root, "train.csv, dev.csv and test.csv")
        with io.StringIO(read_utf8(path, DatasetError, allow_bom=True), newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise DatasetError(f"{path}, line 1: missing column(s) {missing}; header is {reader.fieldnames}")
            for row in reader:
                where = f"{path}, line {reader.line_num}"
                if None in row or any(row.get(c) is None for c in COLUMNS):
                    raise DatasetError(f"{where}: expected {len(reader.fieldnames or [])} fields")
                claim = require_text(row["s2"], "s2", where)
                headline = require_text(row["s1"], "s1", where)
                claim_id = stable_id("khouja", claim)
                yield StanceExample(
                    claim=claim,
                    article=headline,
                    label=parse_label(row["stance"], self.native_scheme, scheme, where),
                    claim_id=claim_id,
                    article_id=stable_id("khouja", claim, headline),
                )
