"""End to end: the real demo flow on the offline world, at a reduced scale (see helpers_demo)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers_demo import (  # noqa: F401 (demo: the shared demo fixture)
    COLLECTION_STAGES,
    RETRIEVE_LIMIT,
    TEST_MODEL_VARIANT,
    DemoRun,
    demo,
)

from warehouse import open_warehouse
from warehouse.model_runs import evaluations, model_runs
from warehouse.stats import source_stats, split_label_counts

pytestmark = pytest.mark.slow

SOURCES = {"araanews": "false", "dabegad": "false", "norumors": "false", "reuters": "true"}
SPLITS = ("train", "dev", "test")


def test_every_stage_succeeds_and_stores_its_output(demo: DemoRun) -> None:
    stages = {row["stage"]: row for row in demo.result["stages"]}
    assert list(stages) == ["crawl", "select", "retrieve", "dataset", "train"]
    assert {name: row["status"] for name, row in stages.items()} == dict.fromkeys(stages, "ok"), stages
    # drops and errors are counted on the warehouse, stage by stage
    assert any(reason.startswith("document: ") for reason in stages["retrieve"]["dropped"]), stages["retrieve"]
    assert stages["crawl"]["errors"].get("spider errors", 0) > 0  # the world's 404 and 500 pages
    assert stages["crawl"]["rows_added"]["claims"] > 0
    counts = demo.counts_after_demo
    for table in ("claims", "articles", "claim_article_pairs", "annotations", "gold_labels", "splits",
                  "model_runs", "evaluations"):
        assert counts[table] > 0, f"{table} is empty after the demo"
    assert demo.result["indexed_documents"] > 0
    annotation = demo.result["annotation"]
    assert annotation["gold"] == counts["gold_labels"] == counts["claim_article_pairs"]
    assert all(k is None or -1 <= k <= 1 for k in annotation["kappa"].values()), annotation["kappa"]
    with open_warehouse(demo.warehouse, read_only=True) as wh:
        crawled = {r["source_id"]: r["n"] for r in wh.query("SELECT source_id, count(*) AS n FROM claims GROUP BY 1")}
        runs = {r["source_id"]: r["run_id"] for r in wh.query("SELECT source_id, run_id FROM crawl_runs")}
        captured = wh.scalar("SELECT count(*) FROM raw_pages WHERE source_id = 'dabegad' AND captured_at IS NOT NULL")
    assert set(crawled) == set(SOURCES), crawled
    # Dabegad's live domain is compromised (live = false): the demo reads it through the archive emulator.
    assert runs["dabegad"].endswith("-archive") and not runs["norumors"].endswith("-archive")
    assert captured >= crawled["dabegad"]
    assert 0 < len({claim for claim, _ in demo.pairs_before_rerun}) <= RETRIEVE_LIMIT


def test_statistics_views_cover_all_four_sources_and_agree(demo: DemoRun) -> None:
    with open_warehouse(demo.warehouse, read_only=True) as wh:
        per_source = source_stats(wh)
        per_split = split_label_counts(wh)
    body = {r["source"]: r for r in per_source if r["source"] != "total"}
    assert {s: r["veracity"] for s, r in body.items()} == SOURCES
    for row in [*per_source, *per_split]:
        assert row["agree"] + row["disagree"] + row["discuss"] + row["unrelated"] == row["pairs"], row
    total = per_source[-1]
    assert total["source"] == "total" and total["pairs"] == sum(r["pairs"] for r in body.values()) > 0
    splits = {r["split"]: r for r in per_split}
    assert set(splits) == {*SPLITS, "total"}
    assert splits["total"]["pairs"] == total["pairs"]
    assert all(splits[s]["pairs"] > 0 for s in SPLITS), splits


def test_dataset_export_matches_the_splits(demo: DemoRun) -> None:
    export = demo.data_dir / "dataset"
    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    with open_warehouse(demo.warehouse, read_only=True) as wh:
        per_split = {r["split"]: r for r in split_label_counts(wh)}
    for split in SPLITS:
        records = [json.loads(line) for line in (export / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(records) == manifest["splits"][split]["claims"] == per_split[split]["claims"]
        assert sum(len(r["stance"]) for r in records) == per_split[split]["pairs"]
        assert all(len(r["article"]) == len(r["stance"]) and r["claim"].strip() for r in records)
        assert len(pd.read_parquet(export / f"{split}.parquet")) > 0
        assert set(manifest["files"]) >= {f"{split}.jsonl", f"{split}.parquet"}


def test_the_trained_model_is_recorded_with_its_metrics(demo: DemoRun) -> None:
    with open_warehouse(demo.warehouse, read_only=True) as wh:
        runs = model_runs(wh)
        stored = evaluations(wh, runs[0]["run_id"])
    assert [r["status"] for r in runs] == ["succeeded"]
    assert TEST_MODEL_VARIANT in runs[0]["model_name"]  # the test's cheaper variant reached the flow
    saved = Path(runs[0]["artifact_path"])
    assert (saved / "manifest.json").is_file()
    assert {p.name for p in (saved / "figures").glob("*.png")} == {"confusion-warehouse-dev.png",
                                                                   "confusion-warehouse-test.png"}
    assert {(r["dataset"], r["split"]) for r in stored} == {("warehouse", "dev"), ("warehouse", "test")}
    scores = [r["value"] for r in stored if r["metric"] in ("accuracy", "macro_f1", "f1")]
    assert scores and all(0 <= v <= 1 for v in scores)


def test_rerunning_the_collection_stages_adds_no_duplicates(demo: DemoRun) -> None:
    assert [r["stage"] for r in demo.rerun_stages] == COLLECTION_STAGES
    assert all(r["status"] == "ok" for r in demo.rerun_stages), demo.rerun_stages
    before, after = demo.counts_after_demo, demo.counts_after_rerun
    crawl = demo.rerun_stages[0]
    assert "already_known" in crawl["dropped"], crawl  # the posts were seen, then skipped
    assert after["claims"] == before["claims"]
    assert after["claim_clusters"] == before["claim_clusters"]
    assert after["gold_labels"] == before["gold_labels"]
    # Retrieval moves on to claims without documents; those of the first pass keep exactly theirs.
    done = {claim for claim, _ in demo.pairs_before_rerun}
    assert {p for p in demo.pairs_after_rerun if p[0] in done} == demo.pairs_before_rerun
