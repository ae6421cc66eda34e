"""Selection against a real warehouse file: reading claims, storing runs, the retrieval view."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest

from arastance.config.selection import SelectionSettings
from helpers_true_claims import CHOLERA, FLOOD, FUEL, SEEN, claim_row
from tasks.true_claims.select import input_fingerprint, select_true_claims
from tasks.true_claims.rows import claim_records, exclusion_rows, match_rows, run_row, selection_run_id
from warehouse import Warehouse
from warehouse.selection import (
    StoredSelection,
    read_candidate_headlines,
    read_seed_claims,
    selected_true_claims,
    selection_runs,
    store_selection,
)

T0 = datetime(2018, 1, 1, 12, 0)


def _load_sample(wh: Warehouse) -> None:
    wh.insert_rows("claims", [
        claim_row("f-flood", "false", FLOOD, date(2016, 3, 1)),
        claim_row("f-fuel", "false", FUEL, date(2017, 6, 1), source_id="araanews"),
        claim_row("f-old", "false", CHOLERA, None, source_id="norumors"),           # undated seed
        claim_row("f-gone", "false", CHOLERA, date(2016, 3, 1), status="excluded"),  # never a seed
        claim_row("r-flood", "true", f"{FLOOD} صباحا", date(2016, 4, 1)),
        claim_row("r-flood2", "true", f"{FLOOD} مساء", date(2016, 2, 1)),
        claim_row("r-fuel", "true", f"{FUEL} رسميا", date(2017, 8, 1)),
        claim_row("r-far", "true", f"{FUEL} رسميا مجددا", date(2014, 8, 1)),       # outside every window
        claim_row("r-video", "true", f"{FLOOD} بالفيديو", date(2016, 3, 2), is_multimedia=True),
        claim_row("r-off", "true", f"{FLOOD} فجرا", date(2016, 3, 2), status="excluded"),
        claim_row("x-true", "true", f"{FLOOD} ليلا", date(2016, 3, 2), source_id="other-agency"),
    ])
    wh.insert_rows("claim_overrides", [
        {"claim_id": "f-flood", "cleaned_text": f"{FLOOD} بحسب ناشطين", "reviewer": "rev1", "reviewed_at": SEEN},
    ])


def _run(wh: Warehouse, settings: SelectionSettings) -> StoredSelection:
    """What the flow does, without Prefect: read, select, store."""
    seeds = claim_records(read_seed_claims(wh))
    heads = claim_records(read_candidate_headlines(wh, settings.headline_sources))
    result = select_true_claims(seeds, heads, settings)
    fingerprint = input_fingerprint(seeds, heads)
    run_id = selection_run_id(result.params, fingerprint)
    return store_selection(wh, run_row(result, run_id, fingerprint, T0, T0), match_rows(result, run_id),
                           exclusion_rows(result, run_id))


def test_reads_active_seeds_and_reuters_headlines_with_override_text(warehouse: Warehouse) -> None:
    _load_sample(warehouse)
    seeds = {r["claim_id"]: r for r in read_seed_claims(warehouse)}
    assert list(seeds) == ["f-flood", "f-fuel", "f-old"]
    assert seeds["f-flood"]["text"].endswith("بحسب ناشطين")
    heads = [r["claim_id"] for r in read_candidate_headlines(warehouse, ["reuters"])]
    assert heads == ["r-far", "r-flood", "r-flood2", "r-fuel", "r-video"]
    assert [r["claim_id"] for r in read_candidate_headlines(warehouse, ["other-agency"])] == ["x-true"]


def test_selection_is_stored_with_provenance_and_rerun_adds_nothing(warehouse: Warehouse) -> None:
    _load_sample(warehouse)
    first = _run(warehouse, SelectionSettings())
    assert first.new_run and first.new_matches == 3 and first.new_exclusions == 2
    matches = warehouse.query(
        "SELECT seed_claim_id, headline_claim_id, rank FROM selection_matches ORDER BY seed_claim_id, rank"
    )
    # equal scores for the two flood headlines: 1 February is 29 days away, 1 April 31
    assert [(m["seed_claim_id"], m["headline_claim_id"], m["rank"]) for m in matches] == [
        ("f-flood", "r-flood2", 1), ("f-flood", "r-flood", 2), ("f-fuel", "r-fuel", 1),
    ]
    excluded = {(r["claim_id"], r["role"]): r["reason"] for r in warehouse.query("SELECT * FROM selection_exclusions")}
    assert excluded == {("f-old", "seed"): "no_date", ("r-video", "headline"): "multimedia"}
    run = selection_runs(warehouse)[0]
    assert (run["seeds_used"], run["seeds_matched"], run["selected_headlines"], run["matches"]) == (2, 2, 3, 3)
    assert json.loads(run["excluded"]) == {"headline:multimedia": 1, "seed:no_date": 1}
    assert json.loads(run["params"])["top_k"] == 10

    before = warehouse.table_counts()
    again = _run(warehouse, SelectionSettings())
    assert (again.run_id, again.new_run, again.new_matches, again.new_exclusions) == (first.run_id, False, 0, 0)
    assert warehouse.table_counts() == before


def test_retrieval_view_has_active_false_claims_and_chosen_true_claims_only(warehouse: Warehouse) -> None:
    _load_sample(warehouse)
    assert {r["claim_id"] for r in warehouse.query("SELECT claim_id FROM v_retrieval_claims")} == {
        "f-flood", "f-fuel", "f-old",
    }
    _run(warehouse, SelectionSettings())
    rows = {r["claim_id"]: r for r in warehouse.query("SELECT * FROM v_retrieval_claims")}
    assert set(rows) == {"f-flood", "f-fuel", "f-old", "r-flood", "r-flood2", "r-fuel"}
    assert rows["f-flood"]["text"] == f"{FLOOD} بحسب ناشطين"          # the override wins
    assert rows["r-fuel"] == {"claim_id": "r-fuel", "veracity": "true", "text": f"{FUEL} رسميا",
                              "published_date": date(2017, 8, 1), "source_id": "reuters"}

    # a chosen headline excluded later by a reviewer leaves retrieval, its provenance stays
    warehouse.con.execute("UPDATE claims SET status = 'excluded' WHERE claim_id = 'r-fuel'")
    assert "r-fuel" not in {r["claim_id"] for r in warehouse.query("SELECT claim_id FROM v_retrieval_claims")}
    assert warehouse.scalar("SELECT count(*) FROM selection_matches WHERE headline_claim_id = 'r-fuel'") == 1


def test_new_settings_make_a_new_run_and_selections_accumulate(warehouse: Warehouse) -> None:
    _load_sample(warehouse)
    warehouse.insert_rows("claims", [claim_row("r-cholera", "true", f"{CHOLERA} رسميا", date(2013, 1, 1))])
    first = _run(warehouse, SelectionSettings(top_k=1))
    assert {r["claim_id"]: r["seeds"] for r in selected_true_claims(warehouse)} == {"r-flood2": 1, "r-fuel": 1}
    second = _run(warehouse, SelectionSettings(top_k=1, undated_policy="ignore_window"))
    assert first.run_id != second.run_id and second.new_run and second.new_matches == 3
    # the undated seed now finds its headline; the first run's choices stay
    assert {r["claim_id"]: r["seeds"] for r in selected_true_claims(warehouse)} == {
        "r-flood2": 1, "r-fuel": 1, "r-cholera": 1,
    }
    assert len(selection_runs(warehouse)) == 2


def test_a_row_with_a_bad_date_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"seed row 1 \(b\): field 'published_date' is not a date: '2016-13-01'"):
        claim_records([{"claim_id": "a", "text": "x", "published_date": None},
                       {"claim_id": "b", "text": "x", "published_date": "2016-13-01"}], origin="seed")
