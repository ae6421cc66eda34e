"""Structured logging: ``key=value`` fields after the message, readable and grep-able.

Inside a Prefect run, Prefect's own handlers also pick these records up.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from typing import Any

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


REDACTED = "****"
_secrets: set[str] = set()


def register_secrets(values: Iterable[str]) -> None:
    """Values that no log line may show (API keys from the settings); every record is redacted.

    The settings call this when they load, so a key reaches no handler: not stderr, not a
    log file, not Prefect's API log handler (which formats records with ``getMessage``).
    """
    new = {v for v in values if v and len(v) >= 4} - _secrets
    if not new:
        return
    _secrets.update(new)
    if not isinstance(logging.getLogRecordFactory(), _RedactingFactory):
        logging.setLogRecordFactory(_RedactingFactory(logging.getLogRecordFactory()))


def redact_secrets(text: str) -> str:
    """``text`` with every registered secret replaced by ``****``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class _RedactedRecord(logging.LogRecord):
    def getMessage(self) -> str:  # noqa: N802 - the logging API's name
        return redact_secrets(super().getMessage())


class _RedactingFactory:
    """Wraps the current record factory so that every record's message is redacted."""

    def __init__(self, inner: Callable[..., logging.LogRecord]) -> None:
        self.inner = inner

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        record.__class__ = _RedactedRecord if type(record) is logging.LogRecord else record.__class__
        return record


class KeyValueFormatter(logging.Formatter):
    """Append every ``extra=`` field of a record as ``key=value`` (secrets redacted everywhere)."""

    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        fields = {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}
        if fields:
            base += " " + " ".join(f"{k}={v!r}" if isinstance(v, str) and " " in v else f"{k}={v}" for k, v in fields.items())
        return redact_secrets(base)


_CHATTY = ("httpx", "httpcore", "scrapy", "filelock", "urllib3")  # a line per request otherwise


def _quiet_libraries(record: logging.LogRecord) -> bool:
    """Keep HTTP client chatter off the terminal below WARNING, without changing their loggers."""
    return record.levelno >= logging.WARNING or not record.name.startswith(_CHATTY)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is now, so a replaced (and closed) stream is never used."""

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201 - the base class's attribute
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(name)


def configure_logging(level: str = "INFO") -> None:
    """Send the project's records to stderr once, in key=value form."""
    root = logging.getLogger()
    if any(isinstance(h.formatter, KeyValueFormatter) for h in root.handlers):
        root.setLevel(level)
        return
    handler = _StderrHandler()
    handler.setFormatter(KeyValueFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
    handler.addFilter(_quiet_libraries)
    root.addHandler(handler)
    root.setLevel(level)
