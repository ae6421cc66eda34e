"""Reading UTF-8 input files so that an encoding problem is one line naming the file and line.

Every file the product reads (staging runs, annotation JSON and CSV, dataset and corpus JSON
Lines, ``arastance.toml``) is UTF-8. A file saved in another encoding (Windows-1256, UTF-16) or
cut in the middle of a multi-byte character would otherwise surface as a bare
``UnicodeDecodeError`` traceback with a byte offset and no file name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

class EncodingProblem(ValueError):
    """An input file that is not valid UTF-8; the message names the file, line and column."""


#: The longest line a JSON Lines record may take (a whole article is a few hundred KiB); a longer
#: one is a broken file (a missing newline, a binary file), refused with its line number.
MAX_LINE_BYTES = 16 * 1024 * 1024

_BOMS = {b"\xff\xfe": "UTF-16 (little-endian)", b"\xfe\xff": "UTF-16 (big-endian)"}


def decode_problem(path: Path | str, data: bytes, exc: UnicodeDecodeError, *, first_line: int = 1) -> str:
    """``"<path>, line N, column C: not valid UTF-8 (...)"`` for a failed decode of ``data``.

    ``data`` is the whole file or one line of it (then ``first_line`` is that line's number).
    """
    before = data[: exc.start]
    line = first_line + before.count(b"\n")
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    bad = data[exc.start : exc.start + 1].hex()
    if exc.reason == "unexpected end of data":
        what = "the file ends in the middle of a character (truncated?)"
    else:
        what = f"byte 0x{bad} is not valid UTF-8"
    guess = next((name for bom, name in _BOMS.items() if data.startswith(bom)), None)
    hint = f"; the file looks like {guess}" if guess and first_line == 1 else ""
    return f"{path}, line {line}, column {column}: {what}{hint}; save it as UTF-8"


def read_utf8(path: Path | str, error: type[Exception] = EncodingProblem, *, allow_bom: bool = False) -> str:
    """The whole file as text; an encoding problem raises ``error`` naming the file and line."""
    data = Path(path).read_bytes()
    if allow_bom and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(decode_problem(path, data, exc)) from None


def utf8_lines(raw_lines: Iterable[bytes | str], path: Path | str, error: type[Exception]) -> Iterator[str]:
    """Decode a binary file's lines one by one, so the error names the exact line."""
    for number, raw in enumerate(raw_lines, 1):
        if len(raw) > MAX_LINE_BYTES:
            raise error(f"{path}, line {number}: {len(raw):,} bytes in one line, more than the {MAX_LINE_BYTES:,} "
                        "a record may take (a missing line break, or not a text file?)")
        if isinstance(raw, str):
            yield raw
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(decode_problem(path, raw, exc, first_line=number)) from None
