"""Reading JSON Lines files with errors that name the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def json_lines(lines: Iterable[str], path: Path | str, error: type[Exception]) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each non-blank line, ``where`` being ``"<path>, line <n>"``.

    A line that is not valid JSON raises ``error`` naming the file, the line and the problem;
    checking the value's shape is the caller's job, with ``where`` for its own messages.
    """
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
