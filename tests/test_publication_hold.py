"""A write of several sessions holds publication of the readers' copy: a writer of another process
(or of the same one) that closes meanwhile publishes nothing and says why, the next publish after
the hold brings its changes, and a holder that dies lets go (the kernel releases its flock)."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from helpers_publication import write_in_another_process
from warehouse import Warehouse, WarehouseError, open_published, open_warehouse
from warehouse.migrate import apply_migrations
from warehouse.publish import publication_hold, publication_held_by


def _published_sources(primary: Path) -> list[str]:
    with open_published(primary) as reader:
        return [r["source_id"] for r in reader.query("SELECT source_id FROM sources ORDER BY source_id")]


def _add_source(primary: Path, source_id: str, *, publish: bool = True) -> None:
    with open_warehouse(primary, publish=publish) as wh:
        wh.insert_rows("sources", [{"source_id": source_id, "name": source_id, "country": "EG", "kind": "fact_check"}])


def test_a_writer_of_another_process_closing_during_a_hold_publishes_nothing_and_the_next_publish_has_its_change(
    tmp_path: Path,
) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    with publication_hold(primary, "a two-step test build"):
        _add_source(primary, "b-step-one", publish=False)
        logged = write_in_another_process(primary, "c-other-process")
        assert _published_sources(primary) == ["a-before"]  # neither the half build nor the other writer
        assert "holds publication" in logged and "a two-step test build" in logged, logged
        _add_source(primary, "d-step-two", publish=False)
    _add_source(primary, "e-final-step")  # the holder's final step publishes, after the hold
    assert _published_sources(primary) == ["a-before", "b-step-one", "c-other-process", "d-step-two", "e-final-step"]


def test_a_writer_of_the_holding_process_publishes_nothing_either_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    with publication_hold(primary, "build_dataset"), caplog.at_level(logging.WARNING, logger="warehouse"):
        _add_source(primary, "b-same-process")
        assert _published_sources(primary) == ["a-before"]
    [skipped] = [r for r in caplog.records if "holds publication" in r.getMessage()]
    assert skipped.held_by.startswith("build_dataset, PID ")  # type: ignore[attr-defined]
    assert publication_held_by(primary) is None
    open_warehouse(primary).close()  # a session that changed nothing still publishes what the hold kept back
    assert _published_sources(primary) == ["a-before", "b-same-process"]


def test_publication_waits_for_every_holder_and_a_failed_one_lets_go(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    with publication_hold(primary, "a retrieval"):
        with pytest.raises(RuntimeError, match="step two failed"), publication_hold(primary, "a build"):
            _add_source(primary, "b-step-one")
            raise RuntimeError("step two failed")
        _add_source(primary, "c-retrieval")  # the retrieval still holds it
        assert _published_sources(primary) == ["a-before"]
    _add_source(primary, "d-after")
    assert _published_sources(primary) == ["a-before", "b-step-one", "c-retrieval", "d-after"]


def test_a_holder_killed_while_holding_holds_publication_back_no_longer(tmp_path: Path) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    ready = tmp_path / "ready"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        from warehouse.publish import publication_hold
        with publication_hold({str(primary)!r}, "a build to be killed"):
            Path({str(ready)!r}).touch()
            time.sleep(600)
    """)], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert holder.poll() is None and time.monotonic() < deadline, "the holding process never held"
            time.sleep(0.05)
        assert f"a build to be killed, PID {holder.pid} on " in (publication_held_by(primary) or "")
        _add_source(primary, "b-during")
        assert _published_sources(primary) == ["a-before"]
    finally:
        holder.kill()  # SIGKILL: no finally of its own runs
        holder.wait(timeout=60)
    assert publication_held_by(primary) is None
    _add_source(primary, "c-after")
    assert _published_sources(primary) == ["a-before", "b-during", "c-after"]


def test_a_first_read_during_a_hold_names_the_hold(tmp_path: Path) -> None:
    primary = tmp_path / "warehouse.duckdb"
    with Warehouse(primary, publish=False) as wh:  # a warehouse never published yet
        apply_migrations(wh)
    with publication_hold(primary, "build_dataset"), pytest.raises(WarehouseError) as refused:
        open_published(primary)
    assert "a write of several steps holds publication (build_dataset, PID " in str(refused.value)
    with open_published(primary) as reader:  # the hold over, the first read publishes
        assert reader.scalar("SELECT count(*) FROM sources") == 0


def test_a_hold_file_that_takes_no_writes_still_holds(tmp_path: Path) -> None:
    # it was: a hold file another user made (0644) failed every later build with "permission denied";
    # a directory in its place stands for it here (tests run as root, whom file modes do not stop)
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    (primary.parent / f".{primary.name}.publication-hold").mkdir()
    with publication_hold(primary, "a build"):
        assert publication_held_by(primary) is not None
        _add_source(primary, "b-during")
        assert _published_sources(primary) == ["a-before"]
    _add_source(primary, "c-after")
    assert _published_sources(primary) == ["a-before", "b-during", "c-after"]


def test_a_hold_that_cannot_be_taken_lets_the_write_go_on_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    primary = tmp_path / "data" / "warehouse.duckdb"
    _add_source(primary, "a-before")
    hold = primary.parent / f".{primary.name}.publication-hold"
    hold.symlink_to(hold.name)  # a link to itself: neither made nor opened
    with caplog.at_level(logging.WARNING, logger="warehouse"), publication_hold(primary, "a build"):
        _add_source(primary, "b-during")
    assert "cannot hold publication of the readers' copy" in caplog.text
    assert _published_sources(primary) == ["a-before", "b-during"]
