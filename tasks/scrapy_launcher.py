"""Start a Scrapy spider in its own process: the one launcher of every crawl child.

Twisted's reactor cannot be restarted inside a process, so every crawl (a site spider, the
article fetcher) is a fresh ``python -m scrapy crawl <spider>`` child. The child gets the
effective settings of the parent (crawl and sites groups, data directory, log level) through
``ARASTANCE_*`` variables, so that a crawl started with overridden settings (a test, the
offline demo) fetches what its parent asked for; its output goes to a file next to its log.
The child also gets this process's PID (``ARASTANCE_PARENT_PID``, :mod:`arastance.processes`):
``spiders.settings`` then asks the kernel to stop the child when this process dies, however it
dies, so no crawl or fetch outlives a killed run.

The child runs in a process group of its own, and this launcher is what stops it: past its time
limit, when the run is asked to stop (a SIGTERM'd flow waiting for its threads,
:mod:`arastance.base.stopping`), or when a signal or Ctrl-C interrupts the wait. It asks by
creating the child's stop file (:mod:`spiders.stop_file`), never by a second signal, which Scrapy
would take as "force an unclean shutdown" and lose a resumable crawl's saved queue. A child that
does not stop within :data:`STOP_GRACE_S` is killed, and a child killed by any signal leaves its
``JOBDIR`` half-written: that ``JOBDIR`` is removed (:func:`_close_jobdir`). A ``JOBDIR`` holds
:data:`JOBDIR_OPEN` while its child runs, so that one whose launcher was killed with the child
(a power loss, the OOM killer taking the whole container) is not taken for one Scrapy closed.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arastance.base.secrets import URL_ARGUMENTS_ENV, split_url_credentials
from arastance.base.stopping import StopRequested, stop_requested
from arastance.config import Settings
from arastance.logging import get_logger
from arastance.processes import child_env

log = get_logger(__name__)

#: How often a waiting launcher looks whether its run was asked to stop.
STOP_POLL_S = 0.5
#: How long a child asked to stop may take (finishing its requests in flight) before it is killed.
STOP_GRACE_S = 30.0

#: A file inside a crawl's ``JOBDIR`` (a name Scrapy never uses) from before its child starts until the
#: child has ended on its own: Scrapy's ``spider.state`` and ``active.json`` of a session that closed
#: stay there through the next session, so only this tells a ``JOBDIR`` whose child was killed with its
#: launcher, which no one discarded (:func:`tasks.crawl_runner.unclosed_jobdir`).
JOBDIR_OPEN = "arastance-open"

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SCRAPY_SETTINGS_MODULE = "spiders.settings"


class SpiderTimeout(TimeoutError):
    """A spider process that ran past its time limit and was stopped."""


#: How much of a child's output the launcher keeps in memory, for its error messages.
OUTPUT_TAIL_BYTES = 16 * 1024
#: How long the launcher waits, after the child's end, for the rest of its output.
OUTPUT_WAIT_S = 10.0


@dataclass(frozen=True)
class SpiderProcess:
    """A finished spider process: its exit code, the file holding its output, and that output's
    end as the launcher read it (whether or not the file could be written)."""

    spider: str
    returncode: int
    output: Path
    elapsed_s: float
    output_tail: str = ""

    def last_lines(self, lines: int) -> str:
        """The last ``lines`` lines of the child's output."""
        return "\n".join(self.output_tail.splitlines()[-lines:]) or "(no output)"


class _OutputCopy(threading.Thread):
    """Copies a child's output into its file and keeps the last :data:`OUTPUT_TAIL_BYTES`.

    The child wrote into the file itself before, and a child that failed because its disk was full
    (the log's and the output's, one directory) left an empty file: its traceback, which says so,
    was lost with it, and the crawl failed with nothing but an exit code. A write that fails here
    stops the copying, never the reading, so the child is not blocked on a full pipe. The thread
    owns the pipe and ends with it; the launcher only waits a while for it, so that neither a process
    holding the pipe after the child's end nor a Ctrl-C during that wait keeps it.
    """

    def __init__(self, source: IO[bytes], target: IO[bytes]) -> None:
        super().__init__(name="spider-output", daemon=True)
        self.source, self.target = source, target
        self.tail = b""

    def run(self) -> None:
        copying = True
        with self.source:  # closed here, at its end: a close elsewhere would wait for a blocked read
            while chunk := os.read(self.source.fileno(), 1 << 16):  # no buffer lock to wait on, unlike read1
                self.tail = (self.tail + chunk)[-OUTPUT_TAIL_BYTES:]
                copying = copying and self._write(memoryview(chunk))

    def _write(self, left: memoryview) -> bool:
        """Write all of ``left`` (the file is unbuffered, so nothing is left to fail at close, and a
        write may be short); False once the file takes no more."""
        try:
            while left:
                written = self.target.write(left)
                if not written:
                    return False
                left = left[written:]
        except (OSError, ValueError):  # ValueError: the launcher closed the file, its child gone
            return False
        return True


def child_environment(settings: Settings, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent's environment plus the settings the spider process must share with it."""
    env = {k: v for k, v in (base if base is not None else os.environ).items()
           if not k.startswith(("ARASTANCE_CRAWL__", "ARASTANCE_SITES__"))}
    env = child_env(env)  # the spider ends if this process is killed (PR_SET_PDEATHSIG)
    env["SCRAPY_SETTINGS_MODULE"] = SCRAPY_SETTINGS_MODULE
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    env["ARASTANCE_DATA_DIR"] = str(Path(settings.data_dir).resolve())
    env["ARASTANCE_LOG_LEVEL"] = settings.log_level
    env["ARASTANCE_CRAWL"] = settings.crawl.model_dump_json()
    env["ARASTANCE_SITES"] = settings.sites.model_dump_json()
    return env


def command_line_arguments(args: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """``(shown, hidden)``: the spider arguments as the child's command line carries them, every URL without
    its ``user:password@``, and the URLs that had one, as given (the child reads them from
    :data:`URL_ARGUMENTS_ENV`).

    Every user of the machine reads a process's command line (``ps``, ``/proc/<pid>/cmdline``): an archive
    or mirror behind basic authentication showed its password there for the whole crawl. A process's
    environment is its own user's to read, as the settings handed over there are already.
    """
    shown: dict[str, str] = {}
    hidden: dict[str, str] = {}
    for name, value in args.items():
        shown[name], credentials = split_url_credentials(value)
        if credentials is not None:
            hidden[name] = value
    return shown, hidden


def tail(path: Path, lines: int = 30) -> str:
    """The last ``lines`` lines of a log file, for error messages."""
    if not path.exists():
        return "(no log)"
    return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def _stop_gracefully(proc: subprocess.Popen[bytes], stop_file: Path) -> None:
    """Ask the child to stop (Scrapy finishes the requests in flight and saves its JOBDIR); kill it
    if it hangs past :data:`STOP_GRACE_S`, or if the wait is interrupted (a second Ctrl-C: the child
    was left running, and, its parent alive, nothing else stopped it)."""
    stop_file.touch()
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def discarded_mark(jobdir: Path) -> Path:
    """The file beside ``jobdir`` that says it was removed unclosed, while its run goes on: the run's
    next crawl continues it from a fresh ``JOBDIR`` (:func:`tasks.crawl_runner.unfinished_run`). A run
    that never had a ``JOBDIR`` (``crawl.resumable`` off) has none, and is not continued."""
    return jobdir.with_name(f"{jobdir.name}.discarded")


def discard_jobdir(jobdir: Path) -> None:
    """Remove ``jobdir``, leaving :func:`discarded_mark` beside it (written first: a kill between the
    two leaves a ``JOBDIR`` that is refused and discarded again). Raises the :class:`OSError` of a
    ``JOBDIR`` that cannot be removed."""
    discarded_mark(jobdir).touch()
    shutil.rmtree(jobdir)


def _open_jobdir(scrapy_settings: Mapping[str, object]) -> Path | None:
    """The child's ``JOBDIR``, if any, marked :data:`JOBDIR_OPEN` before the child starts; a fresh one
    drops the :func:`discarded_mark` of the one it replaces."""
    setting = scrapy_settings.get("JOBDIR")
    if not setting:
        return None
    jobdir = Path(str(setting))
    jobdir.mkdir(parents=True, exist_ok=True)
    (jobdir / JOBDIR_OPEN).touch()
    discarded_mark(jobdir).unlink(missing_ok=True)
    return jobdir


def _close_jobdir(spider: str, proc: subprocess.Popen[bytes], jobdir: Path | None) -> None:
    """Unmark the ``JOBDIR`` of a child that ended on its own (Scrapy closed it), or remove that of a
    child that died of a signal (killed past its grace, by the OOM killer): Scrapy writes its queue
    files' headers, ``active.json`` and ``spider.state`` only when the spider closes, so the next
    crawl resumed a queue that queuelib cannot read, requested nothing and idled to its time limit,
    to be killed again, for ever. With it gone, the next crawl of the run starts afresh; the run's
    staging files lie elsewhere and are kept."""
    if jobdir is None or not jobdir.exists() or proc.returncode is None:
        return
    if proc.returncode >= 0:
        (jobdir / JOBDIR_OPEN).unlink(missing_ok=True)
        return
    log.warning("spider killed before it closed: its JOBDIR cannot be resumed and is removed",
                extra={"spider": spider, "returncode": proc.returncode, "jobdir": str(jobdir)})
    try:
        discard_jobdir(jobdir)
    except OSError as exc:  # the next crawl refuses it all the same (tasks.crawl_runner.unfinished_run)
        log.warning("the killed spider's JOBDIR could not be removed",
                    extra={"spider": spider, "jobdir": str(jobdir), "error": str(exc)})


def _wait_for(proc: subprocess.Popen[bytes], spider: str, stop_file: Path, timeout_s: float | None) -> None:
    """Wait for the child to end; stop it gracefully past ``timeout_s`` (:class:`SpiderTimeout`),
    as soon as the run is asked to stop (:class:`StopRequested`), or when the wait itself is
    interrupted (Ctrl-C or Prefect's SIGTERM in this thread: stopped, then re-raised)."""
    deadline = math.inf if timeout_s is None else time.monotonic() + timeout_s
    try:
        while True:
            try:
                proc.wait(timeout=max(0.0, min(STOP_POLL_S, deadline - time.monotonic())))
                return
            except subprocess.TimeoutExpired:
                if stop_requested():
                    raise StopRequested(f"spider {spider} stopped: the run was asked to stop") from None
                if time.monotonic() >= deadline:
                    raise SpiderTimeout(f"spider {spider} exceeded {timeout_s}s and was stopped") from None
    except BaseException:
        if proc.poll() is None:
            _stop_gracefully(proc, stop_file)
        raise


def run_scrapy(
    spider: str,
    settings: Settings,
    *,
    output: Path,
    args: Mapping[str, str] | None = None,
    scrapy_settings: Mapping[str, object] | None = None,
    timeout_s: float | None = None,
) -> SpiderProcess:
    """Run ``scrapy crawl <spider>`` to its end, its stdout and stderr in ``output``.

    ``args`` become spider arguments (``-a``; a URL's credentials go through the environment,
    :func:`command_line_arguments`), ``scrapy_settings`` Scrapy settings (``-s``, after the project's,
    so they win). Past ``timeout_s`` the child is stopped gracefully (a resumable
    crawl saves its state) and :class:`SpiderTimeout` is raised; when the run is asked to stop,
    the same way, with :class:`StopRequested`. The ``JOBDIR`` of a child that had to be killed is
    removed (:func:`_close_jobdir`).
    """
    cmd = [sys.executable, "-m", "scrapy", "crawl", spider]
    shown, hidden = command_line_arguments(args or {})
    for name, value in shown.items():
        cmd += ["-a", f"{name}={value}"]
    for name, value in (scrapy_settings or {}).items():
        cmd += ["-s", f"{name}={value}"]
    output.parent.mkdir(parents=True, exist_ok=True)
    stop_file = output.with_suffix(".stop")
    stop_file.unlink(missing_ok=True)
    cmd += ["-s", f"ARASTANCE_STOP_FILE={stop_file}"]
    jobdir = _open_jobdir(scrapy_settings or {})
    started = time.monotonic()
    with open(output, "wb", buffering=0) as out:
        env = {**child_environment(settings), URL_ARGUMENTS_ENV: json.dumps(hidden)}  # never an inherited one
        proc = subprocess.Popen(cmd, env=env, cwd=Path.cwd(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                process_group=0)  # a terminal's Ctrl-C reaches this process only: it stops the child
        assert proc.stdout is not None
        copy = _OutputCopy(proc.stdout, out)
        copy.start()
        try:
            _wait_for(proc, spider, stop_file, timeout_s)
        finally:
            stop_file.unlink(missing_ok=True)
            _close_jobdir(spider, proc, jobdir)
            copy.join(timeout=OUTPUT_WAIT_S)  # the child's end closes the pipe, unless a process it started holds it
    return SpiderProcess(spider, proc.returncode, output, time.monotonic() - started,
                         copy.tail.decode("utf-8", errors="replace"))
