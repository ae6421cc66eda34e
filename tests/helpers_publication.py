"""A writer of another process, for the tests of what readers see while a dataset build writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def start_writer_in_another_process(primary: Path, source_id: str) -> subprocess.Popen[str]:
    """Start adding the source ``source_id`` to ``primary`` in a new process, whose writer waits up
    to 60 s for the file and then closes (and publishes)."""
    script = f"""
        from arastance.logging import configure_logging
        from warehouse import open_warehouse
        configure_logging("WARNING")  # as the CLI logs
        with open_warehouse({str(primary)!r}, wait_s=60) as wh:
            wh.insert_rows("sources", [{{"source_id": {source_id!r}, "name": "Other writer", "country": "EG",
                                         "kind": "fact_check"}}])
    """
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stderr=subprocess.PIPE, text=True)


def finish(writer: subprocess.Popen[str]) -> str:
    """Wait for a writer of :func:`start_writer_in_another_process`; return what it logged."""
    _, logged = writer.communicate(timeout=120)
    assert writer.returncode == 0, logged
    return logged
