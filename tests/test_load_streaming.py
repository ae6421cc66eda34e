"""Streaming loads: pages committed in batches are taken back when the load fails; bodies are
stored as zlib without recompression and a bad one is named."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest
from helpers_crawl_load import StagedPost, read_jsonl, write_jsonl, write_run

from arastance.base.staging import StagingError
import tasks.claim_load.load as load_module
from tasks.claim_load.load import load_crawl_run
from tasks.page_bodies import BodyError, gzip_to_zlib
from warehouse import open_warehouse

POSTS = [StagedPost(f"/2016/05/post-{i}/", f"شائعة: إغلاق المدرسة رقم {i} في دبي لمدة أسبوعين", f"عنوان {i}")
         for i in range(9)] + [StagedPost("/2016/05/video/", "[فيديو]", "فيديو", is_multimedia=True)]


@pytest.mark.parametrize("ahead", [False, True], ids=["in-process", "worker"])
def test_a_broken_line_after_the_pages_takes_the_pages_back(tmp_path: Path, monkeypatch, ahead: bool) -> None:
    if ahead:  # the claims are prepared by the worker process, which finds the broken line
        monkeypatch.setattr(load_module, "AHEAD_FROM", 0)
    broken = write_run(tmp_path / "araanews-2", "araanews", POSTS)
    claims = read_jsonl(broken / "claims.jsonl")
    claims[7]["veracity"] = "true"
    write_jsonl(broken / "claims.jsonl", claims)
    with open_warehouse(tmp_path / "w.duckdb") as wh:
        with pytest.raises(StagingError, match=r"claims\.jsonl, line 8: field 'veracity' is 'true'"):
            load_crawl_run(wh, broken)
        assert wh.scalar("SELECT count(*) FROM claims") == 0
        assert wh.scalar("SELECT count(*) FROM raw_pages") == 0  # committed in batches, then taken back


_CLAIM_COLUMNS = "claim_id, canonical_url, cleaned_text, normalized_text, status, status_reason, published_date, content_hash"


def test_claims_prepared_ahead_by_a_worker_are_the_claims_prepared_in_process(tmp_path: Path, monkeypatch) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    with open_warehouse(tmp_path / "in-process.duckdb") as wh:
        report = load_crawl_run(wh, run)
        expected = wh.query(f"SELECT {_CLAIM_COLUMNS} FROM claims ORDER BY claim_id")
    monkeypatch.setattr(load_module, "AHEAD_FROM", 0)  # every run prepares its claims in a worker
    with open_warehouse(tmp_path / "ahead.duckdb") as wh:
        ahead = load_crawl_run(wh, run)
        assert wh.query(f"SELECT {_CLAIM_COLUMNS} FROM claims ORDER BY claim_id") == expected
    assert (ahead.new_claims, ahead.statuses, ahead.dropped) == (report.new_claims, report.statuses, report.dropped)
    assert len(expected) == len(POSTS) and report.statuses["excluded"] == 1


def test_a_load_gives_back_the_checkpoint_setting_it_raised_for_its_pages(tmp_path: Path) -> None:
    good = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    broken = write_run(tmp_path / "araanews-2", "araanews", POSTS[:3])
    (broken / "claims.jsonl").write_text("{not json\n", encoding="utf-8")
    with open_warehouse(tmp_path / "w.duckdb") as wh:
        wh.con.execute("SET checkpoint_threshold = '3MiB'")
        setting = wh.scalar("SELECT current_setting('checkpoint_threshold')")
        assert load_crawl_run(wh, good).new_pages == len(POSTS)
        assert wh.scalar("SELECT current_setting('checkpoint_threshold')") == setting
        with pytest.raises(StagingError):
            load_crawl_run(wh, broken)
        assert wh.scalar("SELECT current_setting('checkpoint_threshold')") == setting
        assert wh.scalar("SELECT count(*) FROM raw_pages") == len(POSTS)


def test_bodies_are_rewrapped_not_recompressed() -> None:
    body = ("<html><body>" + "نص المقال " * 3000 + "</body></html>").encode("utf-8")
    packed = gzip.compress(body, compresslevel=9)
    stored = gzip_to_zlib(packed)
    assert zlib.decompress(stored.zlib_bytes) == body
    assert stored.zlib_bytes[2:-4] == packed[10:-8]  # the same DEFLATE stream, zlib header and trailer
    two_members = gzip.compress(body[:100]) + gzip.compress(body[100:])
    assert zlib.decompress(gzip_to_zlib(two_members).zlib_bytes) == body
    damaged = bytearray(packed)
    damaged[-6] ^= 0xFF  # the stored length no longer matches
    with pytest.raises(BodyError, match="trailer"):
        gzip_to_zlib(bytes(damaged))
    with pytest.raises(BodyError, match="not a gzip file"):
        gzip_to_zlib(body)
