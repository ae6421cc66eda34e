"""A rebuilt local index is searched afresh (the search cache keys the index's build, and keeps the
earlier build's answers), and the index built from ``search.corpus_path`` follows the corpus: built
again, saying why, when the setting names another file or the file changed; one built by hand is
left as it is."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.search.base import SearchError
from tasks.search.cache import cached_search
from tasks.search.factory import local_index
from tasks.search.local import LocalIndex, build_dir, records_from_dicts
from warehouse import Warehouse

BUILD_FILE = "build.json"  # what the index records of its build
QUERY = "سيول جدة"
OLD = {"url": "https://old.example.com/flood", "title": "سيول في جدة", "published_date": "2017-11-21",
       "text": "غمرت السيول شوارع مدينة جدة وتعطلت حركة المرور في عدة أحياء."}
NEW = {"url": "https://new.example.com/flood2", "title": "سيول في جدة", "published_date": "2017-11-22",
       "text": "غمرت السيول شوارع مدينة جدة اليوم."}


def _corpus(path: Path, *docs: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    return path


def _urls(index: LocalIndex) -> list[str]:
    return [h.url for h in index.search(QUERY, None, 10)]


def _factory_log(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "tasks.search.factory"]


def test_a_rebuilt_index_is_searched_afresh_and_the_earlier_answers_stay(warehouse: Warehouse) -> None:
    # it was: the cache key named the backend "local" whatever the index, so a rebuilt index
    # answered with the results of the one it replaced
    directory = load_settings().search_index_dir
    LocalIndex.build(records_from_dicts([OLD]), directory)
    first, cached = cached_search(warehouse, LocalIndex.load(directory), QUERY, None, 10, daily_budget=0)
    assert [r.url for r in first] == [OLD["url"]] and not cached
    assert cached_search(warehouse, LocalIndex.load(directory), QUERY, None, 10, daily_budget=0)[1]
    LocalIndex.build(records_from_dicts([NEW]), directory)
    second, cached = cached_search(warehouse, LocalIndex.load(directory), QUERY, None, 10, daily_budget=0)
    assert [r.url for r in second] == [NEW["url"]] and not cached
    rows = warehouse.query("SELECT backend, result_count FROM search_cache ORDER BY searched_at")
    assert rows == [{"backend": "local", "result_count": 1}] * 2  # both builds' answers, under the backend's name


def test_the_same_corpus_built_again_keeps_its_build_and_its_cached_answers(warehouse: Warehouse) -> None:
    directory = load_settings().search_index_dir
    first = LocalIndex.build(records_from_dicts([OLD, NEW]), directory)
    cached_search(warehouse, LocalIndex.load(directory), QUERY, None, 10, daily_budget=0)
    again = LocalIndex.build(records_from_dicts([OLD, NEW]), directory)
    assert again.build_id == first.build_id == LocalIndex.load(directory).build_id
    assert cached_search(warehouse, LocalIndex.load(directory), QUERY, None, 10, daily_budget=0)[1]


def test_index_search_after_index_build_gives_the_new_index_results(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "local")
    monkeypatch.setenv("COLUMNS", "200")
    runner = CliRunner()
    outputs = []
    for name, doc in (("a.jsonl", OLD), ("b.jsonl", NEW)):
        assert runner.invoke(app, ["index", "build", "--corpus", str(_corpus(tmp_path / name, doc))]).exit_code == 0
        found = runner.invoke(app, ["index", "search", QUERY])
        assert found.exit_code == 0, found.output
        outputs.append(found.output)
    assert OLD["url"] in outputs[0] and NEW["url"] in outputs[1] and OLD["url"] not in outputs[1]
    assert "(cached)" not in outputs[1]


def test_a_damaged_build_record_is_named_with_how_to_rebuild() -> None:
    directory = load_settings().search_index_dir
    LocalIndex.build(records_from_dicts([OLD]), directory)
    (build_dir(directory) / BUILD_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(SearchError, match=rf"index in .* is damaged \({BUILD_FILE}: .*arastance index build"):
        LocalIndex.load(directory)


def test_the_index_built_from_corpus_path_is_built_again_when_the_setting_or_the_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # it was: the index built from the first corpus was used for good, whatever the setting said
    caplog.set_level(logging.INFO, logger="tasks.search.factory")
    a = _corpus(tmp_path / "a.jsonl", OLD)
    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(a))
    assert _urls(local_index(load_settings())) == [OLD["url"]]
    assert _urls(local_index(load_settings())) == [OLD["url"]]
    assert len(_factory_log(caplog)) == 1  # built once: the second time it was loaded

    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(_corpus(tmp_path / "b.jsonl", NEW)))
    assert _urls(local_index(load_settings())) == [NEW["url"]]
    why = _factory_log(caplog)[-1].why
    assert why.startswith("search.corpus_path is now") and why.endswith(f"built from {tmp_path / 'a.jsonl'}")

    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(a))
    local_index(load_settings())
    _corpus(a, OLD, NEW)  # the same file, rewritten
    assert sorted(_urls(local_index(load_settings()))) == sorted([OLD["url"], NEW["url"]])
    assert "changed since the index was built" in _factory_log(caplog)[-1].why

    stat = a.stat()
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # touched: same size, another time
    builds = len(_factory_log(caplog))
    local_index(load_settings())
    assert len(_factory_log(caplog)) == builds + 1 and "changed since" in _factory_log(caplog)[-1].why


def test_an_index_built_by_hand_is_left_alone_and_a_vanished_corpus_keeps_the_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    directory = load_settings().search_index_dir
    LocalIndex.build(records_from_dicts([OLD]), directory)  # as `arastance index build` does
    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(_corpus(tmp_path / "b.jsonl", NEW)))
    assert _urls(local_index(load_settings())) == [OLD["url"]]

    (directory / "docs.parquet").unlink()
    assert _urls(local_index(load_settings())) == [NEW["url"]]  # built from the corpus, which is recorded
    (tmp_path / "b.jsonl").unlink()
    with caplog.at_level(logging.WARNING, logger="tasks.search.factory"):
        assert _urls(local_index(load_settings())) == [NEW["url"]]
    kept = _factory_log(caplog)[-1]
    assert "cannot be read" in kept.getMessage() and kept.problem == "does not exist"
