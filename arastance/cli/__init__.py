"""The ``arastance`` command line.

Each stage adds its commands in its own module of :mod:`arastance.cli.commands`, which defines
``register(app)``; modules are found automatically, so stages never edit a shared file.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import sys
from typing import NoReturn

import typer

from arastance.base.disk_full import full_disk_error, read_only_error
from arastance.cli import commands
from arastance.cli.common import fail
from arastance.config import SettingsError

app = typer.Typer(
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


def _paths(exc: OSError) -> str:
    return " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)


def path_error_message(exc: OSError) -> str:
    """``exc`` as one line naming its path(s), e.g. ``not a directory: out.txt/pilot-1``; one raised
    with a message of the project's own (``FileNotFoundError("no local search index in …")``) is
    that message."""
    if exc.strerror is None:
        return str(exc) or type(exc).__name__
    paths = _paths(exc)
    reason = exc.strerror.lower()
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
    """Console-script entry point: configuration errors, a stage already running and a path the
    system refuses end the run with their message (not a traceback)."""
    from tasks.stage_locks import StageBusyError

    for name, value in PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        app()
    except (SettingsError, StageBusyError, *PATH_ERRORS) as exc:  # raised outside a command's own handling
        _exit_with(path_error_message(exc) if isinstance(exc, OSError) else str(exc))
    except Exception as exc:  # noqa: BLE001 - a full or read-only disk, wherever it struck; anything else goes on up
        message = refused_write_message(exc)
        if message is None:
            raise
        _exit_with(message)


def _exit_with(message: str) -> NoReturn:
    """End the process with ``message`` as one error line."""
    try:
        fail(message)
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
