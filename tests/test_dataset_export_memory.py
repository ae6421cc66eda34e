"""The dataset export streams its rows: it runs within a DuckDB memory limit far below its text, and
its process grows by less than twice the text it writes (it held every row, record and an Arrow table
of them at once).

Every gold pair carries its article's full text, so a dataset of a few hundred thousand pairs is
many GB; the export used to read all of it into Python before writing a line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers_annotation import add_claims, add_gold

from warehouse import Warehouse, open_warehouse

ROOT = Path(__file__).resolve().parents[1]
N_CLAIMS, ARTICLES = 500, 4
#: Each article's text, repeated to about 120 KB of UTF-8 Arabic: 2,000 pairs, some 240 MB in all.
TEXT_REPEATS = 4_000

#: The export in a process of its own, reporting its peak resident memory (VmHWM: that of its own
#: image, where getrusage's ru_maxrss also counts the forking test process's memory) before and after.
_EXPORT = """
import json, re, sys
from pathlib import Path
from tasks.dataset.export import export_dataset
from warehouse import open_warehouse
def peak_kb():
    return int(re.search(r"VmHWM:\\s*(\\d+) kB", Path("/proc/self/status").read_text()).group(1))
base = peak_kb()
with open_warehouse(Path(sys.argv[1]), publish=False) as wh:
    wh.con.execute("SET memory_limit = '128MB'")  # DuckDB's buffers and cache; it spills beyond
    summary = export_dataset(wh, Path(sys.argv[2]))
print(json.dumps({"pairs": sum(summary.pairs.values()), "base_kb": base, "peak_kb": peak_kb()}))
"""


def _large_dataset(wh: Warehouse) -> int:
    """Gold pairs of split claims whose articles are long; returns the article text in bytes."""
    add_gold(wh, {p: "agree" for p in add_claims(wh, N_CLAIMS, ARTICLES)})
    wh.con.execute(f"UPDATE articles SET text = repeat(text || ' ', {TEXT_REPEATS})")
    wh.con.execute("INSERT INTO splits SELECT claim_id, ['train', 'dev', 'test'][1 + (hash(claim_id) % 3)::INT], "
                   "TIMESTAMP '2021-01-01', 1 FROM claims")
    return int(wh.scalar("SELECT sum(strlen(text)) FROM articles"))


def test_the_export_streams_within_a_small_duckdb_memory_limit(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    with open_warehouse(db, publish=False) as wh:
        text_bytes = _large_dataset(wh)
    assert text_bytes > 200 * 2**20
    run = subprocess.run([sys.executable, "-c", _EXPORT, str(db), str(tmp_path / "ds")], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    measured = json.loads(run.stdout.strip().splitlines()[-1])
    grown = (measured["peak_kb"] - measured["base_kb"]) * 1024
    assert measured["pairs"] == N_CLAIMS * ARTICLES
    # it was: DuckDB sorted every text with its row (out of memory within the limit above), and Python
    # then held all the rows, all the records and an Arrow table of all of them at once
    assert grown < 2 * text_bytes, f"export grew by {grown / 2**20:.0f} MiB for {text_bytes / 2**20:.0f} MiB of text"
    jsonl = sum((tmp_path / "ds" / f"{split}.jsonl").stat().st_size for split in ("train", "dev", "test"))
    assert jsonl > text_bytes  # every article was written out in full
