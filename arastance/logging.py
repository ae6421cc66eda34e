"""Structured logging: ``key=value`` fields after the message, readable and grep-able.

Three places read the project's records:

- the terminal (``configure_logging``, called by the CLI): one handler, one line per record,
  HTTP client chatter, Prefect's per-task state lines and the tracebacks of failed Prefect runs
  held back below WARNING (tracebacks: below DEBUG);
- the Prefect run they are logged in: :class:`PrefectRunHandler` sits on the project's
  top-level loggers and forwards each record to the flow or task run of the current context,
  so the UI's run logs say what a stage decided, counted, warned about and failed on;
- a worker's own output: Prefect's console handler on the root logger, its lines given the
  records' fields too (:func:`_install_run_handler`).

A flow file that a Prefect worker loads is a module named after the file (``pipeline``, not
``flows.pipeline``): :func:`get_logger` names its logger after the file's package path, so that it
is one of the project's loggers whatever name the module was loaded under.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arastance.base.secrets import REDACTED, redact_secrets, register_secrets

__all__ = ["REDACTED", "KeyValueFormatter", "configure_logging", "get_logger", "redact_secrets", "register_secrets",
           "shown_once"]

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}
PROJECT_LOGGERS = ("arastance", "flows", "tasks", "warehouse", "spiders", "snapshots")
# Fields that libraries attach to every record: Prefect's run identifiers (the terminal names the
# run instead) and Scrapy's spider object.
_HIDDEN_FIELDS = {"flow_run_id", "task_run_id", "flow_run_name", "task_run_name", "flow_name", "task_name",
                  "deployment_name", "worker_id", "send_to_api", "spider", "crawler"}


def _fields(record: logging.LogRecord) -> dict[str, object]:
    return {k: v for k, v in record.__dict__.items()
            if k not in _STANDARD and k not in _HIDDEN_FIELDS and not k.startswith("_")}

def _needs_quotes(value: str) -> bool:
    """A value shown quoted (``repr``): one with blanks, or with a character that could forge a log
    line or act on a terminal (a newline, an ESC), which ``repr`` writes as an escape."""
    return " " in value or not value.isprintable()


def _with_fields(line: str, record: logging.LogRecord) -> str:
    """``line`` with every ``extra=`` field of ``record`` after it as ``key=value``, secrets redacted."""
    fields = _fields(record)
    if fields:
        line += " " + " ".join(f"{k}={v!r}" if isinstance(v, str) and _needs_quotes(v) else f"{k}={v}"
                               for k, v in fields.items())
    return redact_secrets(line)


class KeyValueFormatter(logging.Formatter):
    """Append every ``extra=`` field of a record as ``key=value``; a Prefect run is named, not its
    ids; secrets are redacted everywhere."""

    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        run = getattr(record, "task_run_name", None) or getattr(record, "flow_run_name", None)
        if run and record.name.startswith("prefect."):
            base = base.replace(f" {record.name}:", f" {record.name} [{run}]:", 1)
        return _with_fields(base, record)


class FieldsAfter(logging.Formatter):
    """Another formatter's lines, each with its record's fields after it as ``key=value`` and
    secrets redacted: Prefect's console formatter in a flow run that a worker started, whose
    lines otherwise dropped the fields (``crawl failed`` without the site or the reason)."""

    def __init__(self, line: logging.Formatter) -> None:
        super().__init__()
        self.line = line

    def format(self, record: logging.LogRecord) -> str:
        return _with_fields(self.line.format(record), record)


class TerminalFormatter(KeyValueFormatter):
    """The terminal's lines: a failed Prefect run's records keep their message (the exception's type
    and text) but not its traceback below DEBUG, so that a command ends with its own clear error
    instead of a page of Prefect internals; the Prefect UI still gets the traceback."""

    def __init__(self, fmt: str, datefmt: str, *, verbose: bool) -> None:
        super().__init__(fmt, datefmt)
        self.verbose = verbose

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and not self.verbose and record.name.startswith("prefect."):
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
        return super().format(record)


#: ``extra=RUN_LOG_ONLY`` sends a record to the Prefect run's log and not to the terminal.
RUN_LOG_ONLY = {"_run_log_only": True}

_CHATTY = ("httpx", "httpcore", "scrapy", "filelock", "urllib3", "distributed", "bm25s", "prefect.task_runs")


class _QuietLibraries(logging.Filter):
    """Keep HTTP client chatter and per-task state lines ("Finished in state Completed()") off the
    terminal below WARNING, without changing their loggers (the Prefect UI still gets them); at
    DEBUG everything shows. Records sent with :data:`RUN_LOG_ONLY` never show here."""

    def __init__(self, level: str) -> None:
        super().__init__()
        self.verbose = logging.getLevelName(level) == logging.DEBUG

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_run_log_only", False):
            return False
        return self.verbose or record.levelno >= logging.WARNING or not record.name.startswith(_CHATTY)


class TerminalHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is now, so a replaced (and closed) stream is never used,
    and a rich progress bar that redirects stderr prints the line above itself.

    Its public name matters: Prefect leaves the root logger to a program that already has a
    handler of its own, instead of adding its console handler beside it (every line twice).
    """

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201 - the base class's attribute
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


class PrefectRunHandler(logging.Handler):
    """Forward a project record to the Prefect flow or task run it is logged in.

    Prefect sends only its own loggers and ``get_run_logger()`` to the API; the project's
    modules log with plain :mod:`logging` so that they stay usable outside Prefect. Outside a
    run (the CLI's own work, spider processes, tests) this handler does nothing, and it never
    imports Prefect: a process that has not imported it cannot be in a run.
    """

    def __init__(self) -> None:
        super().__init__()
        self._api: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        context = sys.modules.get("prefect.context")
        if context is None or not (context.TaskRunContext.get() or context.FlowRunContext.get()):
            return
        if self._api is None:
            from prefect.logging.handlers import APILogHandler

            self._api = APILogHandler()
            self._api.setFormatter(KeyValueFormatter("%(message)s"))
        self._api.handle(record)


class _ShownOnce(logging.Filter):
    """Lets each distinct message through once."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted goes on, for its handler to report
            return True
        if message in self.seen:
            return False
        self.seen.add(message)
        return True


@contextmanager
def shown_once(*names: str) -> Iterator[None]:
    """Within the block, each distinct message of the loggers ``names`` is shown once.

    For work repeated on the same input: several encoders loaded from one checkpoint each get
    transformers' ten-line report of the same new classification head, which an operator would
    otherwise read once per encoder in the terminal or a worker's output. A filter sits on
    the named loggers only (records of their children pass) and is taken off afterwards.
    """
    once = _ShownOnce()
    loggers = [logging.getLogger(name) for name in names]
    for logger in loggers:
        logger.addFilter(once)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(once)


def _default_level() -> str:
    level = os.environ.get("ARASTANCE_LOG_LEVEL", "INFO").upper()
    return level if level in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"} else "INFO"


def _fields_on_prefect_console() -> None:
    """Prefect's console handler on the root logger, where it is (the process of a flow run that a
    worker started, which never calls :func:`configure_logging`), shows the records' fields too, as
    the README promises of every line on stderr. The CLI takes that handler off for its own."""
    for handler in logging.getLogger().handlers:
        if type(handler).__name__ == "PrefectConsoleHandler" and not isinstance(handler.formatter, FieldsAfter):
            handler.setFormatter(FieldsAfter(handler.formatter or logging.Formatter()))


def _install_run_handler() -> None:
    """Once per process: the run handler on each project logger, at the configured level, so
    that INFO records reach a Prefect run even where the root logger stays at WARNING."""
    for name in PROJECT_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, PrefectRunHandler) for h in logger.handlers):
            logger.addHandler(PrefectRunHandler())
        if logger.level == logging.NOTSET:
            logger.setLevel(_default_level())
    _fields_on_prefect_console()


def _package_path(module_file: str) -> list[str]:
    """The dotted path of the module at ``module_file`` by its packages (the folders holding an
    ``__init__.py`` above it): ``[flows, pipeline]`` for ``<checkout>/flows/pipeline.py``."""
    path = Path(module_file).resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return parts


def _project_name(name: str) -> str:
    """The project logger's name for the module ``name``: ``name`` itself, or, for a project file
    loaded under another name (a worker loads ``flows/pipeline.py`` as ``pipeline``, a script runs
    as ``__main__``), its package path, so that its records reach the Prefect run like the others."""
    if name.split(".")[0] in PROJECT_LOGGERS:
        return name
    module_file = getattr(sys.modules.get(name), "__file__", None)
    parts = _package_path(module_file) if module_file else []
    return ".".join(parts) if parts and parts[0] in PROJECT_LOGGERS else name


def get_logger(name: str) -> logging.Logger:
    """The module's logger, in the project's tree whatever name the module was loaded under; the
    first call wires the project's loggers to Prefect runs."""
    _install_run_handler()
    return logging.getLogger(_project_name(name))


def configure_logging(level: str = "INFO") -> None:
    """Send records to stderr once, in key=value form, through one handler (Prefect's console
    handler, if something already added it, is taken off the root so that no line shows twice)."""
    _install_run_handler()
    for name in PROJECT_LOGGERS:
        logging.getLogger(name).setLevel(level)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if type(handler).__name__ == "PrefectConsoleHandler":
            root.removeHandler(handler)
    for handler in [h for h in root.handlers if isinstance(h, TerminalHandler)]:
        root.removeHandler(handler)  # configured again: the new level decides what is quiet
    handler = TerminalHandler()
    handler.setFormatter(TerminalFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S",
                                           verbose=logging.getLevelName(level) == logging.DEBUG))
    handler.addFilter(_QuietLibraries(level))
    root.addHandler(handler)
    root.setLevel(level)
