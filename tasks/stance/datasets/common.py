"""What every stance dataset loader shares: the error type, label and text checks, the interface."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from arastance.base.input_paths import blocked_directory, not_a_file
from arastance.logging import get_logger
from tasks.stance.examples import StanceExample
from tasks.stance.labels import LABELS, Scheme, to_scheme

log = get_logger(__name__)

SPLITS: tuple[str, ...] = ("train", "dev", "test")


class DatasetError(ValueError):
    """A dataset file that cannot be read as promised; the message names the file, line and field."""


class SplitAbsentError(DatasetError):
    """A split the corpus does not hold: its file or fold is not there, or none of its claim files (the
    public corpora withhold their test splits). A split that is there but damaged is a plain
    :class:`DatasetError`, which no caller takes for an absence."""


class StanceDataset(Protocol):
    """A labelled claim-article corpus with train/dev/test splits."""

    name: str
    native_scheme: Scheme

    def examples(self, split: str, scheme: Scheme = "4way") -> Iterator[StanceExample]:
        """Yield the split's pairs with labels in ``scheme``."""
        ...


class SplitFiles(StanceDataset, Protocol):
    """A corpus of one file per split, each of which can be compared with the train file."""

    def path_of(self, split: str) -> Path:
        """The file of ``split``."""
        ...

    def pairs(self, split: str, scheme: Scheme) -> list[StanceExample]:
        """What :meth:`examples` yields, with nothing logged: the warnings are of the split read, not of
        the train split it is compared with."""
        ...


def folded(text: str) -> str:
    """``text`` with its whitespace folded to single blanks: one sentence typed or exported with other
    spacing is one text wherever texts are matched (pairs sharing a sentence, a split against train)."""
    return " ".join(text.split())


def unreadable_corpus_file(what: str, path: Path, root: Path, holds: str, *, if_absent: str = "") -> DatasetError:
    """Why ``what`` (``path``, under the corpus directory ``root``) cannot be read. Where ``root`` is
    itself a file (``--path train.csv`` for the directory that holds it), that is what it says, not
    that ``train.csv/train.csv`` does not exist; ``if_absent`` is advice for a file that is not there."""
    blocked = blocked_directory(root)
    if blocked is not None:
        above, blocker = blocked
        where = f"{root} {blocker}" if above == root else f"{root}: {above} {blocker}"
        return DatasetError(f"corpus directory {where}; give the directory that holds {holds}")
    if not os.path.isdir(root):
        return DatasetError(f"corpus directory {root} does not exist{if_absent}")
    problem = not_a_file(path)
    if problem == "does not exist":
        return SplitAbsentError(f"{what} {path} {problem}{if_absent}")
    return DatasetError(f"{what} {path} {problem}")


def check_split(split: str, where: str) -> None:
    if split not in SPLITS:
        raise DatasetError(f"{where}: unknown split {split!r}; expected one of {SPLITS}")


def check_scheme(native: Scheme, wanted: Scheme, where: str) -> None:
    """A 3-way corpus cannot be read as 4-way: its 'other' hides discuss and unrelated."""
    if wanted not in LABELS:
        raise DatasetError(f"{where}: unknown label scheme {wanted!r}; expected one of {tuple(LABELS)}")
    if native == "3way" and wanted == "4way":
        raise DatasetError(f"{where}: this corpus is labelled 3-way (agree/disagree/other) and cannot be read as 4-way")


def parse_label(raw: object, native: Scheme, wanted: Scheme, where: str) -> str:
    """Lower-case ``raw``, check it against the corpus's scheme, convert it explicitly to ``wanted``."""
    if not isinstance(raw, str) or not raw.strip():
        raise DatasetError(f"{where}: missing or empty stance label (got {raw!r})")
    label = raw.strip().lower()
    if label not in LABELS[native]:
        raise DatasetError(f"{where}: unknown stance label {raw!r}; expected one of {LABELS[native]}")
    return to_scheme(label, wanted)


def require_text(value: object, field: str, where: str) -> str:
    """A non-empty string, or an error naming the field."""
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {field!r} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise DatasetError(f"{where}: field {field!r} is empty")
    return value.strip()


def optional_item(values: object, index: int, field: str, where: str) -> str | None:
    """Element ``index`` of an optional per-article list (titles, URLs); a wrong shape is an error."""
    if values is None:
        return None
    if not isinstance(values, list):
        raise DatasetError(f"{where}: field {field!r} must be a list aligned with 'article'")
    item = values[index]
    return None if item in (None, "") else str(item)


def claim_examples(
    record: dict[str, object], claim: str, claim_id: str, where: str, native: Scheme, wanted: Scheme,
    optional: dict[str, str],
) -> Iterator[StanceExample]:
    """The pairs of one claim record with parallel ``article`` and ``stance`` lists.

    ``optional`` maps StanceExample fields to the record's optional parallel lists (e.g.
    ``{"article_url": "url"}``); every list must be as long as ``article``.
    """
    articles, stances = record.get("article"), record.get("stance")
    if not isinstance(articles, list) or not isinstance(stances, list):
        raise DatasetError(f"{where}: fields 'article' and 'stance' must both be lists")
    if len(articles) != len(stances):
        raise DatasetError(f"{where}: {len(articles)} articles but {len(stances)} stance labels")
    for field in optional.values():
        values = record.get(field)
        if isinstance(values, list) and len(values) != len(articles):
            raise DatasetError(f"{where}: field {field!r} has {len(values)} items for {len(articles)} articles")
    for i, (article, stance) in enumerate(zip(articles, stances)):
        at = f"{where}, article {i}"
        yield StanceExample(
            claim=claim,
            article=require_text(article, "article", at),
            label=parse_label(stance, native, wanted, at),
            claim_id=claim_id,
            article_id=f"{claim_id}:{i}",
            **{attr: optional_item(record.get(field), i, field, at) for attr, field in optional.items()},
        )


def without_repeated_pairs(path: Path, located: Iterable[tuple[str, StanceExample]]) -> Iterator[StanceExample]:
    """The examples of ``(place in path, example)``, refusing a claim-article pair met twice: it would
    weigh double in training and scoring, and with another label it teaches the model both answers for
    one pair (a record re-added with one label changed, a file appended to itself). Articles of one text
    at two addresses are two pairs, and so are the pairs of two claims of one text under their own ids:
    the pipeline keeps such copies (a wire story on two sites, the same boilerplate extracted from two
    pages, one rumour debunked by two sites that found the same articles), and its own export holds them.
    A line without an id is its claim's text (``claim_id`` derives from it)."""
    first_seen: dict[tuple[str, str, str, str | None], tuple[str, str | None]] = {}
    for place, example in located:
        key = (example.claim_id, example.claim, example.article, example.article_url)
        if key in first_seen:
            earlier, label = first_seen[key]
            labels = (f"labelled {label!r} there and {example.label!r} here" if label != example.label
                      else f"with the same label {label!r}")
            raise DatasetError(f"{path}, {place}: the same claim and article as {earlier}, {labels} (duplicated)")
        first_seen[key] = (place, example.label)
        yield example


def warn_if_in_train(dataset: SplitFiles, split: str, examples: Sequence[StanceExample]) -> None:
    """One warning for a dev or test split some of whose claims, or whole pairs, are in the corpus's
    train file too, naming both files and counting them: a model trained there is scored on claims it
    has seen (an AraStance dev file that repeated train pairs scored 1.0 without a word). A warning,
    not a refusal: the published Khouja splits share a claim. The pairs stay in the split: it is the
    corpus's benchmark, comparable with published scores only whole, and the loader cannot know
    whether the model it is scored with was trained on this train file (``evaluate`` tells the pairs
    a saved model saw). Claims and pairs are matched by text, whitespace folded, as the corpora's
    claim ids are texts or their hashes; a train file that is absent has nothing to compare."""
    if split == "train":
        return
    train_path = dataset.path_of("train")
    try:
        train = dataset.pairs("train", dataset.native_scheme)
    except SplitAbsentError:
        return
    except DatasetError as exc:
        log.warning("split not compared with the train split, which cannot be read",
                    extra={"dataset": dataset.name, "split": split, "reason": str(exc)})
        return
    claims = {folded(e.claim) for e in examples}
    shared = claims & {folded(e.claim) for e in train}
    trained = {(folded(e.claim), folded(e.article)) for e in train}
    identical = sum((folded(e.claim), folded(e.article)) in trained for e in examples)
    if shared:  # a pair in train has its claim there too
        log.warning("claims of this split are in the train split too: a model trained on it is scored on claims "
                    "(and identical pairs) it has seen",
                    extra={"dataset": dataset.name, "split": split, "file": str(dataset.path_of(split)),
                           "train_file": str(train_path), "shared_claims": len(shared), "claims": len(claims),
                           "identical_pairs": identical, "pairs": len(examples)})
