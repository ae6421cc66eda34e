"""One run at a time per stage: a lock file with liveness, so a crashed holder never blocks.

Each long-running stage (a site's crawl, loading, retrieval, annotation import, training) holds
``<locks dir>/<stage>.lock`` while it runs. The lock is an ``flock`` on that file, which the
kernel releases when the holding process dies, however it dies (kill -9 included): a dead
holder's lock is simply taken over (and logged), while a live holder makes the second run
fail at once with the holder's PID, host and start time (or, where the caller asks for it, wait
a bounded time for it first: loads on a DuckLake). The file keeps the holder's
details for that message; it is not itself the lock, so a stale file never blocks anything.

Warehouse stages lock next to the warehouse file (``<warehouse dir>/locks``), crawls next to
their scratch directories (``<data_dir>/locks``).
"""

from __future__ import annotations

import fcntl
import functools
import inspect
import json
import os
import socket
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from arastance.base.bounded_wait import wait_for
from arastance.config import load_settings
from warehouse import flow_warehouse
from arastance.logging import get_logger

log = get_logger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class StageBusyError(RuntimeError):
    """Another live process runs this stage; the message names its PID."""


def warehouse_locks(warehouse_path: Path | str) -> Path:
    """Where the stages that write a warehouse keep their locks."""
    return Path(warehouse_path).resolve().parent / "locks"


def _holder(fd: int) -> dict[str, Any]:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 4096)
    try:
        found = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _who(fd: int) -> str:
    """The holder of the lock on ``fd`` as the messages name it."""
    holder = _holder(fd)
    return (f"PID {holder.get('pid', '?')} on {holder.get('host', '?')}, since {holder.get('started_at', '?')}"
            if holder else "a process that has not written its PID yet")


def _take(fd: int, path: Path, stage: str, wait_s: float) -> None:
    """Take the ``flock`` on ``fd``, waiting up to ``wait_s`` seconds for a live holder (logged
    once, naming it), or raise :class:`StageBusyError`. The wait polls, so that a run asked to
    stop stops waiting (:func:`arastance.base.bounded_wait.wait_for`)."""

    def attempt() -> bool | None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        return True

    waited = f"; waited {wait_s:g}s" if wait_s else ""
    wait_for(
        attempt, wait_s=wait_s, every_s=0.2,
        waiting=lambda: log.info("waiting for another run of the stage to finish",
                                 extra={"stage": stage, "holder": _who(fd), "lock": str(path), "wait_s": wait_s}),
        gave_up=lambda: StageBusyError(f"{stage} is already running ({_who(fd)}; lock {path}){waited}; wait for it "
                                       "to finish or stop that process"),
    )


@contextmanager
def stage_lock(directory: Path | str, stage: str, *, wait_s: float = 0.0) -> Iterator[Path]:
    """Hold ``<directory>/<stage>.lock`` for the duration of the block, or raise :class:`StageBusyError`
    at once, or after waiting up to ``wait_s`` seconds for the live holder to finish."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stage}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by child processes (PEP 446)
    try:
        _take(fd, path, stage, wait_s)
    except BaseException:  # busy, or asked to stop while waiting
        os.close(fd)
        raise
    previous = _holder(fd)
    if previous.get("pid"):
        log.warning("took over the lock of a run that died", extra={"stage": stage, "dead_pid": previous["pid"],
                                                                    "since": previous.get("started_at")})
    me = {"pid": os.getpid(), "host": socket.gethostname(),
          "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, json.dumps(me).encode("utf-8"))
    try:
        yield path
    finally:
        os.ftruncate(fd, 0)  # released cleanly: nothing to take over
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def locked_stage(stage: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a stage's entry point (under ``@flow``) so that it runs under the stage's lock.

    The lock sits next to the warehouse named by the call's ``warehouse_path`` argument, else
    the configured one. That argument is checked first (:func:`warehouse.flow_warehouse`): a
    mistyped path is refused by name, and leaves no lock directory where no warehouse is.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            given = signature.bind_partial(*args, **kwargs).arguments.get("warehouse_path")
            with stage_lock(warehouse_locks(flow_warehouse(given, load_settings())), stage):
                return fn(*args, **kwargs)

        # Prefect builds its parameter model from the wrapper: give it the resolved annotations
        # (the flow module's string annotations cannot be resolved from this module).
        run.__annotations__ = typing.get_type_hints(fn)
        run.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]
        return run

    return decorate
