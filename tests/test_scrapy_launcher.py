"""The launcher of crawl children (:mod:`tasks.scrapy_launcher`) with stand-in children: shell
scripts run where ``python -m scrapy`` would be, so that a child holding its output open or
ignoring its stop file is played exactly."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arastance.config import load_settings
from tasks import scrapy_launcher
from tasks.scrapy_launcher import JOBDIR_OPEN, discarded_mark, run_scrapy


def _child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """Make ``body`` (a shell script) the child that ``run_scrapy`` starts."""
    script = tmp_path / "child.sh"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sys, "executable", str(script))
    monkeypatch.setattr(scrapy_launcher, "OUTPUT_WAIT_S", 1.0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_child_whose_own_child_holds_its_output_is_not_waited_for(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # it was (review): closing the pipe waited for the reading thread, and so for every process holding it
    _child(tmp_path, monkeypatch, f"echo first; (sleep 30; echo late) & echo $! > {tmp_path / 'held'}; "
                                  "echo 'OSError: [Errno 28] No space left on device' >&2; exit 1")
    started = time.monotonic()
    done = run_scrapy("norumors", load_settings(), output=tmp_path / "child.out")
    try:
        assert time.monotonic() - started < 10, "the launcher waited for the process holding the output"
        assert done.returncode == 1 and done.last_lines(2) == "first\nOSError: [Errno 28] No space left on device"
        assert (tmp_path / "child.out").read_text(encoding="utf-8").startswith("first\n")
    finally:
        os.kill(int((tmp_path / "held").read_text()), signal.SIGKILL)


def test_a_second_interrupt_kills_a_child_that_does_not_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the second Ctrl-C ended the launcher's wait for a graceful stop and left the child running
    # (its parent alive, nothing else stopped it); and (review) the Ctrl-Cs after it were not heard
    pid_file = tmp_path / "pid"
    _child(tmp_path, monkeypatch, f"echo $$ > {pid_file}; exec sleep 60")  # it never reads its stop file

    def interrupt() -> None:
        while not pid_file.exists():
            time.sleep(0.05)
        for _ in range(2):
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_scrapy("norumors", load_settings(), output=tmp_path / "child.out")
    assert time.monotonic() - started < 10
    assert not _alive(int(pid_file.read_text())), "the child was killed"


#: Stand-in children: (shell script, whether it runs past its time limit, whether the launcher must
#: discard the JOBDIR it leaves).
CHILDREN = {
    "ignores its stop file and is killed": ("exec sleep 60", True, True),
    "stops when its stop file appears": ('for a in "$@"; do case "$a" in ARASTANCE_STOP_FILE=*) f="${a#*=}";; esac; '
                                         'done\nwhile [ ! -e "$f" ]; do sleep 0.05; done; exit 0', True, False),
    "dies of a signal": ("kill -9 $$", False, True),
    "fails with an exit code": ("exit 1", False, False),
}


@pytest.mark.parametrize("child", CHILDREN)
def test_the_jobdir_of_a_child_killed_before_it_closed_is_removed_and_its_run_kept(
        child: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: a spider killed past the grace left its JOBDIR half-written (no queue headers, active.json or
    # spider.state), and every later crawl resumed it, requested nothing and idled to its time limit
    script, times_out, discarded = CHILDREN[child]
    _child(tmp_path, monkeypatch, script)
    monkeypatch.setattr(scrapy_launcher, "STOP_GRACE_S", 0.5)
    jobdir, staged = tmp_path / "job" / "scrapy", tmp_path / "staging" / "run"
    (jobdir / "requests.queue").mkdir(parents=True)
    (jobdir / "requests.seen").write_bytes(b"")
    staged.mkdir(parents=True)
    (staged / "claims.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(scrapy_launcher.SpiderTimeout) if times_out else contextlib.nullcontext():
        run_scrapy("norumors", load_settings(), output=tmp_path / "child.out", scrapy_settings={"JOBDIR": jobdir},
                   timeout_s=1.0)
    assert jobdir.exists() is not discarded
    assert discarded_mark(jobdir).exists() is discarded, "a discarded JOBDIR's run goes on from a fresh one"
    assert not (jobdir / JOBDIR_OPEN).exists(), "a JOBDIR whose child ended on its own is no longer marked open"
    assert (staged / "claims.jsonl").read_text(encoding="utf-8") == "{}\n", "what the run staged is kept"


def test_a_jobdir_stays_marked_open_when_its_launcher_is_killed_with_its_child(tmp_path: Path) -> None:
    # it was: nothing told a JOBDIR whose spider was SIGKILLed with its launcher (a power loss, the container's OOM
    # kill) from one Scrapy closed, once an earlier session had closed it: it was resumed as it was
    jobdir, marked = tmp_path / "job" / "scrapy", tmp_path / "marked"
    jobdir.mkdir(parents=True)
    (jobdir / "spider.state").write_bytes(b"\x80\x04}\x94.")  # an earlier session closed it
    discarded_mark(jobdir).touch()
    script = tmp_path / "child.sh"  # says whether its JOBDIR is marked open when it starts, then runs on
    script.write_text(f"#!/bin/sh\n[ -e '{jobdir / JOBDIR_OPEN}' ] && echo $$ > '{marked}'\nexec sleep 60\n",
                      encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    code = (f"import sys; sys.executable = {str(script)!r}\n"
            "from pathlib import Path\nfrom arastance.config import load_settings\n"
            "from tasks.scrapy_launcher import run_scrapy\n"
            f"run_scrapy('norumors', load_settings(), output=Path({str(tmp_path / 'child.out')!r}), "
            f"scrapy_settings={{'JOBDIR': {str(jobdir)!r}}})\n")
    launcher = subprocess.Popen([sys.executable, "-c", code],
                                env={**os.environ, "PYTHONPATH": str(scrapy_launcher.PROJECT_ROOT)})
    try:
        deadline = time.monotonic() + 30
        while not marked.exists() and launcher.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marked.exists(), "the JOBDIR is marked open before the child starts"
        assert not discarded_mark(jobdir).exists(), "a JOBDIR that starts drops the mark of the one it replaces"
    finally:
        launcher.kill()
        launcher.wait()
        with contextlib.suppress(OSError, ValueError):  # no child, or one gone
            os.kill(int(marked.read_text(encoding="utf-8")), signal.SIGKILL)
    assert (jobdir / JOBDIR_OPEN).exists(), "the mark outlives a launcher killed with its child"
