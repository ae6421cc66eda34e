"""Writing the built dataset as AraStance JSON Lines and Parquet, one file per split, and reading it back.

Files are deterministic: claims in id order, articles in retrieval rank order, fixed key order
and compression, and a manifest whose checksums let anyone verify a copy.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from itertools import chain, groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal

from arastance.base.whole_files import foreign_files, written_whole
from arastance.logging import get_logger
from tasks.dataset.arastance_format import (
    ClaimRecord,
    DatasetFileError,
    DatasetFileWriter,
    read_jsonl_located,
    read_parquet_located,
)
from tasks.dataset.splits import SPLITS
from warehouse import Warehouse
from warehouse import dataset as store

log = get_logger(__name__)

Format = Literal["jsonl", "parquet"]
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "arastance-jsonl"
#: The files an export writes besides its manifest: two per split.
SPLIT_FILES = tuple(f"{split}.{ext}" for split in SPLITS for ext in ("jsonl", "parquet"))


def _claim_records(rows: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, ClaimRecord]]:
    """``(split, record)`` per claim of gold pair rows in export order (split, claim, article rank),
    each record built as soon as its claim's rows are read: one claim's rows are held, not the dataset's."""
    for (split, claim_id), group in groupby(rows, key=itemgetter("split", "claim_id")):
        pairs = list(group)
        yield split, ClaimRecord(
            id=claim_id,
            claim=pairs[0]["claim"] or "",
            article=tuple(p["article"] or "" for p in pairs),
            article_title=tuple(p["article_title"] or "" for p in pairs),
            article_url=tuple(p["article_url"] for p in pairs),
            stance=tuple(p["stance"] for p in pairs),
        )


def _records_by_split(rows: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, Iterator[ClaimRecord]]]:
    """The claim records of rows in export order, one run of records per split, read as they are written."""
    for split, located in groupby(_claim_records(rows), key=itemgetter(0)):
        yield split, (record for _, record in located)


@dataclass(frozen=True)
class ExportSummary:
    directory: Path
    files: list[Path]
    claims: dict[str, int]
    pairs: dict[str, int]


def _sha256(path: Path) -> str:
    """The file's checksum, read in blocks: a split file can be larger than memory."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write_dataset(records: Mapping[str, Iterable[ClaimRecord]], out_dir: Path) -> ExportSummary:
    """Write ``<split>.jsonl`` and ``<split>.parquet`` for every split, and ``manifest.json``; they
    replace an earlier export only once all are written (:func:`~arastance.base.whole_files.written_whole`).
    Each split's records are read once, as they are written, so they may come from a stream."""
    return _write_splits(((split, records.get(split, ())) for split in SPLITS), out_dir)


def _write_split(partial: Path, split: str, records: Iterable[ClaimRecord]) -> tuple[int, int]:
    """Write one split's two files; returns its (claims, pairs)."""
    with DatasetFileWriter(partial / f"{split}.jsonl", partial / f"{split}.parquet") as files:
        for record in records:
            files.write(record)
    return files.claims, files.pairs


class ForeignFilesError(FileExistsError):
    """The output directory holds files of an export's names that no export wrote; a FileExistsError, so
    that a command ends on it with one line naming them, as on any path the system refuses."""


def _exported_here(directory: Path) -> bool:
    """Whether ``directory`` holds the manifest of an export of ours (one that cannot be read is no proof)."""
    try:
        return _manifest(directory) is not None
    except DatasetFileError:
        return False


def _check_no_foreign_files(out_dir: Path) -> None:
    """Refuse an ``out_dir`` whose files of an export's names no export wrote (no manifest of ours there).
    It was: the AraStance release that ``datasets download`` fetched was replaced, its dev and test files
    by empty ones, and so was a saved model's ``manifest.json``."""
    held = foreign_files(out_dir, _exported_here, (*SPLIT_FILES, MANIFEST))
    if held:
        raise ForeignFilesError(f"{out_dir} holds files that no dataset export wrote ({', '.join(held)}; it has no "
                                f"{MANIFEST} of an export); export to another directory (--out), or move them away")


def _write_splits(runs: Iterable[tuple[str, Iterable[ClaimRecord]]], out_dir: Path) -> ExportSummary:
    """:func:`write_dataset` for runs of records per split in any split order; a split with no run is
    written empty (a copy that lacks it is then told from an export that had none). Files of the same
    names that an export did not write are refused (:func:`_check_no_foreign_files`)."""
    _check_no_foreign_files(out_dir)
    counts: dict[str, tuple[int, int]] = {}
    with written_whole(out_dir, last=(MANIFEST,)) as partial:
        for split, records in runs:
            if split not in SPLITS or split in counts:
                raise ValueError(f"records of split {split!r}: expected one run for each of {SPLITS}, "
                                 "rows ordered by split")
            counts[split] = _write_split(partial, split, records)
        for split in SPLITS:
            if split not in counts:
                counts[split] = _write_split(partial, split, ())
        claims = {split: counts[split][0] for split in SPLITS}
        pairs = {split: counts[split][1] for split in SPLITS}
        manifest = {
            "format": MANIFEST_FORMAT,
            "fields": ["id", "claim", "article", "article_title", "article_url", "stance"],
            "splits": {s: {"claims": claims[s], "pairs": pairs[s]} for s in SPLITS},
            "files": {name: _sha256(partial / name) for name in SPLIT_FILES},
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return ExportSummary(out_dir, [out_dir / name for name in (*SPLIT_FILES, MANIFEST)], claims, pairs)


def verify_against_manifest(directory: Path, names: Sequence[str]) -> dict[str, Any] | None:
    """Refuse files of an export of ours that its ``manifest.json`` does not vouch for (cut short,
    mixed with an earlier export, changed by hand, or missing from a copy); returns the manifest, or
    None for a directory with no manifest of ours (the AraStance release, a dataset of one's own),
    which is not checked."""
    manifest = _manifest(directory)
    if manifest is None:
        return None
    path = directory / MANIFEST
    listed = manifest.get("files") or {}
    for name in names:
        if not (directory / name).is_file():
            if name in listed:  # an export writes every split, an empty one too: this copy lost one
                raise DatasetFileError(f"{directory / name} is missing, but {path} lists it: the export was "
                                       "copied in part or cut short; copy (or export) it again")
        elif listed.get(name) != _sha256(directory / name):
            why = "is not listed in" if name not in listed else "does not match its checksum in"
            raise DatasetFileError(f"{directory / name} {why} {path}: the export was cut short or changed; "
                                   "export it again")
    return manifest


def _manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of an export of ours in ``directory``, None where there is none (no ``manifest.json``,
    or one of another format); one that cannot be read is a :class:`DatasetFileError`."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (ValueError, OSError) as exc:
        raise DatasetFileError(f"{path}: not a readable manifest ({exc}); export the dataset again") from None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == MANIFEST_FORMAT else None


def _verify_counts(
    manifest: Mapping[str, Any], path: Path, located: Sequence[tuple[str, ClaimRecord]], split: str
) -> None:
    """The claims and pairs read from a split file are those the manifest counted for that split."""
    counted = manifest.get("splits")
    expected = counted.get(split) if isinstance(counted, dict) else None
    if not isinstance(expected, dict):
        return
    read = {"claims": len(located), "pairs": sum(len(record.stance) for _, record in located)}
    if read != {key: expected.get(key) for key in read}:
        raise DatasetFileError(f"{path} holds {read['claims']} claim(s) and {read['pairs']} pair(s), but "
                               f"{path.parent / MANIFEST} counts {expected.get('claims')} and {expected.get('pairs')} "
                               "for that split: the export was changed; export it again")


class EmptyExportError(ValueError):
    """An export with no pairs would replace a dataset exported before."""


def _keep_earlier_export(out_dir: Path) -> None:
    """Refuse an export with no pairs where ``out_dir`` holds a dataset with some."""
    held = [p.name for p in (out_dir / f"{split}.jsonl" for split in SPLITS) if p.is_file() and p.stat().st_size]
    if held:
        raise EmptyExportError(f"the warehouse has no gold pairs in a split, so the dataset in {out_dir} "
                               f"({', '.join(held)}) is kept; build it first (`arastance dataset build`)")


def export_dataset(wh: Warehouse, out_dir: Path) -> ExportSummary:
    """Export the warehouse's dataset (gold pairs of split, unflagged claims).

    A warehouse with no split gold pairs (a new data directory, or the wrong one) does not replace a
    dataset already in ``out_dir``: that export would write every split empty. The rows are read in
    batches and written as each claim's rows are complete, so a dataset larger than memory exports."""
    with closing(store.dataset_rows(wh)) as rows:
        first = next(rows, None)
        if first is None:
            _keep_earlier_export(out_dir)
        summary = _write_splits(_records_by_split(chain(() if first is None else (first,), rows)), out_dir)
    log.info("dataset exported", extra={"dir": str(out_dir), "claims": sum(summary.claims.values()), "pairs": sum(summary.pairs.values())})
    return summary


def read_dataset(directory: Path, fmt: Format = "jsonl") -> dict[str, list[ClaimRecord]]:
    """The records of an exported dataset per split, checked against the export's manifest where
    there is one (:func:`verify_against_manifest`: every file it lists present and unchanged, the
    claims and pairs it counts); without one, a missing split file reads as empty."""
    return {split: [record for _, record in located] for split, located in read_dataset_located(directory, fmt).items()}


def read_dataset_located(directory: Path, fmt: Format = "jsonl") -> dict[str, list[tuple[str, ClaimRecord]]]:
    """:func:`read_dataset` with each record's place (``"<file>, line <n>"``, or ``row <n>`` in Parquet)."""
    manifest = verify_against_manifest(directory, [f"{split}.{fmt}" for split in SPLITS])
    reader = read_jsonl_located if fmt == "jsonl" else read_parquet_located
    out: dict[str, list[tuple[str, ClaimRecord]]] = {}
    for split in SPLITS:
        path = directory / f"{split}.{fmt}"
        out[split] = reader(path) if path.is_file() else []
        if manifest is not None:
            _verify_counts(manifest, path, out[split], split)
    return out
