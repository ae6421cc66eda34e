"""The public AraStance file format: JSON Lines, one claim per line, and the same as Parquet.

A line is ``{"id", "claim", "article": [...], "article_title": [...], "article_url": [...],
"stance": [...]}``, the four lists parallel (one entry per article). Only ``claim``, ``article``
and ``stance`` are required, as the training loader requires them: a line without ``id`` gets
``stable_id("arastance", claim)`` (the id the training loader gives it), and missing titles or
URLs are empty strings. Stances are written as the
release writes them (``Agree``, ``Disagree``, ``Discuss``, ``Unrelated``) and read in any letter
case; in memory they are the project's lower-case labels. A UTF-8 BOM (as editors on Windows write
one) is skipped, as the training reader skips it. Writers emit keys and records in a
fixed order so that writing what was read gives the same bytes.
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

import pyarrow as pa
import pyarrow.parquet as pq

from arastance.base.ids import stable_id
from arastance.base.jsonl import json_lines
from tasks.stance.labels import FOUR_WAY

FIELDS: tuple[str, ...] = ("id", "claim", "article", "article_title", "article_url", "stance")
REQUIRED: tuple[str, ...] = ("claim", "article", "stance")
_LISTS: tuple[str, ...] = ("article", "article_title", "article_url", "stance")
_OPTIONAL_LISTS: tuple[str, ...] = ("article_title", "article_url")

SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("claim", pa.string(), nullable=False),
        *(pa.field(name, pa.list_(pa.string()), nullable=False) for name in _LISTS),
    ]
)

#: A Parquet row group holds at most this many claims, or this many bytes of their JSON Lines, whichever
#: comes first: a writer holds one row group, so that is its memory, not the dataset's. While it is written
#: the group is held again as Arrow columns and as the encoder's pages (about four times its bytes at
#: once: 92 MB of Arrow memory for a group of 20 MB, 16 MB for one of 4 MB), so the bound is in bytes, and small.
ROW_GROUP_CLAIMS = 1000
ROW_GROUP_BYTES = 4 * 2**20


class DatasetFileError(ValueError):
    """A dataset file that is not in the AraStance format; the message names file, line and field."""


@dataclass(frozen=True, slots=True)
class ClaimRecord:
    """One claim with its articles and their stances, as one line of an AraStance file."""

    id: str
    claim: str
    article: tuple[str, ...]
    article_title: tuple[str, ...]
    article_url: tuple[str, ...]
    stance: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """The record as one line of the release: lists, and stances capitalised."""
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        out["stance"] = [s.capitalize() for s in self.stance]
        return out


def record_from_dict(obj: object, where: str) -> ClaimRecord:
    """Validate one parsed line: the required fields present, lists parallel, stances 4-way."""
    if not isinstance(obj, dict):
        raise DatasetFileError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    missing = [f for f in REQUIRED if f not in obj]
    if missing:
        raise DatasetFileError(f"{where}: missing field(s) {missing}")
    if not isinstance(obj["claim"], str):
        raise DatasetFileError(f"{where}: field 'claim' must be a string")
    claim_id = obj.get("id")
    if claim_id in (None, ""):
        claim_id = stable_id("arastance", obj["claim"])
    elif not isinstance(claim_id, str):
        raise DatasetFileError(f"{where}: field 'id' must be a string")
    articles = obj["article"]
    lists = {}
    for name in _LISTS:
        value = obj.get(name)
        if value is None and name in _OPTIONAL_LISTS and isinstance(articles, list):
            value = [""] * len(articles)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise DatasetFileError(f"{where}: field {name!r} must be a list of strings")
        lists[name] = tuple(value)
    lengths = {name: len(v) for name, v in lists.items()}
    if len(set(lengths.values())) != 1:
        raise DatasetFileError(f"{where}: article, article_title, article_url and stance differ in length {lengths}")
    stances = tuple(s.strip().lower() for s in lists["stance"])
    bad = [raw for raw, s in zip(lists["stance"], stances) if s not in FOUR_WAY]
    if bad:
        raise DatasetFileError(f"{where}: unknown stance(s) {bad}; expected {FOUR_WAY} in any letter case")
    return ClaimRecord(claim_id, obj["claim"], **{**lists, "stance": stances})


class DatasetFileWriter:
    """One split's JSON Lines and Parquet files, written record by record as the records come.

    A gold pair carries its article's whole text, so a dataset can be larger than memory: only the
    Parquet row group being filled is held (:data:`ROW_GROUP_CLAIMS`, :data:`ROW_GROUP_BYTES`), and
    JSON Lines go straight to the file. JSON Lines: one record per line, keys in :data:`FIELDS`
    order, Arabic kept as text (not escapes). Parquet: list columns, fixed schema, no pandas index.
    Row groups end at fixed counts of the records themselves (claims, and bytes of their lines), so the
    same records give the same bytes.
    """

    def __init__(self, jsonl: Path, parquet: Path) -> None:
        jsonl.parent.mkdir(parents=True, exist_ok=True)
        parquet.parent.mkdir(parents=True, exist_ok=True)
        self._jsonl = jsonl.open("wb")
        self._parquet = pq.ParquetWriter(parquet, SCHEMA, compression="zstd")
        self._group: list[dict[str, object]] = []
        self._bytes = 0
        self.claims = 0
        self.pairs = 0

    def write(self, record: ClaimRecord) -> None:
        """Add one record to both files."""
        line = record.as_dict()
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
        self._jsonl.write(data)
        self._group.append(line)
        self._bytes += len(data)
        self.claims += 1
        self.pairs += len(record.stance)
        if len(self._group) >= ROW_GROUP_CLAIMS or self._bytes >= ROW_GROUP_BYTES:
            self._write_group()

    def _write_group(self) -> None:
        self._parquet.write_table(pa.Table.from_pylist(self._group, schema=SCHEMA))
        self._group, self._bytes = [], 0

    def close(self) -> None:
        """Write the last row group (an empty split gets an empty table, as a whole-table write gives)."""
        try:
            if self._group or not self.claims:
                self._write_group()
            self._parquet.close()
        finally:
            self._jsonl.close()

    def __enter__(self) -> DatasetFileWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
            return
        # cut short (a full disk) and thrown away with the partial export: let go of the files, and
        # let the first error through rather than one from finishing a file nobody will read
        with suppress(OSError):
            self._parquet.close()
        with suppress(OSError):
            self._jsonl.close()


def read_jsonl(path: Path) -> list[ClaimRecord]:
    """Records of an AraStance JSON Lines file, in file order; a bad line names file and line."""
    return [record for _, record in read_jsonl_located(path)]


def read_jsonl_located(path: Path) -> list[tuple[str, ClaimRecord]]:
    """``(where, record)`` per line, ``where`` being ``"<path>, line <n>"`` (blank lines and a leading BOM
    skipped, not renumbered): what a loader needs to name both places of a clash between two lines."""
    with path.open("rb") as fh:
        return [(where, record_from_dict(obj, where))
                for where, obj in json_lines(fh, path, DatasetFileError, allow_bom=True)]


def read_parquet(path: Path) -> list[ClaimRecord]:
    """Records of a Parquet file written by :class:`DatasetFileWriter` (or any with the same columns)."""
    return [record for _, record in read_parquet_located(path)]


def read_parquet_located(path: Path) -> list[tuple[str, ClaimRecord]]:
    """``(where, record)`` per row, ``where`` being ``"<path>, row <n>"``."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DatasetFileError(f"{path}: not a readable Parquet file: {exc}") from None
    located = [(f"{path}, row {i + 1}", row) for i, row in enumerate(table.to_pylist())]
    return [(where, record_from_dict(row, where)) for where, row in located]
