"""Read one crawl run's staging directory and validate every line against the staging contract.

A bad line stops the read with a :class:`~arastance.base.staging.StagingError` naming the
file, the line and the field, before anything touches the warehouse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
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
)


@dataclass(frozen=True)
class StagedRunFiles:
    """A validated staging run: each record with the line it came from."""

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


def _read_jsonl(path: Path, model: type[_M]) -> Iterator[tuple[int, _M]]:
    if not path.is_file():
        raise StagingError(f"{path}: missing staging file")
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:  # pydantic parses and validates the JSON in one pass (faster than json.loads first)
                yield lineno, model.model_validate_json(line)
            except ValidationError as exc:
                first = exc.errors()[0]
                if first["type"] == "json_invalid":
                    raise StagingError(f"{path}, line {lineno}: not valid JSON: {first['msg']}") from None
                if first["type"] == "model_type":
                    raise StagingError(f"{path}, line {lineno}: expected a JSON object, got {line.strip()[:40]!r}") from None
                raise StagingError(f"{path}, line {lineno}: {_describe(exc)}") from None


def read_staging_run(run_dir: Path) -> StagedRunFiles:
    """Read and validate a whole staging run; any bad line is a :class:`StagingError`."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise StagingError(f"{run_dir}: not a staging run directory")
    run_path = run_dir / RUN_FILE
    if not run_path.is_file():
        raise StagingError(f"{run_path}: missing (the run is unfinished or not a staging run)")
    try:
        run = StagedRun.model_validate_json(run_path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise StagingError(f"{run_path}: {_describe(exc)}") from None
    if run.source_id not in SITES:
        raise StagingError(f"{run_path}: unknown source_id {run.source_id!r}; known: {sorted(SITES)}")
    pages = list(_read_jsonl(run_dir / PAGES_FILE, StagedPage))
    claims = list(_read_jsonl(run_dir / CLAIMS_FILE, StagedClaim))
    page_ids = {p.page_id for _, p in pages}
    for name, records in ((PAGES_FILE, pages), (CLAIMS_FILE, claims)):
        for lineno, rec in records:
            if rec.run_id != run.run_id:
                raise StagingError(
                    f"{run_dir / name}, line {lineno}: field 'run_id' is {rec.run_id!r}, but {RUN_FILE} says {run.run_id!r}"
                )
            if rec.source_id not in SITES:
                raise StagingError(f"{run_dir / name}, line {lineno}: unknown source_id {rec.source_id!r}; known: {sorted(SITES)}")
    for lineno, claim in claims:
        expected = SITES[claim.source_id][3]
        if claim.veracity != expected:
            raise StagingError(
                f"{run_dir / CLAIMS_FILE}, line {lineno}: field 'veracity' is {claim.veracity!r}, "
                f"but {claim.source_id} claims are {expected!r}"
            )
        if claim.page_id not in page_ids:
            raise StagingError(f"{run_dir / CLAIMS_FILE}, line {lineno}: field 'page_id' {claim.page_id!r} is not in {PAGES_FILE}")
    return StagedRunFiles(run_dir, run, pages, claims)
