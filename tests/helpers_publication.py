"""A writer of another process, for the tests of the publication hold (the hold's own and the dataset flow's)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def write_in_another_process(primary: Path, source_id: str) -> str:
    """Add the source ``source_id`` to ``primary`` in a new process, whose writer then closes (and
    publishes, unless publication is held); return what that process logged."""
    script = f"""
        from arastance.logging import configure_logging
        from warehouse import open_warehouse
        configure_logging("WARNING")  # as the CLI logs
        with open_warehouse({str(primary)!r}, wait_s=60) as wh:
            wh.insert_rows("sources", [{{"source_id": {source_id!r}, "name": "Other writer", "country": "EG",
                                         "kind": "fact_check"}}])
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr
