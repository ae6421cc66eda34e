"""Process pools that never outlive their work: workers end with the process that made them, and an
interrupted block stops them at once instead of letting each finish what it holds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_search import DAM, FLU, article_page, write_warc

from arastance.processes import worker_pool
from spiders.article_extraction import extract_article
from tasks.search.warc import WarcFilter, WarcStats, warc_pages


def _pid(_: object) -> int:
    return os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_an_interrupted_block_stops_its_workers_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            pids = pool.map(_pid, range(8), chunksize=1)
            pool.apply_async(time.sleep, (60,))
            time.sleep(0.3)
            raise KeyboardInterrupt
    # it was: the pool waited for each worker to finish its task (a WARC file: 48 s here, minutes for real ones)
    assert time.monotonic() - started < 10 and not any(_alive(p) for p in set(pids))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_end_when_the_process_that_made_them_is_killed(tmp_path: Path) -> None:
    script = ("import os, sys, time\n"
              "from arastance.processes import worker_pool\n"
              "def pid(_): return os.getpid()\n"
              "with worker_pool(2) as pool:\n"
              "    pids = set(pool.map(pid, range(8), chunksize=1))\n"
              "    print(' '.join(map(str, pids)), flush=True)\n"
              "    pool.map(time.sleep, [60, 60])\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1])
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    proc.send_signal(signal.SIGKILL)  # it was: a SIGTERM'd `index build` left its workers blocked for good
    proc.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and not any(_alive(p) for p in workers)


def test_warc_files_read_in_worker_processes_give_what_one_process_gives(tmp_path: Path) -> None:
    sources = []
    for n in range(3):
        pages = [(f"https://www.youm7.com/story/2016/5/{n}/{i}", 200, "text/html; charset=utf-8",
                  article_page(f"خبر {n} {i}", DAM if i % 2 else FLU, "2016-05-03").encode()) for i in range(3)]
        sources.append(str(write_warc(tmp_path / f"{n}.warc.gz", pages)))
    flt = WarcFilter(keep_undated=True)
    one, two = WarcStats(), WarcStats()
    alone = list(warc_pages(sources, flt, extract=extract_article, stats=one))
    pooled = list(warc_pages(sources, flt, extract=extract_article, workers=2, stats=two))
    assert [(r.url, r.text) for r in pooled] == [(r.url, r.text) for r in alone] and len(alone) == 9
    assert one.counts == two.counts
