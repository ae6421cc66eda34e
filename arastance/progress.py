"""One progress convention for long work, on a terminal and in logs.

- On a terminal (stderr is a TTY): a rich progress bar; log lines print above it.
- Anywhere else (piped, redirected to a file, a worker's output): no bar and no carriage
  returns, but one INFO line every :data:`INTERVAL_S` seconds, ``"<what>: 1200/5000 claims
  (24%), 35.2/s, about 1m 48s left"``, and one when the work ends.
- In a Prefect run the same lines reach the run's log (the project's loggers forward there),
  also when the terminal shows the bar instead.

Use :func:`track` around an iterable, or :class:`Progress` with ``update(n)``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

from arastance.base.std_streams import is_terminal
from arastance.logging import RUN_LOG_ONLY, get_logger

T = TypeVar("T")
INTERVAL_S = float(os.environ.get("ARASTANCE_PROGRESS_INTERVAL_S", "10"))
_log = get_logger("arastance.progress")
_bar_lock = threading.Lock()  # rich draws one live display at a time; others fall back to lines


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def progress_line(what: str, done: int, total: int | None, unit: str, elapsed_s: float) -> str:
    """The one-line form: counts, share, rate and time left (when the total is known)."""
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    if total:
        left = f", about {_duration((total - done) / rate)} left" if rate > 0 and done < total else ""
        return f"{what}: {done}/{total} {unit} ({100 * done / total:.0f}%), {rate:.1f}/s{left}"
    return f"{what}: {done} {unit}, {rate:.1f}/s"


class Progress:
    """Progress of one piece of work; a no-op below ``min_total`` items (short work stays quiet)."""

    def __init__(self, what: str, total: int | None = None, unit: str = "items", *,
                 logger: logging.Logger | None = None, min_total: int = 0, interval_s: float | None = None) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.log = logger or _log
        self.interval_s = INTERVAL_S if interval_s is None else interval_s
        self.enabled = total is None or total >= min_total
        self.done = 0
        self._started = self._last = time.monotonic()
        self._bar: Any = None
        self._task: Any = None
        if self.enabled and is_terminal(sys.stderr) and _bar_lock.acquire(blocking=False):
            self._start_bar()

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn(self.unit), TimeElapsedColumn(), TimeRemainingColumn(),
                                 console=Console(stderr=True), transient=False)
        self._bar.start()
        self._task = self._bar.add_task(self.what, total=self.total)

    def _emit(self, final: bool = False) -> None:
        elapsed = time.monotonic() - self._started
        line = progress_line(self.what, self.done, self.total, self.unit, elapsed)
        if final:
            line += f" in {_duration(elapsed)}"
        # with a bar on the terminal, the lines go to the Prefect run's log only
        self.log.info(line, extra=RUN_LOG_ONLY if self._bar is not None else None)

    def update(self, n: int = 1) -> None:
        if not self.enabled:
            return
        self.done += n
        if self._bar is not None:
            self._bar.update(self._task, advance=n)
        now = time.monotonic()
        if now - self._last >= self.interval_s:
            self._last = now
            self._emit()

    def close(self) -> None:
        if not self.enabled:
            return
        self.enabled = False
        if self._bar is not None:
            self._bar.stop()
            _bar_lock.release()
        self._emit(final=True)
        self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def track(items: Iterable[T], what: str, total: int | None = None, unit: str = "items", *,
          logger: logging.Logger | None = None, min_total: int = 0, enabled: bool = True) -> Iterator[T]:
    """Yield ``items`` while reporting progress (``total`` defaults to ``len(items)`` when it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if not enabled:
        yield from items
        return
    with Progress(what, total, unit, logger=logger, min_total=min_total) as bar:
        for item in items:
            yield item
            bar.update()
