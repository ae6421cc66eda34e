"""Child processes that die with their parent (Scrapy crawls and article fetches).

A ``crawl`` or ``retrieve`` killed hard (kill -9, an OOM kill, a cancelled Prefect run) would
otherwise leave its Scrapy child running: still fetching, still appending to a staging run
that nobody will finish, and keeping the site's crawl scratch busy. Launchers put their PID in
``ARASTANCE_PARENT_PID``; the child, at start-up, asks Linux to send it SIGTERM when that
parent dies (``PR_SET_PDEATHSIG``; Scrapy stops gracefully on SIGTERM and a resumable crawl
keeps its JOBDIR), and exits at once if the parent is already gone. Elsewhere it is a no-op.
Process pools (:func:`worker_pool`) make the same request for their workers.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.pool import Pool

PARENT_PID_ENV = "ARASTANCE_PARENT_PID"
_PR_SET_PDEATHSIG = 1


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` plus this process's PID, for a child that must not outlive it."""
    return {**env, PARENT_PID_ENV: str(os.getpid())}


def die_with_parent() -> None:
    """In a child started with :func:`child_env`: end when the parent ends, whatever kills it."""
    parent = os.environ.get(PARENT_PID_ENV)
    if parent:
        end_with(int(parent))


def end_with(parent: int) -> None:
    """Ask Linux to send this process SIGTERM when ``parent`` dies (and exit now if it has);
    elsewhere a no-op. Also the initializer of :func:`worker_pool`'s workers."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(1)


@contextmanager
def worker_pool(workers: int) -> Iterator[Pool]:
    """A pool of ``workers`` processes that never outlives the work it was made for.

    Its workers end with this process, however it ends (a SIGTERM'd ``index build`` left its
    workers blocked for good, holding their memory). Leaving the block by an exception (Ctrl-C,
    an error, a consumer that stops reading) terminates them at once instead of letting each
    finish the task it holds (a whole WARC file: minutes).
    """
    pool = get_context().Pool(workers, initializer=end_with, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    else:
        pool.close()
    finally:
        pool.join()
