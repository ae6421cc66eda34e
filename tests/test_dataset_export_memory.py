"""The dataset export streams its rows: it runs within a DuckDB memory limit far below its text (its
peak memory is a benchmark's figure: benchmarks/bench_large_outputs.py).

Every gold pair carries its article's full text, so a dataset of a few hundred thousand pairs is
many GB; the export used to read all of it into Python before writing a line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers_annotation import add_long_text_dataset

from warehouse import open_warehouse

ROOT = Path(__file__).resolve().parents[1]
N_CLAIMS = 500

#: The export in a process of its own, with DuckDB's buffers and cache limited to 128 MB (it spills beyond).
_EXPORT = """
import json, sys
from pathlib import Path
from tasks.dataset.export import export_dataset
from warehouse import open_warehouse
with open_warehouse(Path(sys.argv[1]), publish=False) as wh:
    wh.con.execute("SET memory_limit = '128MB'")
    summary = export_dataset(wh, Path(sys.argv[2]))
print(json.dumps({"pairs": sum(summary.pairs.values())}))
"""


def test_the_export_streams_within_a_small_duckdb_memory_limit(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    with open_warehouse(db, publish=False) as wh:
        text_bytes = add_long_text_dataset(wh, N_CLAIMS)
    assert text_bytes > 200 * 2**20
    run = subprocess.run([sys.executable, "-c", _EXPORT, str(db), str(tmp_path / "ds")], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    # it was: DuckDB sorted every text with its row, out of memory within the limit above
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])["pairs"] == N_CLAIMS * 4
    jsonl = sum((tmp_path / "ds" / f"{split}.jsonl").stat().st_size for split in ("train", "dev", "test"))
    assert jsonl > text_bytes  # every article was written out in full
