"""Read one crawl run's staging directory and validate every line against the staging contract.

The loader streams a run (:func:`open_staging_run`): ``run.json``, the files' presence and the
manifest in ``run.json`` (line counts, SHA-256) are checked up front, so a run cut short is
refused rather than loaded as a smaller one; then pages and claims come one validated record at
a time, so nothing holds the whole run in memory. :func:`read_staging_run` reads a whole (small)
run into lists through the same checks. A bad line stops the read with a
:class:`~arastance.base.staging.StagingError` naming the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from arastance.base.staging import (
    CLAIMS_FILE,
    PAGES_FILE,
    RUN_FILE,
    SITES,
    StagedClaim,
    StagedPage,
    StagedRecord,
    StagedRun,
    StagingError,
    check_manifest,
)
from arastance.base.text_files import read_utf8, utf8_lines


#: A run's pages, page id -> when a web archive captured the page (None for a live fetch): what its claims
#: are checked against, and what an archived claim's relative date ("منذ يومين") is counted from.
RunPages = dict[str, datetime | None]


@dataclass(frozen=True)
class StagedRunStream:
    """A staging run whose ``run.json`` is valid; its records are read and checked as they stream.

    Nothing holds the whole run in memory: pages and claims come one validated record at a time,
    and any bad line raises :class:`StagingError` naming the file and the line.
    """

    run_dir: Path
    run: StagedRun

    def pages(self) -> Iterator[tuple[int, StagedPage]]:
        for lineno, page in _read_jsonl(self.run_dir / PAGES_FILE, StagedPage):
            self._check_record(PAGES_FILE, lineno, page)
            yield lineno, page

    def claim_lines(self) -> Iterator[tuple[int, str]]:
        """``claims.jsonl``'s non-blank lines, unparsed (parse each with :meth:`claim`)."""
        return lines(self.run_dir / CLAIMS_FILE)

    def claim(self, lineno: int, line: str, page_ids: Collection[str]) -> StagedClaim:
        """One ``claims.jsonl`` line, checked against the run and against ``page_ids`` (every page of the run)."""
        where = self.run_dir / CLAIMS_FILE
        claim = _parse_line(where, lineno, line, StagedClaim)
        self._check_record(CLAIMS_FILE, lineno, claim)
        expected = SITES[claim.source_id][3]
        if claim.veracity != expected:
            raise StagingError(
                f"{where}, line {lineno}: field 'veracity' is {claim.veracity!r}, "
                f"but {claim.source_id} claims are {expected!r}"
            )
        if claim.page_id not in page_ids:
            raise StagingError(f"{where}, line {lineno}: field 'page_id' {claim.page_id!r} is not in {PAGES_FILE}")
        return claim

    def _check_record(self, name: str, lineno: int, rec: StagedPage | StagedClaim) -> None:
        if rec.run_id != self.run.run_id:
            raise StagingError(
                f"{self.run_dir / name}, line {lineno}: field 'run_id' is {rec.run_id!r}, but {RUN_FILE} says {self.run.run_id!r}"
            )
        if rec.source_id not in SITES:
            raise StagingError(f"{self.run_dir / name}, line {lineno}: unknown source_id {rec.source_id!r}; known: {sorted(SITES)}")


@dataclass(frozen=True)
class StagedRunFiles:
    """A validated staging run read whole: each record with the line it came from."""

    run_dir: Path
    run: StagedRun
    pages: list[tuple[int, StagedPage]]
    claims: list[tuple[int, StagedClaim]]


# -- reading and validating --------------------------------------------------------------------

_M = TypeVar("_M", bound=StagedRecord)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(record)"
        parts.append(f"field {loc!r}: {err['msg']} (got {err.get('input')!r})"[:300])
    return "; ".join(parts)


def _parse_line(path: Path, lineno: int, line: str, model: type[_M]) -> _M:
    try:  # pydantic parses and validates the JSON in one pass (faster than json.loads first)
        return model.model_validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise StagingError(f"{path}, line {lineno}: not valid JSON: {first['msg']}") from None
        if first["type"] == "model_type":
            raise StagingError(f"{path}, line {lineno}: expected a JSON object, got {line.strip()[:40]!r}") from None
        raise StagingError(f"{path}, line {lineno}: {_describe(exc)}") from None


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a JSON Lines file's non-blank lines."""
    if not path.is_file():
        raise StagingError(f"{path}: missing staging file")
    with open(path, "rb") as fh:
        for lineno, line in enumerate(utf8_lines(fh, path, StagingError), start=1):
            if line.strip():
                yield lineno, line


def _read_jsonl(path: Path, model: type[_M]) -> Iterator[tuple[int, _M]]:
    for lineno, line in lines(path):
        yield lineno, _parse_line(path, lineno, line, model)


def count_lines(path: Path) -> int:
    """Non-blank lines of a staging file (records, without parsing them)."""
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def open_staging_run(run_dir: Path) -> StagedRunStream:
    """Check a staging run's directory, ``run.json`` and files; the records are checked as they are read."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise StagingError(f"{run_dir}: not a staging run directory")
    run_path = run_dir / RUN_FILE
    if not run_path.is_file():
        raise StagingError(f"{run_path}: missing (the run is unfinished or not a staging run)")
    try:
        run = StagedRun.model_validate_json(read_utf8(run_path, StagingError))
    except ValidationError as exc:
        raise StagingError(f"{run_path}: {_describe(exc)}") from None
    if run.source_id not in SITES:
        raise StagingError(f"{run_path}: unknown source_id {run.source_id!r}; known: {sorted(SITES)}")
    for name in (PAGES_FILE, CLAIMS_FILE):
        if not (run_dir / name).is_file():
            raise StagingError(f"{run_dir / name}: missing staging file")
    check_manifest(run_dir, run)
    return StagedRunStream(run_dir, run)


def read_staging_run(run_dir: Path) -> StagedRunFiles:
    """Read and validate a whole staging run into memory; any bad line is a :class:`StagingError`.

    For small runs and checks; the loader streams instead (:func:`open_staging_run`).
    """
    stream = open_staging_run(run_dir)
    pages = list(stream.pages())
    page_ids = {page.page_id for _, page in pages}
    claims = [(lineno, stream.claim(lineno, line, page_ids)) for lineno, line in stream.claim_lines()]
    return StagedRunFiles(stream.run_dir, stream.run, pages, claims)
