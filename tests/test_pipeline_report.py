"""The parent flow's per-stage report: rows added measured from counts, drops from summaries."""

from tasks.pipeline_report import StageOutcome, dropped_reasons, rows_added


def test_rows_added_lists_only_tables_that_grew() -> None:
    before = {"claims": 10, "articles": 5, "splits": 3}
    after = {"claims": 14, "articles": 5, "splits": 3, "search_cache": 7}
    assert rows_added(before, after) == {"claims": 4, "search_cache": 7}


def test_drops_are_collected_from_per_site_rows_and_dicts() -> None:
    crawl_rows = [
        {"site": "dabegad", "status": "ok", "dropped": "http_404=1, parse_failed=2"},
        {"site": "norumors", "status": "ok", "dropped": "http_404=2"},
        {"site": "reuters", "status": "failed: timeout", "dropped": "-"},
    ]
    assert dropped_reasons(crawl_rows) == {"http_404": 3, "parse_failed": 2, "failed": 1}
    selection = {"matches": 85, "excluded": {"seed:no_date": 14, "headline:multimedia": 0}}
    assert dropped_reasons(selection) == {"excluded:seed:no_date": 14}
    assert dropped_reasons({"flagged": 12, "gold": 2000}) == {"claims all unrelated": 12}
    assert dropped_reasons(None) == {}


def test_outcome_row_is_flat_and_sorted() -> None:
    row = StageOutcome("crawl", "ok", 12.34, {"raw_pages": 3, "claims": 2}, {"http_500": 1}).as_row()
    assert row == {"stage": "crawl", "status": "ok", "seconds": 12.3, "rows added": "claims +2, raw_pages +3",
                   "dropped": "http_500=1", "error": "-"}
