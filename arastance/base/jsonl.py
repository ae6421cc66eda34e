"""Reading JSON and JSON Lines files with errors that name the file and the line.

:func:`parse_json` is the one rule for a JSON text every reader of a user's file applies: what
``json.loads`` accepts but the product cannot keep (a lone UTF-16 surrogate) or refuses otherwise
than as a syntax error (an integer too long to convert) is a :class:`JsonValueError` saying so.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from arastance.base.text_files import utf8_lines


class JsonValueError(ValueError):
    """JSON text that parses but holds a value this program cannot keep; the message says which
    value, and the caller adds the file (and line)."""


def parse_json(text: str) -> Any:
    """The value of the JSON ``text`` (decoded from UTF-8) as :func:`json.loads` gives it, refusing
    with a :class:`JsonValueError` what ``json.loads`` lets through or refuses unlike a syntax error:

    * an integer literal longer than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits
      by default), which ``json.loads`` refuses with a plain ``ValueError``, not a
      ``json.JSONDecodeError``, so a reader catching the latter ended in a traceback;
    * a lone UTF-16 surrogate (``"\\ud800"``), which ``json.loads`` accepts but UTF-8 text cannot
      hold, so writing the value (a Parquet file, the warehouse, standard output) failed later.

    Syntax errors (``json.JSONDecodeError``) and nesting deeper than the parser goes
    (``RecursionError``) are raised as they are: each reader words those with its own line and column.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # the only other ValueError json.loads raises on a str: int() refusing a long literal
        raise JsonValueError(f"JSON with an integer of more than {sys.get_int_max_str_digits():,} digits "
                             "(longer than Python reads)") from None
    if "\\u" in text:  # text decoded from UTF-8 holds no surrogate: only a \uXXXX escape can give one
        lone = _lone_surrogate(value)
        if lone is not None:
            raise JsonValueError(f"JSON with a lone UTF-16 surrogate \\u{ord(lone):04x} that UTF-8 text cannot hold "
                                 "(half of a pair)")
    return value


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in the strings (keys included) of the parsed ``value``, or None.

    The decoder joins a valid pair (``\\ud83d\\ude00``, an emoji) into one character, so a surrogate
    left in a string is half of a pair, the one character that UTF-8 cannot encode: encoding finds it
    about three times faster than a regular expression would, and an ASCII string (``isascii`` is a flag
    read) holds none. The walk keeps its own stack, as a value may be nested nearly as deep as
    Python's recursion limit.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return item[exc.start]
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            for key, member in reversed(item.items()):
                stack += (member, key)
    return None


def json_lines(lines: Iterable[bytes | str], path: Path | str, error: type[Exception], *,
               allow_bom: bool = False) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each non-blank line, ``where`` being ``"<path>, line <n>"``; with
    ``allow_bom``, a UTF-8 BOM before the first line is skipped (as editors on Windows write one).

    A line that is not valid JSON, nested too deep for the parser (Python's recursion limit), holding
    a value :func:`parse_json` refuses, or (for a file opened in binary mode, as callers should) not
    valid UTF-8, raises ``error`` naming the file, the line and the problem; checking the value's
    shape is the caller's job, with ``where`` for its own messages.
    """
    for number, line in enumerate(utf8_lines(lines, path, error), 1):
        if number == 1 and allow_bom:
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            value = parse_json(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except JsonValueError as exc:
            raise error(f"{where}: {exc}") from None
        except RecursionError:
            raise error(f"{where}: JSON nested too deep to read") from None
        yield where, value


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
