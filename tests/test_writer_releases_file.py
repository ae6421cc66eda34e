"""A writer holds the warehouse file's lock until it closes, and lets it go then: another process
is kept out while it writes and gets in once it has closed.

A long-lived process (a Prefect worker) that loaded a crawl run and closed its warehouse must not
keep the DuckDB file's lock, or every other process is kept out until it ends (a report had large
runs do so, where the loader prepares the claims in a worker process: not reproduced at 24,000 and
48,000 claims; both of the loader's paths are checked here, the worker's with its threshold lowered,
after a load that stored its run and after one that failed). And while this process still writes,
publishing the readers' copy must not let go of the lock (it did: the copy read the file here, and
closing a descriptor of a file drops the process's POSIX locks on it, DuckDB's included).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers_crawl_load import StagedPost, read_jsonl, write_jsonl, write_run

import tasks.claim_load.load as load_module
from arastance.base.staging import StagingError
from tasks.claim_load.load import load_crawl_run
from warehouse import open_warehouse, published_path

POSTS = [StagedPost(f"/2016/05/post-{i}/", f"شائعة: إغلاق المدرسة رقم {i} في دبي لمدة أسبوعين", f"عنوان {i}")
         for i in range(12)]

# What the report's second process did: a plain read-write connection, which needs the file's lock.
_OPEN = "import sys, duckdb; duckdb.connect(sys.argv[1]).close()"


def _open_in_another_process(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _OPEN, str(path)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ahead", [False, True], ids=["in-process", "worker"])
@pytest.mark.parametrize("fails", [False, True], ids=["loaded", "failed"])
def test_a_closed_loader_leaves_the_file_to_other_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: bool, fails: bool
) -> None:
    if ahead:  # every run prepares its claims in the worker process
        monkeypatch.setattr(load_module, "AHEAD_FROM", 0)
    run = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    if fails:  # a bad line near the end: the claims' transaction is rolled back, the pages taken back
        claims = read_jsonl(run / "claims.jsonl")
        claims[-2]["veracity"] = "true"
        write_jsonl(run / "claims.jsonl", claims)
    path = tmp_path / "w.duckdb"
    with open_warehouse(path) as wh:
        if fails:
            with pytest.raises(StagingError, match="field 'veracity'"):
                load_crawl_run(wh, run)
        else:
            assert load_crawl_run(wh, run).new_claims == len(POSTS)
        kept_out = _open_in_another_process(path)
        assert kept_out.returncode != 0 and "Could not set lock" in kept_out.stderr  # the check sees a held lock
    opened = _open_in_another_process(path)
    assert opened.returncode == 0, opened.stderr


def test_publishing_while_another_writer_of_this_process_writes_keeps_other_processes_out(tmp_path: Path) -> None:
    # it was: the copy for readers read the file in this process and closed it, which dropped DuckDB's lock,
    # and another process opened the file for writing while this one still wrote (a crawl's sites load in
    # threads of one flow: one site's writer published while another's still wrote)
    path = tmp_path / "w.duckdb"
    with open_warehouse(path) as still_writing:
        with open_warehouse(path) as publishing:  # the same database, DuckDB's one instance in this process
            publishing.insert_rows("sources", [{"source_id": "a.example", "name": "A", "kind": "news"}])
        assert published_path(path).is_file()  # the closing writer copied the file for readers
        kept_out = _open_in_another_process(path)
        assert kept_out.returncode != 0 and "Could not set lock" in kept_out.stderr, kept_out.stderr
        still_writing.insert_rows("sources", [{"source_id": "b.example", "name": "B", "kind": "news"}])
    assert _open_in_another_process(path).returncode == 0

