"""The parent flow's per-stage report: rows added, drops and errors measured on the warehouse."""

from datetime import datetime

from flows.pipeline import REASON_CHARS, _reason
from tasks.pipeline_report import StageOutcome, rows_added, stage_growth, stage_rows
from warehouse import Warehouse
from warehouse.stats import stage_figures


def test_rows_added_lists_only_tables_that_grew() -> None:
    before = {"claims": 10, "articles": 5, "splits": 3}
    after = {"claims": 14, "articles": 5, "splits": 3, "search_cache": 7}
    assert rows_added(before, after) == {"claims": 4, "search_cache": 7}


def test_drops_and_errors_are_the_growth_of_the_warehouse_totals_of_that_stage(warehouse: Warehouse) -> None:
    def run(run_id: str, dropped: str, errors: int) -> dict[str, object]:
        return {"run_id": run_id, "source_id": "norumors", "started_at": datetime(2024, 1, 1),
                "dropped": dropped, "errors": errors}

    warehouse.insert_rows("crawl_runs", [run("r1", '{"http_404": 2, "excluded:multimedia": 1}', 1)])
    before = stage_figures(warehouse)
    assert before[("crawl", "dropped", "http_404")] == 2
    warehouse.insert_rows("crawl_runs", [run("r2", '{"http_404": 1, "already_known": 7}', 0)])
    warehouse.insert_rows("document_decisions", [
        {"claim_id": "c1", "url": "https://a.example/1", "canonical_url": "https://a.example/1",
         "decision": "dropped", "reason": "not_news_domain", "best_rank": 4, "query_kinds": "claim",
         "decided_at": datetime(2024, 1, 2)}])
    after = stage_figures(warehouse)
    assert stage_growth("crawl", "dropped", before, after) == {"http_404": 1, "already_known": 7}
    assert stage_growth("crawl", "error", before, after) == {}  # the second run had none
    assert stage_growth("retrieve", "dropped", before, after) == {"document: not_news_domain": 1}
    assert stage_growth("select", "dropped", before, after) == {}
    warehouse.insert_rows("dataset_split_conflicts", [  # it was: not counted among the dataset's drops
        {"claim_id": "c2", "group_id": "c1", "split": "test", "kept_split": "train", "pairs": 3,
         "flagged_at": datetime(2024, 1, 3)}])
    assert stage_growth("dataset", "dropped", after, stage_figures(warehouse)) == {
        "claim left out: a near-duplicate in another split": 1}


def test_the_stages_table_has_one_column_per_figure_and_the_figures_table_one_row_each() -> None:
    outcome = StageOutcome("crawl", "ok", 12.34, {"raw_pages": 3, "claims": 2}, {"http_500": 1},
                           {"spider errors": 2})
    assert stage_rows([outcome.as_result()]) == [{"stage": "crawl", "status": "ok", "seconds": 12.3,
                                                  "rows added": 5, "dropped": 1, "errors": 2, "note": ""}]
    assert outcome.figure_rows() == [
        {"stage": "crawl", "figure": "rows added", "what": "raw_pages", "count": 3},
        {"stage": "crawl", "figure": "rows added", "what": "claims", "count": 2},
        {"stage": "crawl", "figure": "dropped", "what": "http_500", "count": 1},
        {"stage": "crawl", "figure": "error", "what": "spider errors", "count": 2},
    ]


def test_a_stage_failure_reason_hides_a_url_password_before_it_is_cut() -> None:
    """The reason goes into the pipeline run's message, which no log redaction reaches: an archive URL's
    password stood there in clear, and a cut through it would have shown its first part."""
    reason = _reason(RuntimeError("archive discovery failed: http://arch:pw-Secret-77@127.0.0.1:9/cdx: refused"))
    assert "pw-Secret" not in reason and "http://arch:****@127.0.0.1:9/cdx" in reason
    cut = _reason(RuntimeError("x" * (REASON_CHARS - 20) + " http://arch:pw-Secret-77@127.0.0.1:9/cdx"))
    assert "pw-Se" not in cut and cut.endswith("…") and len(cut) == REASON_CHARS
