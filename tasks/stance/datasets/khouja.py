"""Khouja 2020 (ANS) stance CSV: ``s1`` a news headline, ``s2`` a claim derived from it, ``stance``."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from arastance.base.ids import stable_id
from arastance.base.text_files import read_utf8
from arastance.logging import get_logger
from tasks.stance.datasets.common import (
    DatasetError,
    check_scheme,
    check_split,
    folded,
    parse_label,
    require_text,
    unreadable_corpus_file,
    warn_if_in_train,
    without_repeated_pairs,
)
from tasks.stance.examples import StanceExample
from tasks.stance.labels import Scheme

log = get_logger(__name__)

COLUMNS: tuple[str, ...] = ("s1", "s2", "stance")
# what csv reads as the end of a line (its line count counts these)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class KhoujaCsv:
    """``<root>/{train,dev,test}.csv``; labels agree / disagree / other, so the corpus is 3-way only.

    The claim is ``s2`` and the "article" is the headline ``s1`` it was derived from (given as the
    article text only, not also as its title, so that evidence selection does not see it twice).
    Every field is one line, and a claim-headline pair twice is refused. ``claim_id`` names a pair's
    group, the pairs that share a sentence (:func:`grouped_by_shared_sentence`), so that whatever holds
    out claims by their id holds out no text it trains on.
    """

    name = "khouja"
    native_scheme: Scheme = "3way"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_of(self, split: str) -> Path:
        check_split(split, str(self.root))
        return self.root / f"{split}.csv"

    def examples(self, split: str, scheme: Scheme = "3way") -> Iterator[StanceExample]:
        pairs = self.pairs(split, scheme)
        _warn_if_one_group_holds_most(self.path_of(split), pairs)
        warn_if_in_train(self, split, pairs)
        yield from pairs

    def pairs(self, split: str, scheme: Scheme = "3way") -> list[StanceExample]:
        """The split's pairs, checked and grouped, with nothing logged (what another split is compared with)."""
        path = self.path_of(split)
        check_scheme(self.native_scheme, scheme, str(path))
        if not path.is_file():
            raise unreadable_corpus_file(f"Khouja {split} file", path, self.root, "train.csv, dev.csv and test.csv")
        return grouped_by_shared_sentence(list(without_repeated_pairs(
            path, ((place, self._example(row, scheme, f"{path}, {place}")) for place, row in _rows(path)))))

    def _example(self, row: dict[str, str], scheme: Scheme, where: str) -> StanceExample:
        """One row's pair, its ids derived from its texts (the corpus has none); the claim id is the
        claim's until the file's pairs are grouped."""
        claim = require_text(row["s2"], "s2", where)
        headline = require_text(row["s1"], "s1", where)
        return StanceExample(
            claim=claim,
            article=headline,
            label=parse_label(row["stance"], self.native_scheme, scheme, where),
            claim_id=stable_id("khouja", claim),
            article_id=stable_id("khouja", claim, headline),
        )


def grouped_by_shared_sentence(pairs: Sequence[StanceExample]) -> list[StanceExample]:
    """``pairs`` with ``claim_id`` naming their group: the pairs linked, directly or through others, by
    a sentence they share as claim or as headline (whitespace folded). A Khouja sentence is often the
    claim of one pair and the headline of others (the corpus lists pairs that a shared headline
    implies), so held out by its claim text alone, a claim's own text and its headline were among the
    training pairs (for the ensemble's weight, 54 and 196 of 266 held-out pairs). Whatever holds out by
    claim id (tuning folds, the encoder's held-out claims, the bootstrap over claims) now keeps a group
    whole. Khouja's train file has 2,652 pairs of 1,996 claims in 1,156 groups of at most 7 pairs. The
    id is that of the group's smallest sentence, so that the order of the rows does not change it."""
    roots = _smallest_linked_sentence(pairs)
    return [replace(pair, claim_id=stable_id("khouja", roots[folded(pair.claim)])) for pair in pairs]


def _warn_if_one_group_holds_most(path: Path, grouped: Sequence[StanceExample]) -> None:
    """A warning where one group of several claims holds more than half of the file's pairs (a sentence
    shared by most pairs, such as one headline for every unrelated claim): a hold-out by claim cannot
    split it, so training that holds claims out fails or tunes on too few of them, and the error
    counts groups, not the file's claims. Khouja's own files have no group of more than 10 pairs."""
    for group, size in Counter(pair.claim_id for pair in grouped).most_common(1):  # none in an empty file
        claims = {pair.claim for pair in grouped if pair.claim_id == group}
        if size > len(grouped) / 2 and len(claims) > 1:
            log.warning("most pairs are one group, linked by the sentences they share: what holds out claims keeps the "
                        "group whole", extra={"file": str(path), "group_pairs": size, "group_claims": len(claims),
                                              "pairs": len(grouped)})


def _smallest_linked_sentence(pairs: Sequence[StanceExample]) -> dict[str, str]:
    """Each folded sentence of ``pairs`` -> the smallest sentence linked to it (union-find over the
    pairs, each set rooted at its smallest member)."""
    parent: dict[str, str] = {}

    def root(text: str) -> str:
        parent.setdefault(text, text)
        while parent[text] != text:
            parent[text] = parent[parent[text]]
            text = parent[text]
        return text

    for pair in pairs:
        a, b = root(folded(pair.claim)), root(folded(pair.article))
        parent[max(a, b)] = min(a, b)
    return {text: root(text) for text in parent}


def _rows(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``("line <n>", column -> field)`` for each row of the CSV file (one line each).
    csv's own errors name the file and line: a field opened with a quotation mark that is never closed
    runs on to the next one in the file, past csv's size limit in a file the size of the corpus's."""
    with io.StringIO(read_utf8(path, DatasetError, allow_bom=True), newline="") as fh:
        reader = csv.reader(fh)
        done = 0  # the last line of the rows read so far
        try:
            header = next(reader, [])
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise DatasetError(f"{path}, line 1: missing column(s) {missing}; header is {header}")
            done = reader.line_num
            for fields in reader:
                if fields:  # a blank line is no row
                    _check_row(fields, header, reader.line_num, path)
                    yield f"line {reader.line_num}", dict(zip(header, fields))
                done = reader.line_num
        except csv.Error as exc:
            raise DatasetError(f"{path}, line {done + 1}: not valid CSV ({exc}, by line {reader.line_num}: a quotation "
                               "mark opening a field and never closed?)") from None


def _check_row(fields: list[str], header: list[str], line: int, path: Path) -> None:
    """One field per column, each on one line. A field over several lines (ending on ``line``) is a
    quotation mark never closed, which swallowed the rows up to the next one in the file: Khouja's
    fields are single-line."""
    breaks = [len(_LINE_BREAK.findall(field)) for field in fields]
    if any(breaks):
        first = next(i for i, n in enumerate(breaks) if n)
        column = repr(header[first]) if first < len(header) else f"number {first + 1}"
        raise DatasetError(f"{path}, line {line - sum(breaks)}: field {column} runs on to line {line}, but a Khouja "
                           "field is one line (a quotation mark opening it and never closed?)")
    if len(fields) != len(header):
        raise DatasetError(f"{path}, line {line}: expected {len(header)} fields")
