"""The dataset export streams its rows: it runs within a DuckDB memory limit far below its text, and
what it holds of the text beyond DuckDB's (a batch of texts, a Parquet row group) is bounded in
characters or bytes, not in rows (its peak memory is a benchmark's figure: benchmarks/bench_large_outputs.py).

Every gold pair carries its article's full text, so a dataset of a few hundred thousand pairs is
many GB; the export used to read all of it into Python before writing a line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers_annotation import LONG_ARTICLE, add_long_text_dataset

from tasks.dataset import arastance_format
from tasks.dataset.arastance_format import ClaimRecord, DatasetFileWriter, read_jsonl, read_parquet
from warehouse import Warehouse, open_warehouse
from warehouse import dataset as store

ROOT = Path(__file__).resolve().parents[1]
N_CLAIMS = 500

#: The export in a process of its own, with DuckDB's buffers and cache limited to 128 MB (it spills beyond)
#: by the setting that bounds them (warehouse_memory_limit).
_EXPORT = """
import json, sys
from pathlib import Path
from tasks.dataset.export import export_dataset
from warehouse import open_warehouse
with open_warehouse(Path(sys.argv[1]), publish=False) as wh:
    assert wh.scalar("SELECT current_setting('memory_limit')") == "122.0 MiB"
    summary = export_dataset(wh, Path(sys.argv[2]))
print(json.dumps({"pairs": sum(summary.pairs.values())}))
"""


def test_the_export_streams_within_a_small_duckdb_memory_limit(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    with open_warehouse(db, publish=False) as wh:
        text_bytes = add_long_text_dataset(wh, N_CLAIMS)
    assert text_bytes > 200 * 2**20
    run = subprocess.run([sys.executable, "-c", _EXPORT, str(db), str(tmp_path / "ds")], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "ARASTANCE_WAREHOUSE_MEMORY_LIMIT": "128MB"},
                         capture_output=True, text=True, timeout=300)
    # it was: DuckDB sorted every text with its row, out of memory within the limit above
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])["pairs"] == N_CLAIMS * 4
    jsonl = sum((tmp_path / "ds" / f"{split}.jsonl").stat().st_size for split in ("train", "dev", "test"))
    assert jsonl > text_bytes  # every article was written out in full


def _texts_read(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(articles, characters) of every read of article texts by ``dataset_rows``, as they happen."""
    reads: list[tuple[int, int]] = []
    read_texts = store._article_texts

    def counted(wh: Warehouse, article_ids: set[str]) -> dict[str, str]:
        texts = read_texts(wh, article_ids)
        reads.append((len(texts), sum(map(len, texts.values()))))
        return texts

    monkeypatch.setattr(store, "_article_texts", counted)
    return reads


def test_long_article_texts_are_read_a_bounded_number_of_characters_at_a_time(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_long_text_dataset(warehouse, 20)  # 80 articles of about 95,000 characters each
    reads = _texts_read(monkeypatch)
    rows = list(store.dataset_rows(warehouse))
    stored = {r["article_id"]: r["text"] for r in warehouse.query("SELECT article_id, text FROM articles")}
    assert [r["article"] for r in rows] == [stored[r["article_id"]] for r in rows]  # every text, whole
    assert [(r["split"], r["claim_id"], r["rank"]) for r in rows] == sorted(
        (r["split"], r["claim_id"], r["rank"]) for r in rows)
    assert sum(n for n, _ in reads) == len(stored) == 80  # each text read once
    # it was one read of all 80 (7.5 million characters): a batch was 200 rows, however long their texts
    assert 1 < len(reads) < 10, reads
    assert max(chars for _, chars in reads) <= store.DATASET_BATCH_CHARS


def test_short_article_texts_are_still_read_two_hundred_at_a_time(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_long_text_dataset(warehouse, 120, repeats=1)  # 480 pairs of news articles a few words long
    reads = _texts_read(monkeypatch)
    assert len(list(store.dataset_rows(warehouse))) == 480
    assert max(n for n, _ in reads) == store.DATASET_BATCH_ROWS  # the first batches learn the texts' length
    assert sum(n for n, _ in reads) == 480


def test_parquet_row_groups_of_long_texts_end_at_a_few_megabytes(tmp_path: Path) -> None:
    # 12 claims of 4 articles of about 270 KB each (1.1 MB a line): the Parquet writer holds a row group in
    # Python and then about four times over as Arrow columns and pages, so a group is bounded in bytes
    records = [ClaimRecord(f"c{i}", f"ادعاء {i}", tuple(f"{LONG_ARTICLE}{i}-{j}" for j in range(4)), ("",) * 4,
                           tuple(f"https://news{j}.example/{i}" for j in range(4)), ("agree",) * 4) for i in range(12)]
    jsonl, parquet = tmp_path / "train.jsonl", tmp_path / "train.parquet"
    with DatasetFileWriter(jsonl, parquet) as files:
        for record in records:
            files.write(record)
    line_bytes = [len(line) for line in jsonl.read_bytes().splitlines(keepends=True)]
    meta = pq.read_metadata(parquet)
    groups = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sum(groups) == len(line_bytes) == 12 and read_parquet(parquet) == read_jsonl(jsonl) == records
    assert len(groups) > 1  # it was one group: 7.3 million characters, below a bound of 8 million
    bound, start = arastance_format.ROW_GROUP_BYTES, 0
    for i, rows in enumerate(groups):  # a group ends with the line that brings its lines to the bound
        lines = line_bytes[start:start + rows]
        assert sum(lines[:-1]) < bound and (sum(lines) >= bound or i == len(groups) - 1)
        start += rows
