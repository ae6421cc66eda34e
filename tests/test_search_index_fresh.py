"""Retrieval on a fresh data directory: nothing pending needs no index; the configured corpus
builds a missing index; without one the error says what to configure; the crawl's warnings
are relayed to the run's log."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from arastance.config import load_settings
from flows.retrieve_documents import plan_retrieval
from tasks.crawl_runner import MAX_RELAYED, _relay_problems
from tasks.search.factory import NoSearchIndex, local_index

DOC = {"url": "https://www.youm7.com/story/2017/11/21/flood", "title": "سيول في جدة", "domain": "youm7.com",
       "text": "غمرت السيول شوارع مدينة جدة وتعطلت حركة المرور في عدة أحياء.", "published_date": "2017-11-21"}


def test_with_no_claim_pending_no_index_is_needed() -> None:
    settings = load_settings()
    plan = plan_retrieval.fn(settings.warehouse, None, None, False)
    assert plan.claims == {} and plan.to_send == {}
    assert not settings.search_index_dir.exists()


def test_a_missing_index_is_built_from_the_configured_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps(DOC, ensure_ascii=False) + "\n", encoding="utf-8")
    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(corpus))
    index = local_index(load_settings())
    assert len(index) == 1 and (load_settings().search_index_dir / "docs.parquet").is_file()
    assert len(local_index(load_settings())) == 1  # loaded the second time


def test_without_index_or_corpus_the_error_names_the_ways_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(NoSearchIndex) as missing:
        local_index(load_settings())
    for way in ("search.corpus_path", "ARASTANCE_SEARCH__CORPUS_PATH", "arastance index build", "search.backend"):
        assert way in str(missing.value)
    monkeypatch.setenv("ARASTANCE_SEARCH__CORPUS_PATH", str(tmp_path / "nowhere.jsonl"))
    with pytest.raises(NoSearchIndex, match="nowhere.jsonl does not exist"):
        local_index(load_settings())


def test_crawl_warnings_are_relayed_to_the_run_log_and_counted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    log = tmp_path / "crawl.log"
    lines = [f"2026-11-30 10:00:{i:02d} [spiders.crawlers.base] WARNING: page could not be fetched url=http://x/{i}"
             for i in range(MAX_RELAYED + 3)]
    log.write_text("\n".join(["2026-11-30 10:00:00 [scrapy.core.engine] INFO: Spider opened", *lines]), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tasks.crawl_runner"):
        _relay_problems(log, "norumors", "norumors-1")
    relayed = [r for r in caplog.records if r.name == "tasks.crawl_runner"]
    assert len(relayed) == MAX_RELAYED + 1
    assert relayed[0].getMessage() == "crawl log: WARNING: page could not be fetched url=http://x/0"
    assert relayed[-1].more == 3 and all(r._run_log_only for r in relayed)  # the terminal has the summary
