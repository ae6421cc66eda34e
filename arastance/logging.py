"""Structured logging: ``key=value`` fields after the message, readable and grep-able.

Inside a Prefect run, Prefect's own handlers also pick these records up.
"""

from __future__ import annotations

import logging
import sys

from arastance.base.secrets import REDACTED, redact_secrets, register_secrets

__all__ = ["REDACTED", "KeyValueFormatter", "configure_logging", "get_logger", "redact_secrets", "register_secrets"]

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}

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
