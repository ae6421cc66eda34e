"""Training on the warehouse's own gold data never reads a ``dataset build`` half done, and the
retraining trigger counts every label a run did not read.

A build writes its gold labels, flags and splits in one transaction and holds the warehouse file
meanwhile (:func:`flows.build_dataset.assemble`); here a second process writes the way the build
does, on a real warehouse file. It was: ``arastance train`` read the labels of the build's new claims
before they had splits, trained on 741 of the 1,424 train pairs, recorded the run as succeeded, and
the trigger never counted the rest (their labels were dated before the run began).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers_stance import tiny_examples

from tasks.stance.datasets import DatasetError, load_split
from tasks.stance.examples import StanceExample
from tasks.stance.retraining import check_retraining
from warehouse import Warehouse, WarehouseError, open_warehouse

WAITING = "waiting for another process to close the warehouse"
ROOT = Path(__file__).resolve().parents[1]


def _gold_rows(examples: list[StanceExample], decided_at: datetime,
               stored_at: datetime | None = None) -> dict[str, list[dict]]:
    """The warehouse rows that give ``examples`` gold labels decided at ``decided_at`` and written at
    ``stored_at`` (by default then too), no splits."""
    now = datetime(2024, 1, 1)
    claims = {e.claim_id: e.claim for e in examples}
    return {
        "claims": [{"claim_id": cid, "source_id": "araanews", "url": f"https://a/{cid}",
                    "canonical_url": f"https://a/{cid}", "cleaned_text": text, "veracity": "false",
                    "first_seen": now, "last_seen": now}
                   for cid, text in claims.items()],
        "articles": [{"article_id": e.article_id, "url": f"https://n/{e.article_id}",
                      "canonical_url": f"https://n/{e.article_id}", "text": e.article, "fetch_status": "ok"}
                     for e in examples],
        "claim_article_pairs": [{"pair_id": f"p-{e.article_id}", "claim_id": e.claim_id, "article_id": e.article_id,
                                 "created_at": now} for e in examples],
        "gold_labels": [{"pair_id": f"p-{e.article_id}", "label": e.label, "method": "agreed", "decided_at": decided_at,
                         "stored_at": stored_at or decided_at} for e in examples],
    }


def _store(wh: Warehouse, examples: list[StanceExample], decided_at: datetime, split: str | None,
           stored_at: datetime | None = None) -> None:
    for table, rows in _gold_rows(examples, decided_at, stored_at).items():
        wh.insert_rows(table, rows)
    if split:
        wh.insert_rows("splits", [{"claim_id": cid, "split": split, "assigned_at": decided_at}
                                  for cid in sorted({e.claim_id for e in examples})])


def _claims(*ids: str) -> list[StanceExample]:
    return [e for e in tiny_examples() if e.claim_id in ids]


@pytest.fixture
def trained_before(warehouse: Warehouse) -> Path:
    """Claims c1-c3 labelled and split into train, the warehouse closed for another process to build on."""
    _store(warehouse, _claims("c1", "c2", "c3"), datetime(2024, 1, 1), "train")
    warehouse.close()
    return warehouse.path


@pytest.fixture
def building(trained_before: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """A process that builds as ``build_dataset`` does, in one transaction: claim c4's gold labels
    stored, then it touches ``ready`` and (once ``go`` exists) splits c4 and commits. Yields it with
    ``ready`` and ``go``, and is killed at the end if it is still running."""
    ready, go = tmp_path / "ready", tmp_path / "go"
    step_one = _gold_rows(_claims("c4"), datetime(2024, 3, 1))
    script = textwrap.dedent(f"""
        import datetime  # the rows' repr names datetime.datetime
        import time
        from pathlib import Path
        from warehouse import open_warehouse
        with open_warehouse({str(trained_before)!r}) as wh, wh.transaction():
            for table, rows in {step_one!r}.items():  # gold labels decided
                wh.insert_rows(table, rows)
            Path({str(ready)!r}).touch()
            while not Path({str(go)!r}).exists():
                time.sleep(0.05)
            wh.insert_rows("splits", [{{"claim_id": "c4", "split": "train",  # the new claim's split
                                        "assigned_at": datetime.datetime(2024, 3, 1)}}])
    """)
    holder = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready.exists, holder, "labels stored and no split yet")
        yield holder, ready, go
    finally:
        holder.kill()
        holder.wait(timeout=60)


def _wait_for(done: Callable[[], bool], holder: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 120
    while not done():
        ended = holder.poll() is not None
        assert not ended, f"the holding process ended before {what}: {holder.stderr.read()}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.05)


def _train_split_meanwhile(primary: Path) -> tuple[threading.Thread, dict[str, object]]:
    """Read the train split in a thread, as the train flow's load task does; its result or error lands in the dict."""
    got: dict[str, object] = {}

    def read() -> None:
        try:
            got["train"] = load_split("warehouse", primary, "train")
        except Exception as exc:  # handed to the test's thread
            got["error"] = exc

    reader = threading.Thread(target=read)
    reader.start()
    return reader, got


def test_training_waits_for_a_build_of_another_process_and_reads_what_it_built(
    building: tuple[subprocess.Popen[str], Path, Path], trained_before: Path, caplog: pytest.LogCaptureFixture
) -> None:
    holder, _, go = building
    with caplog.at_level(logging.INFO):
        reader, got = _train_split_meanwhile(trained_before)
        # the build goes on once the reader waits (or has read: then it read the build half done)
        _wait_for(lambda: not reader.is_alive() or any(WAITING in r.getMessage() for r in caplog.records),
                  holder, "waiting or read")
        go.touch()
        reader.join(timeout=120)
    assert holder.wait(timeout=120) == 0, holder.stderr.read()  # type: ignore[union-attr]
    assert "error" not in got, got
    # the finished build: c4 is in the train split (it read 12 pairs, without c4's 4, and trained on them)
    assert sorted({e.claim_id for e in got["train"]}) == ["c1", "c2", "c3", "c4"]  # type: ignore[attr-defined]
    [waited] = [r for r in caplog.records if WAITING in r.getMessage()]  # once, naming whom it waits for
    assert waited.holder == f"PID {holder.pid}"  # type: ignore[attr-defined]


def test_a_build_that_outlasts_the_wait_fails_the_read_with_one_line_naming_it(
    building: tuple[subprocess.Popen[str], Path, Path], trained_before: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder, _, _ = building  # never told to go on
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_WRITE_WAIT_S", "1")
    with pytest.raises(DatasetError) as refused:
        load_split("warehouse", trained_before, "train")
    message = str(refused.value)
    assert message.startswith(f"warehouse {trained_before} is being written by another process (DuckDB opens no "
                              "file for reading while a process writes it; waited 1s)")
    assert f"(PID {holder.pid})" in message
    assert message.endswith("; read it again once that writer (a dataset build, a load) ends") and "\n" not in message


def test_with_no_build_running_the_read_neither_waits_nor_says_so(
    trained_before: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        assert len(load_split("warehouse", trained_before, "train")) == 12
    assert not [r for r in caplog.records if WAITING in r.getMessage()]


def _record_run(wh: Warehouse, started_at: datetime, config: dict) -> None:
    wh.insert_rows("model_runs", [{"run_id": f"r-{started_at:%Y%m%d}", "model_name": "m", "model_kind": "cpu",
                                   "config": json.dumps({"dataset": "warehouse", **config}), "data_fingerprint": "",
                                   "code_version": "", "started_at": started_at, "status": "succeeded"}])


def test_the_trigger_counts_labels_by_when_they_were_written_from_the_mark_or_the_start_of_older_runs(
    warehouse: Warehouse,
) -> None:
    # a label is dated by its last annotation: c4's were annotated before the runs began, and written
    # by a build after they had read their data (an annotation file imported late, a build meanwhile)
    _store(warehouse, _claims("c1", "c2", "c3"), datetime(2024, 1, 1), "train")
    _store(warehouse, _claims("c4"), datetime(2024, 1, 15), "train", stored_at=datetime(2024, 3, 1))
    _record_run(warehouse, datetime(2024, 2, 1), {})  # recorded without the mark: its start counts
    warehouse.close()
    assert check_retraining(warehouse.path, 1).new_labels == 4  # it was 0: c4 was decided before the start
    with open_warehouse(warehouse.path) as wh:
        _record_run(wh, datetime(2024, 6, 1), {"gold_stored_through": datetime(2024, 1, 1).isoformat()})
    check = check_retraining(warehouse.path, 1)
    assert (check.new_labels, check.last_training) == (4, datetime(2024, 1, 1))
    with open_warehouse(warehouse.path) as wh:
        _record_run(wh, datetime(2024, 7, 1), {"gold_stored_through": datetime(2024, 1, 20).isoformat()})
    assert check_retraining(warehouse.path, 1).new_labels == 4  # c4 was written after the mark
    with open_warehouse(warehouse.path) as wh:  # labels stored before stored_at existed count by their decision
        wh.con.execute("UPDATE gold_labels SET stored_at = NULL")
    assert check_retraining(warehouse.path, 1).new_labels == 0  # c4 was decided before it


def test_a_decision_stamps_the_labels_it_writes_and_leaves_unchanged_ones_as_they_were(warehouse: Warehouse) -> None:
    from warehouse.annotation import upsert_gold_labels

    _store(warehouse, _claims("c1"), datetime(2024, 1, 1), "train", stored_at=datetime(2024, 1, 1))
    pairs = [r["pair_id"] for r in warehouse.query("SELECT pair_id FROM gold_labels ORDER BY pair_id")]
    before = datetime.now(timezone.utc).replace(tzinfo=None)
    unchanged = warehouse.query("SELECT pair_id, label, method, decided_at FROM gold_labels WHERE pair_id = ?",
                                [pairs[0]])
    changed = [{"pair_id": pairs[1], "label": "unrelated" if _label(warehouse, pairs[1]) != "unrelated" else "agree",
                "method": "adjudicated", "decided_at": datetime(2023, 12, 1)}]  # annotated long before
    assert upsert_gold_labels(warehouse, unchanged + changed, undecided=[]) == 1
    stamps = {r["pair_id"]: r["stored_at"] for r in warehouse.query("SELECT pair_id, stored_at FROM gold_labels")}
    assert stamps[pairs[0]] == datetime(2024, 1, 1)  # an unchanged label keeps its stamp: nothing new to train on
    assert stamps[pairs[1]] >= before  # written now, whatever its decision time


def _label(wh: Warehouse, pair_id: str) -> str:
    return wh.scalar("SELECT label FROM gold_labels WHERE pair_id = ?", [pair_id])


def test_the_mark_of_a_warehouse_older_than_the_write_stamp_is_none_and_without_gold_labels_an_error(
    tmp_path: Path,
) -> None:
    from warehouse.model_runs import gold_written_through

    with open_warehouse(tmp_path / "w.duckdb") as wh:
        wh.con.execute("ALTER TABLE gold_labels DROP COLUMN stored_at")  # as before migration 080
        assert gold_written_through(wh) is None
        wh.con.execute("DROP VIEW IF EXISTS v_stance_examples CASCADE")
        wh.con.execute("DROP TABLE gold_labels CASCADE")
        wh._reset_state()
        with pytest.raises(WarehouseError, match=r"lacks the stance view \(run `arastance warehouse migrate`\)"):
            gold_written_through(wh)


@pytest.mark.slow
def test_a_training_on_the_warehouse_records_the_newest_label_it_read_and_the_later_build_counts(
    warehouse: Warehouse, tmp_path: Path,
) -> None:
    from prefect.testing.utilities import prefect_test_harness

    from flows.train import train_stance_model

    _store(warehouse, _claims("c1", "c2", "c3"), datetime(2024, 1, 1), "train")
    _store(warehouse, _claims("c4"), datetime(2024, 1, 2), "dev")
    primary = warehouse.path
    warehouse.close()
    with prefect_test_harness(server_startup_timeout=180):
        train_stance_model(dataset="warehouse", variant="tfidf_sim", e5_mode="static", eval_splits=["dev"],
                           out_dir=str(tmp_path / "models"), warehouse_path=str(primary))
    with open_warehouse(primary) as wh:
        assert wh.scalar("SELECT config->>'$.gold_stored_through' FROM model_runs") == "2024-01-02T00:00:00"
        # a build that ends after the run read its data: labels annotated long before (it was: never counted)
        late = [StanceExample(e.claim, e.article, e.label, "c5", f"c5-{e.label}") for e in _claims("c1")]
        _store(wh, late, datetime(2023, 12, 1), "train", stored_at=datetime.now())
    assert check_retraining(primary, 1).new_labels == 4
