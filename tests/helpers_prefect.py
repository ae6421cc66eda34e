"""A real Prefect server, work pool and worker for tests, always shut down afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from helpers_ports import free_port
from prefect import get_client
from prefect.client.orchestration import SyncPrefectClient
from prefect.client.schemas.objects import FlowRun
from prefect.events.worker import EventsWorker
from prefect.logging.handlers import APILogWorker
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.states import Cancelled, Cancelling

PREFECT = str(Path(sys.executable).with_name("prefect"))
T = TypeVar("T")


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


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Stop a process group started with ``start_new_session``: SIGTERM, then SIGKILL after 20 s."""
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
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_ENABLED": "false",  # a test that renders the UI turns it on
        "PREFECT_LOGGING_LEVEL": "WARNING",
        **(extra_env or {}),
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
        stop_process(proc)
        log.close()


@contextmanager
def prefect_worker(server: PrefectServer, pool: str, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process worker polling ``pool`` until the block ends; its output goes to ``worker.log``
    in the server's PREFECT_HOME (the flow runs' logs too, for a failing test to show)."""
    log = (Path(server.env["PREFECT_HOME"]) / "worker.log").open("ab")
    proc = subprocess.Popen(
        [PREFECT, "worker", "start", "--pool", pool, "--type", "process"],
        cwd=cwd, env=server.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        yield proc
    finally:
        stop_process(proc)
        log.close()


@contextmanager
def api_client(server: PrefectServer) -> Iterator[SyncPrefectClient]:
    """A client of ``server`` in this process (the test's own settings point elsewhere)."""
    with temporary_settings(updates={PREFECT_API_URL: server.api_url}):
        try:
            with get_client(sync_client=True) as client:
                yield client
        finally:  # logs and events of in-process runs reach this server before it stops
            APILogWorker.drain_all(timeout=10)
            EventsWorker.drain_all(timeout=10)


def wait_for(check: Callable[[], T | None], timeout: float, what: str,
             detail: Callable[[], str] | None = None, interval: float = 0.5) -> T:
    """Poll ``check`` until it returns something truthy; a timeout names what never happened
    (and adds ``detail()``, e.g. the runs there are, to the message)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}" +
                                 (f"\n{detail()}" if detail else ""))
        time.sleep(interval)


def describe_runs(client: SyncPrefectClient) -> str:
    """Every flow run with its deployment, state and creator: what a failing wait saw."""
    return "\n".join(f"{r.name}: deployment={r.deployment_id} state={r.state_name} "
                     f"created_by={r.created_by.type if r.created_by else None}" for r in client.read_flow_runs())


def settle_runs(client: SyncPrefectClient, timeout: float = 180) -> None:
    """Cancel every unfinished flow run and wait until all are final, so no run outlives the test.

    Worker-started runs live in process groups of their own: stopping the worker alone would
    leave them running; a cancelled run is killed by its worker.
    """
    def unfinished() -> list[FlowRun]:
        return [r for r in client.read_flow_runs() if r.state is None or not r.state.is_final()]

    for run in unfinished():  # not forced: a run that has just finished stays as it ended
        started = run.state is not None and (run.state.is_running() or run.state.is_pending())
        client.set_flow_run_state(run.id, Cancelling() if started else Cancelled())
    deadline = time.monotonic() + timeout
    while left := unfinished():
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(left)} flow run(s) still unfinished after {timeout:.0f}s:\n"
                                 f"{describe_runs(client)}")
        time.sleep(0.5)
