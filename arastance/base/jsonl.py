"""Reading JSON Lines files with errors that name the file and the line."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from arastance.base.text_files import utf8_lines


def json_lines(lines: Iterable[bytes | str], path: Path | str, error: type[Exception], *,
               allow_bom: bool = False) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each non-blank line, ``where`` being ``"<path>, line <n>"``; with
    ``allow_bom``, a UTF-8 BOM before the first line is skipped (as editors on Windows write one).

    A line that is not valid JSON, nested too deep for the parser (Python's recursion limit), or
    (for a file opened in binary mode, as callers should) not valid UTF-8, raises ``error`` naming
    the file, the line and the problem; checking the value's shape is the caller's job, with
    ``where`` for its own messages.
    """
    for number, line in enumerate(utf8_lines(lines, path, error), 1):
        if number == 1 and allow_bom:
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise error(f"{where}: JSON nested too deep to read") from None


def file_manifest(path: Path) -> tuple[int, str]:
    """``(non-blank lines, SHA-256)`` of a JSON Lines file, in one binary pass; an absent file is empty.

    Writers record it when they finish a file; readers compare before trusting the file, so a
    file cut short or changed afterwards is refused rather than taken for a smaller one.
    """
    digest, lines = hashlib.sha256(), 0
    if Path(path).exists():
        with open(path, "rb") as fh:
            for raw in fh:
                digest.update(raw)
                lines += bool(raw.strip())
    return lines, digest.hexdigest()
