"""The staging contract is one declaration: writer records and reader models carry the same fields."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from arastance.base.staging import (
    SITES,
    ClaimItem,
    DetailFields,
    PageItem,
    RunSummary,
    StagedClaim,
    StagedPage,
    StagedRun,
    StagingError,
    data_file_manifest,
)
from spiders.items import claim_item, page_item
from spiders.site_config import available_sites, load_site_config
from spiders.staging import StagingRun
from tasks.claim_load.staged import read_staging_run


def names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_writer_records_and_reader_models_have_the_same_fields() -> None:
    assert names(PageItem) - {"body", "keep_body"} | {"html_file"} == set(StagedPage.model_fields)
    assert names(ClaimItem) == set(StagedClaim.model_fields)
    assert names(RunSummary) == set(StagedRun.model_fields)


def test_the_contract_sites_are_the_spiders_sites() -> None:
    assert sorted(SITES) == available_sites()
    for source_id, (name, _country, _kind, veracity) in SITES.items():
        config = load_site_config(source_id)
        assert (config.name, config.veracity) == (name, veracity)


def test_what_the_writer_writes_the_reader_reads(tmp_path: Path) -> None:
    fetched = datetime(2024, 5, 1, 10, 30, tzinfo=timezone.utc)
    run_dir = tmp_path / "dabegad-1"
    with StagingRun(run_dir, "dabegad-1", "dabegad") as run:
        page = page_item(run_id="dabegad-1", source_id="dabegad", url="https://dabegad.com/a", body=b"<html>x</html>",
                         http_status=200, fetched_at=fetched, parse_status="ok")
        run.write_page(page)
        fields = DetailFields(url="https://dabegad.com/a", title="عنوان", claim_text="خبر", body_text="فقرة",
                              published_raw="١ مايو ٢٠٢٤", published_date="2024-05-01", category=None,
                              is_multimedia=False, claim_review={"claim_reviewed": "خبر", "rating": "False", "author": None})
        run.write_claim(claim_item(fields, page=page, veracity="false"))
        run.finish()
    staged = read_staging_run(run_dir)
    (_, claim), = staged.claims
    assert claim.published_date.isoformat() == "2024-05-01" and claim.fetched_at == fetched
    assert claim.claim_review is not None and claim.claim_review.rating == "False"
    (_, stored), = staged.pages
    assert stored.html_file == f"pages/{page.page_id}.html.gz" and stored.content_hash == page.content_hash
    assert {name: f.lines for name, f in staged.run.files.items()} == {"claims.jsonl": 1, "pages.jsonl": 1}
    # a file changed after the run finished no longer matches the manifest in run.json
    line = json.loads((run_dir / "claims.jsonl").read_text(encoding="utf-8"))
    line["published_date"] = "first of May"
    (run_dir / "claims.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(StagingError, match=r"claims.jsonl: its SHA-256 differs"):
        read_staging_run(run_dir)
    # a writer that drifts from the contract (its manifest agreeing) is caught by the reader, naming the field
    summary = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    summary["files"] = data_file_manifest(run_dir)
    (run_dir / "run.json").write_text(json.dumps(summary, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(StagingError, match=r"claims.jsonl, line 1: field 'published_date'"):
        read_staging_run(run_dir)


def test_the_fetchers_url_list_round_trips_and_refuses_a_url_with_a_line_break(tmp_path: Path) -> None:
    from arastance.base.staging import read_url_list, write_url_list

    urls = ["https://a.example/1", "https://b.example/خبر?id=2"]
    assert read_url_list(write_url_list(urls, tmp_path / "urls.txt")) == urls
    with pytest.raises(ValueError, match=r"a URL to fetch holds a line break: 'https://a.example/1\\nhttps://c.example/'"):
        write_url_list(["https://a.example/1\nhttps://c.example/"], tmp_path / "other.txt")
    assert not (tmp_path / "other.txt").exists()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"])
def test_the_url_list_ends_lines_at_line_feeds_alone_and_refuses_a_url_splitlines_would_cut(
        tmp_path: Path, separator: str) -> None:
    # it was: read with str.splitlines(), a URL holding U+2028 (or NEL, ...) was read as two other URLs, or the
    # second half, not absolute, failed the whole fetch wave
    from arastance.base.staging import read_url_list, write_url_list

    url = f"https://news.example/a{separator}https://other.example/b"
    with pytest.raises(ValueError, match="a URL to fetch holds a line break") as refused:
        write_url_list([url], tmp_path / "refused.txt")
    assert repr(url) in str(refused.value)
    written = tmp_path / "urls.txt"  # a list written by another hand: one URL a line, CRLF line ends too
    written.write_bytes(f"{url}\r\nhttps://c.example/3\n".encode())
    assert read_url_list(written) == [url, "https://c.example/3"]
