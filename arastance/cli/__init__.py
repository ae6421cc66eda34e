"""The ``arastance`` command line.

Each stage adds its commands in its own module of :mod:`arastance.cli.commands`, which defines
``register(app)``; modules are found automatically, so stages never edit a shared file.
"""

from __future__ import annotations

import errno
import importlib
import os
import pkgutil
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
import typer
from typer.core import TyperGroup

from arastance.base.disk_full import full_disk_error, read_only_error
from arastance.base.input_paths import not_a_directory
from arastance.base.std_streams import hold_closed_streams
from arastance.cli import commands
from arastance.cli.common import fail
from arastance.config import SettingsError

class OneLineErrors(TyperGroup):
    """The command group that ends a command failing on a refused path, a bad setting, a stage
    already running or a full or read-only disk with one error line and exit code 2, also when the
    command runs in process (``CliRunner``, a notebook calling ``app()``), where :func:`main`'s
    handling never runs and such an error ended in a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise  # a command's own ending (its error already said) or click's: never a second line
        except Exception as exc:  # noqa: BLE001 - those named by one_line_error; anything else goes on up
            message = one_line_error(exc)
            if message is None:
                raise
            fail(message)


app = typer.Typer(
    cls=OneLineErrors,
    name="arastance",
    help="Build and keep current an Arabic claim-article stance dataset, and train its models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(app)


_register_commands()


# Prefect settings for the temporary server that a flow command starts when no PREFECT_API_URL is set.
# Its first start on a machine creates and migrates its database: about 50 s on 2 cores, past
# Prefect's 20 s, after which `arastance train` failed with a traceback. Offline, telemetry only
# logs errors. An operator's own values win.
PREFECT_DEFAULTS = {"PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
                    "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


# What the operating system says of a path the user gave: a file where a directory must be, a
# directory that does not exist, one that cannot be written. Raised wherever a command opens an
# --out, --dest or --dir, these name the path, and a traceback adds nothing for the user.
PATH_ERRORS = (FileExistsError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)
# The same, raised as a plain OSError: a name longer than the file system takes, a loop of links, a
# FIFO that no process reads (arastance.cli.output_file.replacing).
PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ELOOP, errno.ENXIO})


def _path_error(exc: BaseException) -> OSError | None:
    """``exc`` where it is the system refusing a path, else None."""
    return exc if isinstance(exc, OSError) and (isinstance(exc, PATH_ERRORS) or exc.errno in PATH_ERRNOS) else None


def _paths(exc: OSError) -> str:
    return " -> ".join(os.fsdecode(p) if isinstance(p, bytes) else str(p)  # bytes: as a name, not b'…'
                       for p in (exc.filename, exc.filename2) if p is not None)


def path_error_message(exc: OSError) -> str:
    """``exc`` as one line naming its path(s), e.g. ``not a directory: out.txt/pilot-1``; one raised
    with a message of the project's own (``FileNotFoundError("no local search index in …")``) is
    that message."""
    if exc.strerror is None:
        return str(exc) or type(exc).__name__
    if isinstance(exc, FileExistsError) and exc.filename2 is None and isinstance(exc.filename, (str, os.PathLike)):
        blocker = not_a_directory(Path(exc.filename))  # a mkdir's target: "file exists" said nothing of why
        if blocker is not None:
            return f"{blocker}: {exc.filename}"
    paths = _paths(exc)
    reason = exc.strerror[:1].lower() + exc.strerror[1:]  # "Is a directory"; a path in the text keeps its case
    return f"{reason}: {paths}" if paths else reason


def refused_write_message(exc: BaseException) -> str | None:
    """One line for an error raised because the disk filled up or takes no writes (read-only), None
    for any other error.

    Such a write names no path as a rule (a flush or a checkpoint fails, not an open), so the line
    says where the command writes. What the command had committed before stays stored: the
    warehouse keeps whole transactions, and files are replaced only when written whole.
    """
    for find, remedy in ((full_disk_error, "free space on that disk"), (read_only_error, "make that disk writable")):
        found = find(exc)
        if found is not None:
            seen, reason = found
            where = _paths(seen) if isinstance(seen, OSError) else str(seen).splitlines()[0][:300]
            return (f"{reason.lower()}{f': {where}' if where else ''} (writing under the data directory or an --out "
                    f"path); {remedy} and run the command again")
    return None


def exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM ends a command as Ctrl-C does, by an exception: clean-up and exit handlers run.

    With Python's default the process just died, and so did the handlers: Prefect, having turned
    a SIGTERM into a crashed run, sends the signal again to the handler it found, and each command
    stopped that way left its temporary Prefect server running for good (240 MB each); a process
    pool's workers stayed too.
    """
    raise SystemExit(128 + signum)


def main() -> None:
    """Console-script entry point: a closed standard stream held on ``/dev/null`` (a cron job's
    ``>&-``: :mod:`arastance.base.std_streams`), Prefect's defaults, SIGTERM as an exception, and one
    error line (:func:`one_line_error`) for what fails outside a command's run, where
    :class:`OneLineErrors` does not reach."""
    hold_closed_streams()
    for name, value in PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        app()
    except Exception as exc:  # noqa: BLE001 - outside a command's run (parsing, --help to a full disk); anything else goes on up
        message = one_line_error(exc)
        if message is None:
            raise
        _exit_with(message)


def one_line_error(exc: BaseException) -> str | None:
    """The one line that ends a command failing with ``exc``, or None for an error that keeps its
    traceback: a settings error, a stage already running, a path the system refuses (these name
    what to change), or a full or read-only disk, wherever it struck."""
    from tasks.stage_locks import StageBusyError

    refused = _path_error(exc)
    if refused is not None:
        return path_error_message(refused)
    if isinstance(exc, (SettingsError, StageBusyError)):
        return str(exc)
    return refused_write_message(exc)


def _exit_with(message: str) -> NoReturn:
    """End the process with ``message`` as one error line."""
    try:
        fail(message)
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
