"""A real Prefect server, work pool and worker for tests, always shut down afterwards."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PREFECT = str(Path(sys.executable).with_name("prefect"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PrefectServer:
    api_url: str
    env: dict[str, str]

    def cli(self, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run a ``prefect`` command against this server; a failure shows its output."""
        done = subprocess.run(
            [PREFECT, "--no-prompt", *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise AssertionError(f"prefect {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def prefect_server(home: Path, extra_env: dict[str, str] | None = None, timeout: float = 90) -> Iterator[PrefectServer]:
    """Start ``prefect server start`` on a free loopback port with its own SQLite database."""
    port = free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        **(extra_env or {}),
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }
    home.mkdir(parents=True, exist_ok=True)
    log = (home / "server.log").open("wb")
    proc = subprocess.Popen(
        [PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{api_url}/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"prefect server did not start; log:\n{(home / 'server.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield PrefectServer(api_url=api_url, env=env)
    finally:
        _stop(proc)
        log.close()


@contextmanager
def prefect_worker(server: PrefectServer, pool: str, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process worker polling ``pool`` until the block ends."""
    proc = subprocess.Popen(
        [PREFECT, "worker", "start", "--pool", pool, "--type", "process"],
        cwd=cwd, env=server.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        yield proc
    finally:
        _stop(proc)
