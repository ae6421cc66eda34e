"""Helpers shared by the command modules: settings, warehouse access and table output."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, NoReturn

import typer
from rich.table import Table
from rich.text import Text

from arastance.base.std_streams import NAMES, is_terminal, was_closed
from arastance.cli.shown_text import LiteralConsole, shown
from arastance.config import Settings, SettingsError, load_settings
from arastance.logging import configure_logging

# Piped or redirected output is read by programs and pagers: tables keep their natural width
# there instead of being folded at 80 columns. Closed, stdout is None here (an import precedes the
# entry point's hold_closed_streams); what is printed to it then goes nowhere.
PIPED_WIDTH = 1000
console = LiteralConsole() if is_terminal(sys.stdout) else LiteralConsole(width=PIPED_WIDTH)
err_console = LiteralConsole(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error in red on stderr and exit with ``code``."""
    # a message may hold [brackets], emoji codes or escape sequences from a file or a page
    err_console.print(Text("error:", style="bold red"), shown(message), highlight=False)
    raise typer.Exit(code)


def warn(message: str) -> None:
    """Print a warning in yellow on stderr: something the command left undone and went on without."""
    err_console.print(Text("warning:", style="bold yellow"), shown(message), highlight=False)


def require_stdout(remedy: str = "run it with standard output open, e.g. > FILE") -> None:
    """Stop, before any work, a command whose result is what it prints, where the process was started
    with standard output closed (a cron job's ``>&-``): it would run, print to nowhere and exit 0. A
    command that stores or writes its work elsewhere runs as usual, its report going nowhere.
    ``remedy`` says what to do instead."""
    if was_closed(1):
        fail(f"{NAMES[1]} is closed, and this command's result is printed there; {remedy}")


def require_choice(option: str, value: str | None, allowed: Sequence[str]) -> None:
    """Stop with a message naming ``--option`` when ``value`` is given and not one of ``allowed``
    (before any flow starts, which would otherwise fail with a validation traceback)."""
    if value is not None and value not in allowed:
        fail(f"--{option.replace('_', '-')} {value!r} is not one of {', '.join(allowed)}")


def settings() -> Settings:
    """Load and validate the settings, or stop with a message naming each bad setting."""
    try:
        s = load_settings()
    except SettingsError as exc:
        fail(str(exc))
    configure_logging(s.log_level)
    return s


def offline_world_if(offline: bool) -> AbstractContextManager[object]:
    """``--offline``: the block runs against the offline snapshots (:func:`snapshots.offline.offline_world`),
    the one override the demo and the tests use too; otherwise it runs against the configured sites."""
    if not offline:
        return nullcontext()
    from snapshots.offline import offline_world  # the world is imported only when asked for

    return offline_world()


def print_table(rows: Sequence[dict[str, Any]], title: str | None = None, columns: Sequence[str] | None = None) -> None:
    """Render rows (dictionaries) as a table; an empty result says so. Every cell is shown as the
    text it is (:mod:`arastance.cli.shown_text`): rows hold text from the web."""
    cols = list(columns or (rows[0].keys() if rows else []))
    if not cols:
        console.print(shown(f"{title + ': ' if title else ''}(no rows)"))
        return
    table = Table(title=None if title is None else shown(title), show_lines=False, title_justify="left")
    for c in cols:
        table.add_column(shown(c), overflow="fold")
    for row in rows:
        table.add_row(*[shown(row.get(c)) for c in cols])
    console.print(table)
