"""Which finished staging runs the next crawl of a site loads first (:func:`tasks.crawl_runner.unloaded_runs`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arastance.config import load_settings
from arastance.base.staging import DISK_FULL_LOG, LOST_WRITE_LOG
from tasks.crawl_runner import (AWAITING_LOAD, crawl_log_file, crawl_staging_dir, unclosed_jobdir, unfinished_run,
                                unloaded_runs, warehouse_mark)
from tasks.scrapy_launcher import JOBDIR_OPEN, discarded_mark


def _run(name: str, *, launched: bool = True, finished: bool = True, warehouse: Path | None = None) -> Path:
    """A staging run; ``launched``: the crawl launcher ran it and marked it as waiting for its load
    into ``warehouse`` (default: the configured one)."""
    settings = load_settings()
    run_dir = crawl_staging_dir(settings) / name
    run_dir.mkdir(parents=True)
    if finished:
        (run_dir / "run.json").write_text(json.dumps({"run_id": name}), encoding="utf-8")
    if launched:
        (settings.crawl_jobs_dir / name).mkdir(parents=True)
        (settings.crawl_jobs_dir / name / AWAITING_LOAD).write_text(f"{(warehouse or settings.warehouse).resolve()}\n",
                                                                   encoding="utf-8")
    return run_dir


def _stopped(name: str) -> Path:
    """The JOBDIR of crawl ``name`` as Scrapy leaves it when its spider closes (a graceful stop)."""
    jobdir = load_settings().crawl_jobs_dir / name / "scrapy"
    (jobdir / "requests.queue").mkdir(parents=True)
    (jobdir / "requests.queue" / "active.json").write_text("{}", encoding="utf-8")
    (jobdir / "requests.seen").write_text("", encoding="utf-8")
    (jobdir / "spider.state").write_bytes(b"\x80\x04}\x94.")  # pickle of {}
    return jobdir


def test_finished_crawls_not_loaded_come_oldest_first_and_nothing_else() -> None:
    settings = load_settings()
    late = _run("norumors-20261201T000000000000")
    early = _run("norumors-20261130T000000000000")
    loaded_by_hand = _run("norumors-20261202T000000000000")  # `arastance claims load` took it meanwhile
    _run("norumors-20261203T000000000000", launched=False)  # `reparse --no-load` or a plain `scrapy crawl`
    (settings.crawl_jobs_dir / "norumors-20261204T000000000000" / "scrapy").mkdir(parents=True)  # interrupted
    archived = _run("norumors-20261205T000000000000-archive")
    _run("norumors-manual")  # not a name the launcher gives
    _run("norumors_x-20261201T000000000000")  # another site whose name starts alike
    other = _run("norumors-20261128T000000000000", warehouse=settings.data_dir / "other.duckdb")
    removed = _run("norumors-20261129T000000000000")
    removed.joinpath("run.json").unlink()
    removed.rmdir()
    asked: list[list[str]] = []

    def loaded(run_ids: list[str]) -> set[str]:
        asked.append(run_ids)
        return {loaded_by_hand.name}

    assert unloaded_runs(settings, "norumors", "live", settings.warehouse, loaded) == [early, late]
    assert sorted(asked[0]) == [early.name, late.name, loaded_by_hand.name]
    assert not (settings.crawl_jobs_dir / loaded_by_hand.name).exists(), "a run loaded by hand is released"
    assert not (settings.crawl_jobs_dir / removed.name).exists(), "a removed run is forgotten"
    assert (settings.crawl_jobs_dir / late.name / AWAITING_LOAD).is_file()
    assert unloaded_runs(settings, "norumors", "archive", settings.warehouse, loaded) == [archived]
    assert unloaded_runs(settings, "reuters", "live", settings.warehouse, loaded) == []
    # a crawl meant for another warehouse waits for that one, and is not loaded into this one
    assert unloaded_runs(settings, "norumors", "live", settings.data_dir / "other.duckdb", loaded) == [other]


def test_an_interrupted_crawl_is_resumed_only_by_its_own_site_and_mode() -> None:
    settings = load_settings()
    for name in ("norumors-20261204T000000000000", "norumors-20261205T000000000000-archive", "norumors-manual"):
        _stopped(name)
    assert unfinished_run(settings, "norumors", "live") == "norumors-20261204T000000000000"
    assert unfinished_run(settings, "norumors", "archive") == "norumors-20261205T000000000000-archive"
    assert unfinished_run(settings, "dabegad", "live") is None
    _run("norumors-20261204T000000000000", launched=False)  # it finished after all
    assert unfinished_run(settings, "norumors", "live") is None


def test_a_crawl_that_lost_writes_is_never_resumed_however_its_jobdir_survived() -> None:
    # it was: a time-out or Ctrl-C while the spider closed after a lost write left the JOBDIR, and the
    # next crawl resumed it without the pages whose writes were lost (46 of 56 claims in the review)
    settings = load_settings()
    older, newer = "norumors-20261203T000000000000", "norumors-20261204T000000000000"
    for name, said in ((older, None), (newer, LOST_WRITE_LOG)):
        _stopped(name)
        log_file = crawl_log_file(settings, name)
        log_file.parent.mkdir(parents=True, exist_ok=True)
        log_file.write_text("2026-12-04 04:36:32 [scrapy.core.engine] INFO: Spider opened\n" + (
            f"2026-12-04 04:36:33 [spiders.pipelines] ERROR: {said}: stopping the crawl\n" if said else ""),
            encoding="utf-8")
    assert unfinished_run(settings, "norumors", "live") == older
    assert not (settings.crawl_jobs_dir / newer).exists(), "its JOBDIR goes, so no later crawl resumes it"
    # it was: the words anywhere in the log, as a server's header or an error's text, made it abandoned
    quoted = (f"2026-12-04 04:36:33 [dabegad] WARNING: WordPress REST page count missing header=b'{DISK_FULL_LOG}'\n"
              f"ValueError: invalid literal for int() with base 10: b'ERROR: {LOST_WRITE_LOG}'\n")
    crawl_log_file(settings, older).write_text(quoted, encoding="utf-8")
    assert unfinished_run(settings, "norumors", "live") == older
    crawl_log_file(settings, older).write_text(
        quoted + f"2026-12-04 04:36:34 [spiders.disk_full] ERROR: {DISK_FULL_LOG} and removing its partial staging "
                 f"run; free space and crawl again error='[Errno 28] No space left on device'\n", encoding="utf-8")
    assert unfinished_run(settings, "norumors", "live") is None


def test_a_jobdir_that_scrapy_did_not_close_is_not_resumed_and_the_run_starts_afresh_keeping_what_it_staged(
        caplog: pytest.LogCaptureFixture) -> None:
    # it was: a spider killed past the launcher's grace left a 0-byte requests.seen and queue files without
    # their header, no active.json or spider.state; every later crawl resumed it, queuelib failed on each
    # request (Scrapy only logged it), nothing was requested and the crawl idled to its time limit, for ever
    settings = load_settings()
    killed, older = "norumors-20261205T000000000000", "norumors-20261204T000000000000"
    jobdir = settings.crawl_jobs_dir / killed / "scrapy"
    (jobdir / "requests.queue" / "127.0.0.1-f528764d624db129b32c21fbca0cb8d6").mkdir(parents=True)
    (jobdir / "requests.queue" / "127.0.0.1-f528764d624db129b32c21fbca0cb8d6" / "0").write_bytes(b"")
    (jobdir / "requests.seen").write_bytes(b"")
    staged = _run(killed, launched=False, finished=False)
    (staged / "claims.jsonl").write_text('{"url": "https://norumors.net/rumors/1/"}\n', encoding="utf-8")
    _stopped(older)
    assert unclosed_jobdir(jobdir) == f"{jobdir} has no spider.state"
    assert unfinished_run(settings, "norumors", "live") == killed, "the run goes on: what it staged is loaded with it"
    assert not jobdir.exists(), "its JOBDIR is never resumed"
    assert (staged / "claims.jsonl").read_text(encoding="utf-8") == '{"url": "https://norumors.net/rumors/1/"}\n'
    assert "not resuming a JOBDIR that Scrapy did not close" in caplog.text
    # the launcher removed the JOBDIR of the spider it killed: the run goes on all the same
    assert unfinished_run(settings, "norumors", "live") == killed
    # a spider.state from an earlier session, but a queue Scrapy did not close
    shutil.rmtree(staged)
    _stopped(killed).joinpath("requests.queue", "active.json").unlink()
    assert unclosed_jobdir(jobdir) == f"{jobdir / 'requests.queue'} has no active.json"
    assert unfinished_run(settings, "norumors", "live") == killed and not jobdir.exists()
    assert unfinished_run(settings, "norumors", "live") == older, "nothing staged, no JOBDIR: nothing to go on with"
    assert unclosed_jobdir(settings.crawl_jobs_dir / older / "scrapy") is None, "a closed JOBDIR is resumed as it is"


def test_a_jobdir_whose_spider_was_killed_with_its_launcher_is_not_resumed_though_an_earlier_session_closed_it() -> None:
    # it was: spider.state and active.json stay from the session that stopped gracefully, so a JOBDIR whose next
    # session was SIGKILLed with its launcher (a power loss, the container's OOM kill) was resumed as it was:
    # nothing requested, and the run finished "ok" without the pages it had not reached
    settings = load_settings()
    run = "norumors-20261205T000000000000"
    jobdir = _stopped(run)
    (jobdir / JOBDIR_OPEN).touch()  # the launcher of the next session marked it, and died before unmarking it
    staged = _run(run, launched=False, finished=False)
    assert unclosed_jobdir(jobdir) == f"{jobdir} is still marked {JOBDIR_OPEN}: its spider was killed with its launcher"
    assert unfinished_run(settings, "norumors", "live") == run and not jobdir.exists()
    assert discarded_mark(jobdir).exists() and staged.is_dir(), "the run goes on from a fresh JOBDIR, keeping what it staged"


def test_a_partial_run_is_continued_without_its_jobdir_only_when_that_jobdir_was_discarded() -> None:
    # it was: a crawl made with crawl.resumable off that timed out ("it is not resumable") left its job directory
    # and partial run, and every later crawl went on with one of them, with the known URLs of when it began
    settings = load_settings()
    older, newer = "norumors-20261204T000000000000", "norumors-20261205T000000000000"
    for run in (older, newer):
        (settings.crawl_jobs_dir / run).mkdir(parents=True)
        (settings.crawl_jobs_dir / run / "known_urls.txt").write_text("", encoding="utf-8")
        _run(run, launched=False, finished=False)
    assert unfinished_run(settings, "norumors", "live") is None, "no JOBDIR ever: nothing says what they had fetched"
    discarded_mark(settings.crawl_jobs_dir / older / "scrapy").touch()  # the launcher killed its spider
    assert unfinished_run(settings, "norumors", "live") == older


def test_a_warehouse_is_marked_by_its_place_in_the_data_directory(tmp_path: Path) -> None:
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    (data / "real").mkdir(parents=True)
    elsewhere.mkdir()
    (data / "real" / "sym.duckdb").symlink_to("../../elsewhere/wh.duckdb")  # moves with the data directory
    (tmp_path / "link").symlink_to(data)
    settings = load_settings(data_dir=data)
    assert warehouse_mark(settings, data / "warehouse.duckdb") == "warehouse.duckdb"
    # it was (review): the link was followed out of the data directory, so the mark was absolute
    assert warehouse_mark(settings, data / "real" / "sym.duckdb") == "real/sym.duckdb"
    assert warehouse_mark(load_settings(data_dir=tmp_path / "link"), data / "warehouse.duckdb") == "warehouse.duckdb"
    assert warehouse_mark(settings, elsewhere / "wh.duckdb") == str((elsewhere / "wh.duckdb").resolve())
    assert warehouse_mark(settings, data / ".." / "elsewhere" / "wh.duckdb") == str((elsewhere / "wh.duckdb").resolve())
