"""Telling a full (or read-only) disk from other errors: the system's error, or a library's quoting it, or
either behind a wrapper.

A write on a full disk (or over the user's quota) fails where no path is named as a rule (a
flush, a checkpoint, a queue push), and libraries pass it on in their own form: DuckDB raises its
own error quoting the system's words, a Prefect flow or a ``raise … from`` wraps it. The command
line turns it into one line saying so; a crawl stops on it (:mod:`spiders.disk_full`).
"""

from __future__ import annotations

import errno
import re
from typing import NamedTuple

#: The system's words for each error number that means there is no room left to write.
DISK_FULL = {errno.ENOSPC: "No space left on device", errno.EDQUOT: "Disk quota exceeded"}


#: The system's words for a disk that takes no writes at all: mounted read-only, or turned
#: read-only by the kernel after an I/O error. No retry helps either, nor does freeing space.
READ_ONLY = {errno.EROFS: "Read-only file system"}


class LibraryQuote(NamedTuple):
    """How a library's error begins when a write failed: the module and names of its types (None:
    any of the module's), a pattern with the system's words (``{words}``) and error number
    (``{number}``), and the error numbers it stands for when it names none (None: those it quotes)."""

    module: str
    names: frozenset[str] | None
    pattern: str
    numbers: frozenset[int] | None = None


#: tokenizers raises ``Exception`` with Rust's I/O error alone and PyTorch ``RuntimeError`` with its
#: ``enforce fail`` and the C library's ``strerror`` (a failed open) or a position it did not reach (a
#: short write, which a regular file gives only when the disk has no room); safetensors its own error
#: with Rust's; DuckDB its errors with the file's quoted path (after "Original error" in the fatal
#: error a failed write may lead to), or a block it could not offload to its temporary directory,
#: whose size is by default the room left on that disk. Each is matched from the error's start, and
#: no quote mark may come before the library's own: text from the web or a user (a key, a value that
#: could not be converted) is quoted, so it can only come after it.
LIBRARY_QUOTES = (
    LibraryQuote("builtins", frozenset({"Exception"}), r"{words} \(os error {number}\)$"),
    LibraryQuote("builtins", frozenset({"RuntimeError"}), r"\[enforce fail at [^\]\n]*\][^\"'\n]*strerror: {words}"),
    LibraryQuote("builtins", frozenset({"RuntimeError"}),
                 r"\[enforce fail at inline_container\.cc:\d+\] \. unexpected pos \d+ vs \d+$",
                 frozenset({errno.ENOSPC})),
    LibraryQuote("safetensors", None, r"[^\"'\n]*{words} \(os error {number}\)"),
    LibraryQuote("_duckdb", None, r"(?:[^\"']*Original error: \")?[^\"'\n]*file \"[^\"\n]*\": {words}"),
    LibraryQuote("_duckdb", frozenset({"OutOfMemoryException"}), r"Out of Memory Error: failed to offload data block ",
                 frozenset({errno.ENOSPC})),
)


def _quotes_system(exc: BaseException, number: int, words: str) -> bool:
    """Whether ``exc`` (not an OSError) is a library's error for a write that failed with ``number``.

    The words alone are not enough: errors also carry text from the web and from users (a header
    value, a claim, a key, a value DuckDB could not convert), and a crawl whose server sent "No space
    left on device" as a page count was stopped as if its disk were full, its staging run removed.
    So the error must be of a type that a library raises for a failed write, and begin as it does.
    """
    kind = type(exc)
    text = str(exc)
    return any(kind.__module__.split(".")[0] == quote.module and (quote.names is None or kind.__name__ in quote.names)
               and (quote.numbers is None or number in quote.numbers)
               and re.match(quote.pattern.format(words=re.escape(words), number=number), text) is not None
               for quote in LIBRARY_QUOTES)


def system_error(exc: BaseException | None, words: dict[int, str]) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain with one of ``words``' error numbers (or a library's error
    quoting them: :func:`_quotes_system`), with the system's words for it; None if none has."""
    for _ in range(10):
        if exc is None:
            return None
        if isinstance(exc, OSError):
            if exc.errno in words:
                return exc, words[exc.errno]
        else:
            reason = next((r for n, r in words.items() if _quotes_system(exc, n, r)), None)
            if reason is not None:
                return exc, reason
        exc = exc.__cause__ or exc.__context__
    return None


def full_disk_error(exc: BaseException | None) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain that says the disk is full, with the system's words for it; None if none does."""
    return system_error(exc, DISK_FULL)


def read_only_error(exc: BaseException | None) -> tuple[BaseException, str] | None:
    """The error in ``exc``'s chain that says the disk takes no writes, with the system's words; None if none does."""
    return system_error(exc, READ_ONLY)


def logged_disk_full(text: str) -> OSError | None:
    """The full disk (or quota) that a child process's log or output ``text`` reports as an
    exception, on a line of a traceback that names the exception (``OSError: [Errno 28] No space left
    on device``, or Twisted's ``builtins.OSError: …``), as an OSError to chain; None if no such line
    does. The words elsewhere in the text never count: it also quotes the web. A full disk reported
    there is what to mend first, even when a later error (in the clean-up it broke) ended the process."""
    found = re.findall(r"^[\w.]*(?:Error|Exception): \[Errno (\d+)\] ", text, re.MULTILINE)
    number = next((int(n) for n in reversed(found) if int(n) in DISK_FULL), None)
    return None if number is None else OSError(number, DISK_FULL[number])
