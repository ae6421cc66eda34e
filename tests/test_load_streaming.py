"""Large runs: claims preprocessed by a process pool store exactly what one process stores; bodies
are stored as zlib without recompression and a bad one is named."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest
from helpers_crawl_load import StagedPost, read_jsonl, write_jsonl, write_run

import tasks.load_claims as load_claims
from tasks.load_claims import StagingError, load_crawl_run
from tasks.page_bodies import BodyError, gzip_to_zlib
from warehouse import Warehouse, open_warehouse

POSTS = [StagedPost(f"/2016/05/post-{i}/", f"شائعة: إغلاق المدرسة رقم {i} في دبي لمدة أسبوعين", f"عنوان {i}")
         for i in range(9)] + [StagedPost("/2016/05/video/", "[فيديو]", "فيديو", is_multimedia=True)]


def _claims(wh: Warehouse) -> list[tuple]:
    return wh.con.execute("SELECT * EXCLUDE (first_seen, last_seen) FROM claims ORDER BY claim_id").fetchall()


def test_a_process_pool_stores_what_one_process_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    with open_warehouse(tmp_path / "serial.duckdb") as serial:
        load_crawl_run(serial, run)
        expected = _claims(serial)
    monkeypatch.setattr(load_claims, "PARALLEL_FROM_CLAIMS", 1)
    monkeypatch.setattr(load_claims, "CLAIM_BATCH", 3)
    monkeypatch.setattr(load_claims, "MAX_PREPARE_PROCESSES", 2)
    monkeypatch.setattr(load_claims.os, "cpu_count", lambda: 2)
    with open_warehouse(tmp_path / "pool.duckdb") as pooled:
        report = load_crawl_run(pooled, run)
        assert report.claims == len(POSTS) and report.statuses == {"active": 9, "excluded": 1}
        assert _claims(pooled) == expected

    broken = write_run(tmp_path / "araanews-2", "araanews", POSTS)
    claims = read_jsonl(broken / "claims.jsonl")
    claims[7]["veracity"] = "true"
    write_jsonl(broken / "claims.jsonl", claims)
    with open_warehouse(tmp_path / "pool-2.duckdb") as pooled:
        with pytest.raises(StagingError, match=r"claims\.jsonl, line 8: field 'veracity' is 'true'"):
            load_crawl_run(pooled, broken)
        assert pooled.scalar("SELECT count(*) FROM claims") == 0
        assert pooled.scalar("SELECT count(*) FROM raw_pages") == 0  # the pages it added were taken back


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
