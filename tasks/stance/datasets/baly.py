"""Baly et al. 2018 (unified fact-checking corpus): one JSON file per claim and five folds of claim ids."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from arastance.base.input_paths import not_a_file
from arastance.base.jsonl import JsonValueError, parse_json
from arastance.base.text_files import read_utf8
from tasks.stance.datasets.common import (
    DatasetError,
    SplitAbsentError,
    check_scheme,
    check_split,
    claim_examples,
    require_text,
    unreadable_corpus_file,
    warn_if_in_train,
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme

# The AraStance paper's protocol: folds 1-3 train, fold 4 dev, fold 5 test.
SPLIT_FOLDS: dict[str, tuple[int, ...]] = {"train": (1, 2, 3), "dev": (4,), "test": (5,)}
_FOLD_LINE = re.compile(r"^\s*fold[_ ]?(\d+)\s*:\s*(.*)$", re.IGNORECASE)


class BalyCorpus:
    """``<root>/dataset/<claim id>.json`` and ``<root>/train_test_splits.txt``.

    Keys are matched case-insensitively (the corpus README capitalises them, the files do not).
    """

    name = "baly"
    native_scheme: Scheme = "4way"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.splits_file = self.root / "train_test_splits.txt"
        self.claims_dir = self.root / "dataset"

    def folds(self) -> dict[int, tuple[int, list[str]]]:
        """Fold number -> (its line, its claim ids), as listed in the splits file (a UTF-8 BOM is allowed,
        as editors on Windows write one). A claim listed twice is an error: in one fold it would weigh
        double, in two folds it could be in both train and dev."""
        if not self.splits_file.is_file():
            raise unreadable_corpus_file("fold file", self.splits_file, self.root,
                                         f"{self.splits_file.name} and {self.claims_dir.name}/")
        folds: dict[int, tuple[int, list[str]]] = {}
        first_seen: dict[str, tuple[int, int]] = {}  # claim id -> (fold, line) where it was first listed
        for lineno, line in enumerate(read_utf8(self.splits_file, DatasetError, allow_bom=True).splitlines(), start=1):
            if not line.strip():
                continue
            m = _FOLD_LINE.match(line)
            if not m:
                raise DatasetError(f"{self.splits_file}, line {lineno}: expected 'Fold_<n>: <claim ids>'")
            fold = int(m.group(1))
            if fold in folds:
                raise DatasetError(f"{self.splits_file}, line {lineno}: fold {fold} listed twice")
            folds[fold] = (lineno, m.group(2).split())
            for claim_id in folds[fold][1]:
                if claim_id in first_seen:
                    earlier_fold, earlier_line = first_seen[claim_id]
                    raise DatasetError(f"{self.splits_file}, line {lineno}: claim {claim_id[:60]!r} of fold {fold} is "
                                       f"already listed in fold {earlier_fold} (line {earlier_line}) (duplicated)")
                first_seen[claim_id] = (fold, lineno)
        return folds

    def path_of(self, split: str) -> Path:
        """The file that says which claims ``split`` holds: the folds file (each claim has its own file)."""
        check_split(split, str(self.root))
        return self.splits_file

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        pairs = self.pairs(split, scheme)
        warn_if_in_train(self, split, pairs)
        yield from pairs

    def pairs(self, split: str, scheme: Scheme = "4way") -> list[StanceExample]:
        """The split's pairs, with nothing logged (what another split is compared with). Folds list claim
        ids, each at most once, but one claim text can be filed under two ids in two folds."""
        check_split(split, str(self.root))
        return list(self.fold_examples(SPLIT_FOLDS[split], scheme))

    def fold_examples(self, fold_numbers: tuple[int, ...], scheme: Scheme = "4way") -> Iterator[StanceExample]:
        """The pairs of the claims in the given folds, claim by claim in fold order."""
        check_scheme(self.native_scheme, scheme, str(self.root))
        folds = self.folds()
        for fold in fold_numbers:
            claim_ids = self._claim_ids(folds, fold)
            for claim_id in claim_ids:
                path = self.claims_dir / f"{claim_id}.json"
                try:
                    found = path.is_file()
                except OSError as exc:  # an id the file system cannot name: the traceback named neither file nor line
                    raise DatasetError(f"{self.splits_file}: fold {fold} lists claim {claim_id[:60]!r}, which names no "
                                       f"claim file ({exc.strerror.lower() if exc.strerror else exc})") from None
                if not found:
                    raise self._missing_claim_file(path, fold, claim_id, claim_ids)
                yield from self._parse_claim(path, claim_id, scheme)

    def _missing_claim_file(self, path: Path, fold: int, claim_id: str, claim_ids: list[str]) -> DatasetError:
        """Why claim ``claim_id``'s file ``path`` cannot be read: a fold none of whose claim files is there
        is absent (the corpus's withheld test fold), one missing some is damaged."""
        problem = not_a_file(path)
        error = DatasetError
        if problem == "does not exist" and not any(os.path.exists(self.claims_dir / f"{c}.json") for c in claim_ids):
            error = SplitAbsentError
        return error(f"claim file {path} of fold {fold} (claim {claim_id}) {problem}")

    def _claim_ids(self, folds: dict[int, tuple[int, list[str]]], fold: int) -> list[str]:
        """The claims of ``fold``, one at least: a fold listed with none is a line cut short, whose claims
        the split would silently lose."""
        if fold not in folds:
            raise SplitAbsentError(f"{self.splits_file}: no fold {fold} (folds present: {sorted(folds)})")
        lineno, claim_ids = folds[fold]
        if not claim_ids:
            raise DatasetError(f"{self.splits_file}, line {lineno}: fold {fold} lists no claim ids")
        return claim_ids

    def _parse_claim(self, path: Path, claim_id: str, scheme: Scheme) -> Iterator[StanceExample]:
        where = str(path)
        try:
            raw = parse_json(read_utf8(path, DatasetError, allow_bom=True))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{where}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
        except JsonValueError as exc:
            raise DatasetError(f"{where}: {exc}") from None
        except RecursionError:
            raise DatasetError(f"{where}: JSON nested too deep to read") from None
        if not isinstance(raw, dict):
            raise DatasetError(f"{where}: expected a JSON object")
        record = {str(k).lower(): v for k, v in raw.items()}
        claim = require_text(record.get("claim"), "claim", where)
        yield from claim_examples(record, claim, claim_id, where, self.native_scheme, scheme, {"article_url": "url"})
