"""Which finished staging runs the next crawl of a site loads first (:func:`tasks.crawl_runner.unloaded_runs`)."""

from __future__ import annotations

import json
from pathlib import Path

from arastance.base.staging import REPARSE_STAT
from arastance.config import load_settings
from tasks.crawl_runner import crawl_staging_dir, unfinished_run, unloaded_runs


def _run(name: str, stats: dict | None = None, *, finished: bool = True, text: str | None = None) -> Path:
    run_dir = crawl_staging_dir(load_settings()) / name
    run_dir.mkdir(parents=True)
    if finished:
        (run_dir / "run.json").write_text(text or json.dumps({"run_id": name, "stats": stats or {}}), encoding="utf-8")
    return run_dir


def test_finished_crawls_not_loaded_come_oldest_first_and_nothing_else() -> None:
    late = _run("norumors-20261201T000000000000", {"downloader/request_count": 40})
    early = _run("norumors-20261130T000000000000", text="{")  # unreadable: the loader will say why
    _run("norumors-20261202T000000000000", {"downloader/request_count": 40})  # loaded already
    _run("norumors-20261203T000000000000", {REPARSE_STAT: 12})  # `reparse --no-load` keeps it out on purpose
    _run("norumors-20261204T000000000000", finished=False)  # interrupted: the next crawl resumes it
    archived = _run("norumors-20261205T000000000000-archive", {"downloader/request_count": 9})
    _run("norumors-manual", {})  # a plain `scrapy crawl -a run_id=…`: not the flow's
    _run("dabegad-20261201T000000000000", {})
    asked: list[list[str]] = []

    def loaded(run_ids: list[str]) -> set[str]:
        asked.append(run_ids)
        return {"norumors-20261202T000000000000"}

    settings = load_settings()
    assert unloaded_runs(settings, "norumors", "live", loaded) == [early, late]
    assert unloaded_runs(settings, "norumors", "archive", loaded) == [archived]
    assert sorted(asked[0]) == [f"norumors-2026{d}T000000000000" for d in ("1130", "1201", "1202", "1203")]
    assert unloaded_runs(settings, "reuters", "live", loaded) == []


def test_an_interrupted_crawl_is_resumed_only_by_its_own_site_and_mode() -> None:
    settings = load_settings()
    for name in ("norumors-20261204T000000000000", "norumors-20261205T000000000000-archive", "norumors-manual"):
        (settings.crawl_jobs_dir / name / "scrapy").mkdir(parents=True)
    assert unfinished_run(settings, "norumors", "live") == "norumors-20261204T000000000000"
    assert unfinished_run(settings, "norumors", "archive") == "norumors-20261205T000000000000-archive"
    assert unfinished_run(settings, "dabegad", "live") is None
    _run("norumors-20261204T000000000000", {})  # it finished after all
    assert unfinished_run(settings, "norumors", "live") is None
