"""Headless Chromium (the Debian ``chromium`` package) driven over the DevTools protocol: open a
page of a single-page app and wait until its text shows what the test expects."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers_prefect import free_port, stop_process
from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000"]


@dataclass
class Page:
    ws: Any
    _next: int = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        self.ws.send(json.dumps({"id": self._next, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == self._next:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for_text(self, *expected: str, timeout: float = 90) -> str:
        """The page's visible text once it holds every ``expected`` string."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.evaluate("document.body ? document.body.innerText : ''") or ""
            if all(e in text for e in expected):
                return text
            time.sleep(0.5)
        missing = [e for e in expected if e not in text]
        raise AssertionError(f"page never showed {missing}; it shows:\n{text[:3000]}")


@dataclass
class Browser:
    port: int

    @contextmanager
    def open(self, url: str) -> Iterator[Page]:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?{urllib.parse.quote(url, safe=':/?=&')}",
                                         method="PUT")
        with urllib.request.urlopen(request, timeout=30) as resp:
            target = json.loads(resp.read())
        with connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as ws:
            yield Page(ws)


@contextmanager
def headless_chromium(profile: Path) -> Iterator[Browser]:
    """Chromium with a fresh profile and its DevTools endpoint on a free loopback port."""
    assert CHROMIUM is not None
    port = free_port()
    log = (profile.parent / "chromium.log").open("wb")
    proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
                             "about:blank"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"chromium did not start: {(profile.parent / 'chromium.log').read_text()[-2000:]}")
                time.sleep(0.3)
        yield Browser(port)
    finally:
        stop_process(proc)
        log.close()
