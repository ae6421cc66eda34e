"""Selection against a real warehouse file: reading claims, storing runs, the retrieval view."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

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


def test_a_period_restricts_seeds_headlines_and_retrieval_claims(warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    from arastance.config import load_settings
    from warehouse.retrieval import retrieval_candidates

    _load_sample(warehouse)
    monkeypatch.setenv("ARASTANCE_PERIOD__START", "2016-01-01")
    monkeypatch.setenv("ARASTANCE_PERIOD__END", "2016-12-31")
    period = load_settings().period.bounds
    assert period == (date(2016, 1, 1), date(2016, 12, 31))
    # 2017's seed and the undated one are outside; so are 2014's and 2017's headlines
    assert [r["claim_id"] for r in read_seed_claims(warehouse, period)] == ["f-flood"]
    assert [r["claim_id"] for r in read_candidate_headlines(warehouse, ["reuters"], period)] == [
        "r-flood", "r-flood2", "r-video"]
    assert [r["claim_id"] for r in retrieval_candidates(warehouse, period=period)] == ["f-flood"]
    assert len(list(retrieval_candidates(warehouse))) == 3  # open by default: every false claim, dated or not
    assert [r["claim_id"] for r in read_seed_claims(warehouse, (date(2017, 1, 1), None))] == ["f-fuel"]


def test_a_redo_reads_every_retrieval_claim_once_oldest_first_in_batches(warehouse: Warehouse) -> None:
    from warehouse.retrieval import retrieval_candidates, set_claim_status

    _load_sample(warehouse)  # three retrieval claims: f-flood (2016), f-fuel (2017), f-old (undated)
    set_claim_status(warehouse, "f-fuel", backend="local", status="done")
    redo = [r["claim_id"] for r in retrieval_candidates(warehouse, include_done=True, batch_size=2)]
    assert redo == ["f-flood", "f-fuel", "f-old"]  # the done one too, each once, undated last
    assert [r["claim_id"] for r in retrieval_candidates(warehouse, batch_size=2)] == ["f-flood", "f-old"]


def test_a_redo_run_draws_its_claims_from_the_warehouse_as_it_goes(
    warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``retrieve --redo`` reads the claims in batches, as a plain run does (a warehouse may hold
    100,000 claims): it read all of them in one query into a list first."""
    from arastance.config import load_settings
    from tasks.retrieval import claims_to_retrieve
    from warehouse.retrieval import set_claim_status

    _load_sample(warehouse)
    set_claim_status(warehouse, "f-fuel", backend="local", status="done")
    drawn: list[str] = []  # the claims taken from the warehouse's batched reader, as they are taken
    iter_rows = warehouse.iter_rows

    def observed(sql: str, params: Any = None, batch_size: int = 200) -> Iterator[dict[str, Any]]:
        for row in iter_rows(sql, params, batch_size):
            drawn.append(row["claim_id"])
            yield row

    monkeypatch.setattr(warehouse, "iter_rows", observed)  # observes the real reads, changes nothing
    claims = claims_to_retrieve(warehouse, load_settings(), None, redo=True)
    first = next(claims)
    assert drawn == [first["claim_id"]] == ["f-flood"]  # it was: nothing drawn, all read at once
    assert [first["claim_id"], *(c["claim_id"] for c in claims)] == drawn == ["f-flood", "f-fuel", "f-old"]


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
    assert rows["f-flood"]["claim_text"] == f"{FLOOD} بحسب ناشطين"          # the override wins
    assert rows["r-fuel"] == {"claim_id": "r-fuel", "veracity": "true", "claim_text": f"{FUEL} رسميا",
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
