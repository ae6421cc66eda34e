"""The staging run writer: contract files, counts from the files, resume by appending."""

from __future__ import annotations

import errno
import os
import gzip
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers_disk import read_only, small_disk

from spiders.crawlers.base import parse_flag, read_captures, read_known_urls
from arastance.base.staging import DetailFields, new_run_id
from spiders.items import claim_item, page_item
from spiders.staging import StagingRun, failure_reason, read_run

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)


def fields(url: str) -> DetailFields:
    return DetailFields(url=url, title="حقيقة الخبر", claim_text="الشائعة: خبر", body_text="فقرة", published_raw="١ مايو ٢٠٢٤",
                        published_date="2024-05-01", category="صحة", is_multimedia=False, claim_review=None,
                        field_layers={"title": "css", "claim": "css"})


def write_detail(run: StagingRun, url: str, body: bytes) -> None:
    page = page_item(run_id=run.run_id, source_id="dabegad", url=url, body=body, http_status=200, fetched_at=NOW,
                     parse_status="ok")
    run.write_page(page)
    run.write_claim(claim_item(fields(url), page=page, veracity="false"))


def test_a_run_writes_the_contract_files_and_counts_from_them(tmp_path: Path) -> None:
    run_dir = tmp_path / "dabegad-1"
    with StagingRun(run_dir, "dabegad-1", "dabegad") as run:
        write_detail(run, "https://dabegad.com/a", b"<html>a</html>")
        run.write_page(page_item(run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/gone", body=b"nf",
                                 http_status=404, fetched_at=NOW, parse_status="failed", parse_error="http_404: HTTP 404"))
        summary = run.finish(stats={"downloader/request_count": 3}, dropped={"robots_disallowed": 1, "offsite": 0})
    assert (summary.pages, summary.items, summary.errors) == (2, 1, 1)
    assert summary.dropped == {"http_404": 1, "robots_disallowed": 1}
    run_json, claims, pages = read_run(run_dir)
    assert run_json["stats"] == {"downloader/request_count": 3} and run_json["run_id"] == "dabegad-1"
    assert claims[0]["page_id"] == pages[0]["page_id"] and claims[0]["fetched_at"] == "2024-05-01T12:00:00+00:00"
    assert gzip.decompress((run_dir / pages[0]["html_file"]).read_bytes()) == b"<html>a</html>"
    assert pages[1]["html_file"].endswith(".html.gz")


def test_a_full_disk_leaves_whole_lines_takes_no_more_writes_and_never_finishes(tmp_path: Path) -> None:
    import os

    with small_disk(tmp_path, 1) as disk:
        run_dir = disk.root / "dabegad-1"
        run = StagingRun(run_dir, "dabegad-1", "dabegad").open()
        with pytest.raises(OSError, match="No space left on device"):
            for i in range(100_000):  # incompressible bodies, ~4 KiB each
                write_detail(run, f"https://dabegad.com/{i}", os.urandom(4096))
        with pytest.raises(OSError, match="takes no more writes"):
            run.write_claim(claim_item(fields("https://dabegad.com/x"), page=page_item(
                run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/x", body=b"x", http_status=200,
                fetched_at=NOW, parse_status="ok"), veracity="false"))
        disk.free()
        with pytest.raises(OSError, match="left unfinished: a write failed"):
            run.finish()  # it was: run.json written over a claim whose page was lost
        assert not (run_dir / "run.json").exists()
        pages = [json.loads(line) for line in (run_dir / "pages.jsonl").read_text(encoding="utf-8").splitlines()]
        claims = [json.loads(line) for line in (run_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
        assert {c["page_id"] for c in claims} <= {p["page_id"] for p in pages}  # every line whole, no orphan
        assert {f.name for f in (run_dir / "pages").iterdir()} == {Path(p["html_file"]).name for p in pages}
        run.abandon()
        assert not run_dir.exists()



def test_a_page_refused_by_a_read_only_disk_stops_the_run_like_a_full_disk(tmp_path: Path) -> None:
    # it was: the refused page file could not be removed either, that second error hid the first,
    # and the run went on and finished with claims whose pages were never kept
    run_dir = tmp_path / "dabegad-1"
    run = StagingRun(run_dir, "dabegad-1", "dabegad").open()
    write_detail(run, "https://dabegad.com/a", b"<html>a</html>")
    with read_only(run_dir / "pages"):
        with pytest.raises(OSError, match="Read-only file system"):
            write_detail(run, "https://dabegad.com/b", b"<html>b</html>")
        with pytest.raises(OSError, match="takes no more writes after .*Read-only file system"):
            run.write_claim(claim_item(fields("https://dabegad.com/b"), page=page_item(
                run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/b", body=b"b", http_status=200,
                fetched_at=NOW, parse_status="ok"), veracity="false"))
    with pytest.raises(OSError, match="left unfinished: a write failed"):
        run.finish()
    assert len((run_dir / "pages.jsonl").read_text(encoding="utf-8").splitlines()) == 1
    assert len((run_dir / "claims.jsonl").read_text(encoding="utf-8").splitlines()) == 1


def test_a_line_whose_take_back_fails_too_still_stops_the_run(tmp_path: Path) -> None:
    # it was: the failed truncate's error escaped before the write's was kept, the run took more
    # writes and finished (9 claims of 56 in the review, with an I/O error on both)
    import os

    run_dir = tmp_path / "dabegad-1"
    run = StagingRun(run_dir, "dabegad-1", "dabegad").open()
    write_detail(run, "https://dabegad.com/a", b"<html>a</html>")
    os.close(run._claims)
    run._claims = os.open(run_dir / "claims.jsonl", os.O_RDONLY)  # a real write and truncate that both fail
    with pytest.raises(OSError):
        write_detail(run, "https://dabegad.com/b", b"<html>b</html>")
    assert run.write_error is not None and run.write_error.errno == errno.EBADF
    with pytest.raises(OSError, match="takes no more writes"):
        write_detail(run, "https://dabegad.com/c", b"<html>c</html>")
    with pytest.raises(OSError, match="left unfinished: a write failed"):
        run.finish()


def test_a_run_that_cannot_open_takes_no_writes_and_leaves_no_descriptor(tmp_path: Path) -> None:
    # it was: the claims file stayed open and the run was never abandoned, so its directory stayed
    run_dir = tmp_path / "dabegad-1"
    (run_dir / "pages.jsonl").mkdir(parents=True)  # opening it for writing fails, after claims.jsonl opened
    run = StagingRun(run_dir, "dabegad-1", "dabegad")
    with pytest.raises(IsADirectoryError):
        run.open()
    assert run._claims is None and run._pages is None
    with pytest.raises(OSError, match="takes no more writes after .*Is a directory"):
        run.write_claim(claim_item(fields("https://dabegad.com/a"), page=page_item(
            run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/a", body=b"a", http_status=200,
            fetched_at=NOW, parse_status="ok"), veracity="false"))
    run.abandon()
    assert not run_dir.exists()

def test_a_resumed_run_appends_and_a_finished_run_is_never_reopened(tmp_path: Path) -> None:
    run_dir = tmp_path / "norumors-1"
    first = StagingRun(run_dir, "norumors-1", "norumors").open()
    write_detail(first, "https://norumors.net/rumors/1", b"1")
    first.close()  # interrupted: no run.json
    assert not (run_dir / "run.json").exists()
    with pytest.raises(FileNotFoundError, match="not a finished staging run"):
        read_run(run_dir)
    with StagingRun(run_dir, "norumors-1", "norumors") as second:
        write_detail(second, "https://norumors.net/rumors/2", b"2")
        summary = second.finish()
    assert summary.items == 2
    assert summary.started_at <= summary.finished_at
    with pytest.raises(FileExistsError, match="already finished"):
        StagingRun(run_dir, "norumors-1", "norumors").open()
    assert [json.loads(l)["url"] for l in (run_dir / "claims.jsonl").read_text().splitlines()] == [
        "https://norumors.net/rumors/1", "https://norumors.net/rumors/2"]


def test_known_url_files_are_canonicalised_and_bad_lines_named(tmp_path: Path) -> None:
    good = tmp_path / "known.txt"
    good.write_text("# exported\nhttps://www.araanews.ae/2016/05/x-1/?utm_source=t\n\n", encoding="utf-8")
    assert read_known_urls(good) == {"https://araanews.ae/2016/05/x-1"}
    bad = tmp_path / "bad.txt"
    bad.write_text("https://araanews.ae/a\nnot a url\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt:2"):
        read_known_urls(bad)
    with pytest.raises(FileNotFoundError, match="missing.txt does not exist"):
        read_known_urls(tmp_path / "missing.txt")
    with pytest.raises(IsADirectoryError, match=f"known_urls file {tmp_path} is a directory, not a file"):
        read_known_urls(tmp_path)  # it was: "… does not exist", then FileNotFoundError with the right words
    with pytest.raises(IsADirectoryError, match=f"captures file {tmp_path} is a directory, not a file"):
        read_captures(tmp_path)
    fifo = tmp_path / "captures.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="is not a regular file") as raised:
        read_captures(fifo)  # refused before a read that would wait on the pipe for ever
    assert type(raised.value) is OSError
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="is a symbolic link to nothing"):
        read_known_urls(tmp_path / "gone.txt")


def test_small_parts() -> None:
    assert failure_reason("timeout: TimeoutError: took too long") == "timeout"
    assert failure_reason(None) == "unknown"
    assert parse_flag("False", "incremental") is False and parse_flag("on", "incremental") is True
    with pytest.raises(ValueError, match="incremental"):
        parse_flag("maybe", "incremental")
    assert new_run_id("reuters", NOW) == "reuters-20240501T120000000000"
