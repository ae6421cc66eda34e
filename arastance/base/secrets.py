"""Secret values that no message may show: a registry and the log-record redaction.

The settings register the API keys they load (and :mod:`tasks.search.keys` the keys read from
Prefect Secret blocks); from then on every log record's message is redacted, whichever handler
formats it (stderr, a log file, Prefect's API log handler, which uses ``getMessage``), and
:func:`redact_secrets` cleans any other text. It lives in the base layer so that the settings,
which load the keys, can register them without importing the logging setup.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

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
