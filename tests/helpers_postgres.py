"""A real PostgreSQL server for the tests, from the Debian package's binaries (``.ci/run`` installs them).

initdb refuses to run as root, so as root the server runs as the ``postgres`` system user. It
listens on a free port of 127.0.0.1 with trust authentication and lives in a temporary directory.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from helpers_ports import free_port


#: Why a test that needs a server is skipped where :func:`temporary_postgres` finds none.
NO_SERVER = "no PostgreSQL server binaries (initdb): install the Debian package postgresql (.ci/run does)"


def postgres_bin_dir() -> Path | None:
    """The newest installed PostgreSQL server's ``bin`` directory, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


@dataclass
class PostgresServer:
    bin_dir: Path
    root: Path
    port: int

    def _run(self, *args: str) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        subprocess.run([*as_postgres, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if os.getuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.root / "data"), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-o", options,
                  "-l", str(self.root / "server.log"), "-w", "start")

    def stop(self) -> None:
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "fast", "-w", "stop")

    def create_database(self, name: str) -> str:
        """Create a database and return its DuckLake catalog URL."""
        self._run(str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgres:dbname={name} host=127.0.0.1 port={self.port} user=postgres"


def start_postgres(bin_dir: Path, root: Path) -> PostgresServer:
    """Initialise and start a server under ``root`` (which must be empty)."""
    server = PostgresServer(bin_dir, root, free_port())
    server.start()
    return server


@contextlib.contextmanager
def temporary_postgres(prefix: str) -> Iterator[PostgresServer | None]:
    """A server in a new temporary directory (not under pytest's root-only one: as root the server runs
    as ``postgres``), stopped and removed after the block (a block may have stopped it itself); None
    where no server binaries are installed."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix=prefix))
    server = start_postgres(bin_dir, root)
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def benchmark_postgres(name: str) -> Iterator[tuple[PostgresServer, Path]]:
    """For a benchmark: a temporary server and a scratch directory named after ``name``; where no
    server is installed, it says so and ends the benchmark (exit status 0)."""
    with temporary_postgres(f"{name}_pg_") as server, tempfile.TemporaryDirectory(prefix=f"{name}_") as scratch:
        if server is None:
            print(f"skipped: {NO_SERVER}")
            raise SystemExit(0)
        yield server, Path(scratch)
