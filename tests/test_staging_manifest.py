"""A staging run is checked against its own run.json before anything is stored; a cut run loads later."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_crawl_load import StagedPost, write_run

from arastance.base.ids import content_hash, stable_id
from arastance.base.staging import ClaimItem, PageItem, StagingError
from spiders.staging import StagingRun
from tasks.claim_load.load import load_crawl_run
from warehouse import Warehouse

POSTS = [StagedPost(f"/2016/05/post-{i}/", f"شائعة رقم {i} عن إغلاق الطرق في المدينة", f"عنوان {i}") for i in range(8)]


def _cut(path: Path, keep_lines: int) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:keep_lines]))


def _stored(wh: Warehouse) -> dict[str, int]:
    return {t: n for t, n in wh.table_counts().items() if t in {"claims", "raw_pages", "crawl_runs", "sources"}}


@pytest.mark.parametrize(("name", "keep"), [("claims.jsonl", 3), ("claims.jsonl", 0), ("pages.jsonl", 5)])
def test_a_cut_file_is_refused_and_the_complete_run_loads_later(
    warehouse: Warehouse, tmp_path: Path, name: str, keep: int
) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    full = (run / name).read_bytes()
    _cut(run / name, keep)
    with pytest.raises(StagingError) as err:
        load_crawl_run(warehouse, run)
    message = str(err.value)
    assert message.startswith(str(run / name)) and f"{keep} line(s)" in message and "announces 8" in message
    assert _stored(warehouse) == {"claims": 0, "raw_pages": 0, "crawl_runs": 0, "sources": 0}
    (run / name).write_bytes(full)  # the copy completes
    report = load_crawl_run(warehouse, run)
    assert not report.already_loaded and report.new_claims == 8


def test_a_file_changed_after_the_crawl_finished_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    staging = StagingRun(tmp_path / "dabegad-1", "dabegad-1", "dabegad").open()
    body = "<html><body>شائعة</body></html>".encode()
    page_id = stable_id("https://dabegad.com/p/1/", content_hash(body))
    staging.write_page(PageItem(page_id=page_id, url="https://dabegad.com/p/1/", source_id="dabegad", run_id="dabegad-1",
                                fetched_at="2018-03-10T12:00:00+00:00", http_status=200, content_hash=content_hash(body),
                                body=body, keep_body=True, parse_status="ok", parse_error=None))
    staging.write_claim(ClaimItem(
        run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/p/1/", title="عنوان", claim_text="شائعة إغلاق الطرق",
        body_text=None, published_raw=None, published_date=None, category=None, is_multimedia=False, claim_review=None,
        veracity="false", page_id=page_id, fetched_at="2018-03-10T12:00:00+00:00",
    ))
    summary = staging.finish()
    assert summary.files["claims.jsonl"]["lines"] == 1 and len(summary.files["claims.jsonl"]["sha256"]) == 64
    claims = tmp_path / "dabegad-1" / "claims.jsonl"
    claims.write_text(claims.read_text(encoding="utf-8").replace("الطرق", "المدارس"), encoding="utf-8")
    with pytest.raises(StagingError, match="SHA-256 differs"):
        load_crawl_run(warehouse, tmp_path / "dabegad-1")
    assert _stored(warehouse)["claims"] == 0


def test_run_json_contradicting_itself_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "norumors-1", "norumors", POSTS[:2])
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest["files"] = {"claims.jsonl": {"lines": 5}}
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(StagingError, match="files.claims.jsonl.lines' is 5"):
        load_crawl_run(warehouse, run)


@pytest.mark.parametrize(
    ("name", "damage", "line"),
    [
        ("claims.jsonl", lambda b: b.replace("شائعة رقم 2".encode(), "شائعة رقم 2".encode("cp1256")), 3),
        ("claims.jsonl", lambda b: b[:-1].rstrip(b"}\"") + b"\xd8\n", 8),  # cut mid-character on the last line
        ("pages.jsonl", lambda b: b"\xff\xfe" + b, 1),
        ("run.json", lambda b: b.replace(b'"araanews-1"', '"araanews-é"'.encode("latin-1"), 1), 1),
    ],
)
def test_wrongly_encoded_staging_files_name_file_and_line(
    warehouse: Warehouse, tmp_path: Path, name: str, damage: object, line: int
) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", POSTS)
    path = run / name
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    with pytest.raises(StagingError) as err:
        load_crawl_run(warehouse, run)
    message = str(err.value)
    assert message.startswith(f"{path}, line {line}, column ") and "UTF-8" in message and "\n" not in message
    assert _stored(warehouse)["claims"] == 0
